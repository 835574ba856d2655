#include "tensor_types.h"

#include <array>

namespace omnirt::triton {
namespace {

// DLPack >= 0.8 names bool kDLBool (6); Debian's dlpack.h (0.6) predates it.
// PyTorch 2.x engines give and take bool tensors as {6, 8, 1}.
constexpr uint8_t kDLBoolCode = 6;

struct TypeRow {
  TRITONSERVER_DataType type;
  const char* name;
  const char* config_name;
  size_t size;
  std::optional<omnirt_dtype> omnirt;
  std::optional<DLDataType> dlpack;
};

DLDataType dl(uint8_t code, uint8_t bits) { return DLDataType{code, bits, 1}; }

const std::array<TypeRow, 14>& rows() {
  static const std::array<TypeRow, 14> table{{
      {TRITONSERVER_TYPE_BOOL, "BOOL", "TYPE_BOOL", 1, OMNIRT_DTYPE_BOOL, dl(kDLBoolCode, 8)},
      {TRITONSERVER_TYPE_UINT8, "UINT8", "TYPE_UINT8", 1, OMNIRT_DTYPE_U8, dl(kDLUInt, 8)},
      {TRITONSERVER_TYPE_UINT16, "UINT16", "TYPE_UINT16", 2, std::nullopt, std::nullopt},
      {TRITONSERVER_TYPE_UINT32, "UINT32", "TYPE_UINT32", 4, std::nullopt, std::nullopt},
      {TRITONSERVER_TYPE_UINT64, "UINT64", "TYPE_UINT64", 8, std::nullopt, std::nullopt},
      {TRITONSERVER_TYPE_INT8, "INT8", "TYPE_INT8", 1, OMNIRT_DTYPE_I8, dl(kDLInt, 8)},
      {TRITONSERVER_TYPE_INT16, "INT16", "TYPE_INT16", 2, OMNIRT_DTYPE_I16, dl(kDLInt, 16)},
      {TRITONSERVER_TYPE_INT32, "INT32", "TYPE_INT32", 4, OMNIRT_DTYPE_I32, dl(kDLInt, 32)},
      {TRITONSERVER_TYPE_INT64, "INT64", "TYPE_INT64", 8, OMNIRT_DTYPE_I64, dl(kDLInt, 64)},
      {TRITONSERVER_TYPE_FP16, "FP16", "TYPE_FP16", 2, OMNIRT_DTYPE_F16, dl(kDLFloat, 16)},
      {TRITONSERVER_TYPE_FP32, "FP32", "TYPE_FP32", 4, OMNIRT_DTYPE_F32, dl(kDLFloat, 32)},
      {TRITONSERVER_TYPE_FP64, "FP64", "TYPE_FP64", 8, OMNIRT_DTYPE_F64, dl(kDLFloat, 64)},
      {TRITONSERVER_TYPE_BYTES, "BYTES", "TYPE_STRING", 0, std::nullopt, std::nullopt},
      {TRITONSERVER_TYPE_BF16, "BF16", "TYPE_BF16", 2, OMNIRT_DTYPE_BF16, dl(kDLBfloat, 16)},
  }};
  return table;
}

const TypeRow* find(TRITONSERVER_DataType type) {
  for (const TypeRow& row : rows()) {
    if (row.type == type) return &row;
  }
  return nullptr;
}

}  // namespace

TRITONSERVER_DataType datatype_from_config(std::string_view name) {
  for (const TypeRow& row : rows()) {
    if (name == row.config_name) return row.type;
  }
  return TRITONSERVER_TYPE_INVALID;
}

const char* datatype_name(TRITONSERVER_DataType type) {
  const TypeRow* row = find(type);
  return row != nullptr ? row->name : "INVALID";
}

size_t element_size(TRITONSERVER_DataType type) {
  const TypeRow* row = find(type);
  return row != nullptr ? row->size : 0;
}

std::optional<omnirt_dtype> omnirt_type(TRITONSERVER_DataType type) {
  const TypeRow* row = find(type);
  return row != nullptr ? row->omnirt : std::nullopt;
}

std::optional<DLDataType> dlpack_type(TRITONSERVER_DataType type) {
  const TypeRow* row = find(type);
  return row != nullptr ? row->dlpack : std::nullopt;
}

TRITONSERVER_DataType datatype_of(DLDataType type) {
  for (const TypeRow& row : rows()) {
    if (row.dlpack && row.dlpack->code == type.code && row.dlpack->bits == type.bits &&
        row.dlpack->lanes == type.lanes) {
      return row.type;
    }
  }
  return TRITONSERVER_TYPE_INVALID;
}

std::string dlpack_type_name(DLDataType type) {
  const TRITONSERVER_DataType triton = datatype_of(type);
  if (triton != TRITONSERVER_TYPE_INVALID) return datatype_name(triton);
  std::string text = "DLPack code " + std::to_string(type.code) + " bits " + std::to_string(type.bits);
  if (type.lanes != 1) text += " lanes " + std::to_string(type.lanes);
  return text;
}

}  // namespace omnirt::triton
