#include "op_call.h"

#include <cmath>
#include <cstring>

#include "../engine/dlpack_text.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu::ops {

std::string TensorView::shape_text() const {
  std::string text = "[";
  for (int d = 0; d < ndim; ++d) {
    if (d > 0) text += ", ";
    text += std::to_string(shape[d]);
  }
  return text + "]";
}

void OpCall::fail(const std::string& what) const {
  omnirt::plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(op_) + ": " + what);
}

TensorView OpCall::input(size_t i, const char* role) const {
  return view(inputs_[i], "input " + std::to_string(i) + " (" + role + ")");
}

TensorView OpCall::output(size_t i, const char* role) const {
  return view(outputs_[i], "output " + std::to_string(i) + " (" + role + ")");
}

TensorView OpCall::view(const DLTensor& t, std::string name) const {
  if (t.device.device_type != kDLCPU) {
    fail(name + ": device must be cpu, got " + device_text(t.device));
  }
  if (t.dtype.code != kDLFloat || t.dtype.bits != 32 || t.dtype.lanes != 1) {
    fail(name + ": dtype must be float32, got " + dtype_text(t.dtype));
  }
  if (t.ndim < 1 || t.ndim > kMaxDims || t.shape == nullptr) {
    fail(name + ": must have 1 to " + std::to_string(kMaxDims) +
         " dimensions and a shape, got ndim " + std::to_string(t.ndim));
  }
  TensorView v;
  v.name = std::move(name);
  v.ndim = t.ndim;
  int64_t numel = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.shape[d] < 0) fail(v.name + ": shape[" + std::to_string(d) + "] is negative");
    v.shape[d] = t.shape[d];
    // DLPack: NULL strides mean compact row-major.
    v.strides[d] = t.strides != nullptr ? t.strides[d] : numel;
    numel *= t.shape[d];
  }
  char* data = static_cast<char*>(t.data) + t.byte_offset;
  if (numel > 0 && t.data == nullptr) fail(v.name + ": data is NULL");
  if (reinterpret_cast<uintptr_t>(data) % alignof(float) != 0) {
    fail(v.name + ": data + byte_offset is not aligned to float32");
  }
  v.data = reinterpret_cast<float*>(data);
  return v;
}

void OpCall::require_same_shape(const TensorView& t, const TensorView& like) const {
  bool same = t.ndim == like.ndim;
  for (int d = 0; same && d < t.ndim; ++d) same = t.shape[d] == like.shape[d];
  if (!same) {
    fail(t.name + ": shape must be " + like.shape_text() + " (that of " + like.name + "), got " +
         t.shape_text());
  }
}

void OpCall::require_last_dim_vector(const TensorView& t, const TensorView& of) const {
  const int64_t size = of.shape[of.ndim - 1];
  if (t.ndim != 1 || t.shape[0] != size) {
    fail(t.name + ": shape must be [" + std::to_string(size) + "] (the last dimension of " +
         of.name + "), got " + t.shape_text());
  }
}

const omnirt_op_attr* OpCall::find_attr(const char* name) const {
  for (size_t i = 0; i < num_attrs_; ++i) {
    if (std::strcmp(attrs_[i].name, name) == 0) return &attrs_[i];
  }
  return nullptr;
}

void OpCall::check_attrs(std::initializer_list<const char*> known) const {
  for (size_t i = 0; i < num_attrs_; ++i) {
    if (attrs_[i].name == nullptr) fail("attribute " + std::to_string(i) + " has no name");
    bool found = false;
    std::string names;
    for (const char* k : known) {
      found = found || std::strcmp(attrs_[i].name, k) == 0;
      names += names.empty() ? k : std::string(", ") + k;
    }
    if (!found) {
      fail("unknown attribute '" + std::string(attrs_[i].name) + "' (known: " +
           (names.empty() ? "none" : names) + ")");
    }
  }
}

double OpCall::non_negative_attr(const char* name, double fallback) const {
  const omnirt_op_attr* a = find_attr(name);
  if (a == nullptr) return fallback;
  if (!std::isfinite(a->value) || a->value < 0) {
    fail("attribute " + std::string(name) + " must be finite and >= 0, got " +
         std::to_string(a->value));
  }
  return a->value;
}

int64_t OpCall::int_attr(const char* name, int64_t fallback) const {
  const omnirt_op_attr* a = find_attr(name);
  if (a == nullptr) return fallback;
  if (!std::isfinite(a->value) || std::trunc(a->value) != a->value || std::fabs(a->value) > 1e15) {
    fail("attribute " + std::string(name) + " must be an integer, got " + std::to_string(a->value));
  }
  return static_cast<int64_t>(a->value);
}

}  // namespace omnirt::cpu::ops
