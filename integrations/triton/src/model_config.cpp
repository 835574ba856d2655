#include "model_config.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>

#include "error.h"
#include "setting_values.h"
#include "tensor_types.h"

namespace omnirt::triton {
namespace {

using nlohmann::json;

[[noreturn]] void invalid(const std::string& message) {
  throw Error(TRITONSERVER_ERROR_INVALID_ARG, message);
}

[[noreturn]] void unsupported(const std::string& message) {
  throw Error(TRITONSERVER_ERROR_UNSUPPORTED, message);
}

// Protobuf's JSON writes int64 fields as strings; Triton turns most back into
// numbers. Either is accepted.
int64_t to_int64(const json& value, const std::string& where) {
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    size_t used = 0;
    try {
      const int64_t number = std::stoll(text, &used);
      if (used == text.size()) return number;
    } catch (const std::exception&) {
    }
  }
  invalid(where + ": expected an integer, got " + value.dump());
}

std::string string_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool flag_field(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

// Empty arrays and objects count as absent: Triton prints unset fields so.
bool present(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && !it->is_null() && !it->empty();
}

TensorSpec parse_tensor(const json& entry, const char* role) {
  TensorSpec spec;
  spec.name = string_field(entry, "name");
  if (spec.name.empty()) invalid(std::string("an ") + role + " has no name");
  const std::string who = std::string(role) + " '" + spec.name + "'";
  const std::string type_name = string_field(entry, "data_type");
  spec.datatype = datatype_from_config(type_name);
  if (spec.datatype == TRITONSERVER_TYPE_INVALID) {
    invalid(who + ": unknown data_type '" + type_name + "'");
  }
  if (!omnirt_type(spec.datatype)) {
    unsupported(who + ": " + type_name + " is not supported: OmniRT has no such dtype" +
                (spec.datatype == TRITONSERVER_TYPE_BYTES ? " (modules take numeric tensors)" : ""));
  }
  const auto dims = entry.find("dims");
  if (dims == entry.end() || !dims->is_array()) invalid(who + ": dims is missing");
  for (const json& dim : *dims) {
    const int64_t size = to_int64(dim, who + " dims");
    if (size < -1) invalid(who + ": dims must be >= 0 or -1 (any), got " + std::to_string(size));
    spec.dims.push_back(size);
  }
  if (present(entry, "reshape")) unsupported(who + ": reshape is not supported by the omnirt backend");
  if (flag_field(entry, "optional")) {
    unsupported(who + ": optional inputs are not supported by the omnirt backend");
  }
  if (flag_field(entry, "is_shape_tensor")) {
    unsupported(who + ": shape tensors are not supported by the omnirt backend");
  }
  if (flag_field(entry, "allow_ragged_batch")) {
    unsupported(who + ": ragged batches are not supported by the omnirt backend");
  }
  return spec;
}

// The <index> of a NAME__<index> name (Triton's PyTorch backend convention).
std::optional<size_t> index_suffix(const std::string& name) {
  const size_t mark = name.rfind("__");
  if (mark == std::string::npos || mark == 0 || mark + 2 == name.size()) return std::nullopt;
  const std::string digits = name.substr(mark + 2);
  const auto is_digit = [](unsigned char c) { return std::isdigit(c) != 0; };
  if (digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), is_digit)) return std::nullopt;
  return static_cast<size_t>(std::stoul(digits));
}

// Positions from NAME__<index> names when every name has one, else the
// config's order. Inputs must cover 0..n-1 (forward takes them positionally).
void assign_positions(std::vector<TensorSpec>& specs, const char* role, bool must_be_dense) {
  size_t indexed = 0;
  for (const TensorSpec& spec : specs) indexed += index_suffix(spec.name) ? 1 : 0;
  if (indexed != 0 && indexed != specs.size()) {
    invalid(std::string("either every ") + role + " is named NAME__<index> or none is; got " +
            std::to_string(indexed) + " of " + std::to_string(specs.size()));
  }
  std::vector<bool> taken(specs.size(), false);
  for (size_t i = 0; i < specs.size(); ++i) {
    specs[i].position = indexed != 0 ? *index_suffix(specs[i].name) : i;
    const size_t position = specs[i].position;
    if (position < taken.size() && taken[position]) {
      invalid(std::string("two ") + role + "s have index " + std::to_string(position));
    }
    if (must_be_dense && position >= specs.size()) {
      invalid(std::string(role) + " '" + specs[i].name + "': index " + std::to_string(position) +
              " leaves a gap; " + role + "s must be numbered 0.." + std::to_string(specs.size() - 1));
    }
    if (position < taken.size()) taken[position] = true;
  }
}

std::vector<TensorSpec> parse_tensors(const json& config, const char* key, const char* role) {
  std::vector<TensorSpec> specs;
  const auto list = config.find(key);
  if (list == config.end() || !list->is_array() || list->empty()) {
    invalid(std::string("the config lists no ") + role +
            "s; the omnirt backend needs every input and output with name, data_type and dims");
  }
  for (const json& entry : *list) specs.push_back(parse_tensor(entry, role));
  return specs;
}

void parse_parameters(const json& config, ModelConfig& out) {
  const auto parameters = config.find("parameters");
  if (parameters == config.end() || !parameters->is_object()) return;
  for (const auto& [key, entry] : parameters->items()) {
    const std::string value = entry.is_object() ? string_field(entry, "string_value") : std::string();
    const std::string where = "parameter '" + key + "'";
    if (key == "omnirt_backend") {
      out.wrap.backend = value.empty() ? "auto" : value;
    } else if (key == "compile") {
      out.wrap.compile = parse_flag(where, value);
    } else if (key == "tag") {
      out.wrap.tag = value;
    } else if (key == "module_format") {
      if (value.empty()) invalid(where + ": expected a module format such as torchscript");
      out.wrap.format = value;
    } else {
      out.unused_parameters.push_back(key);
    }
  }
}

const TensorSpec* find_named(const std::vector<TensorSpec>& specs, const std::string& name) {
  for (const TensorSpec& spec : specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

bool dims_match(const std::vector<int64_t>& expected, const int64_t* actual) {
  for (size_t d = 0; d < expected.size(); ++d) {
    if (expected[d] != -1 && expected[d] != actual[d]) return false;
  }
  return true;
}

// "[-1,16]" with the batch dimension shown as -1 when the model batches.
std::string expected_shape_text(const ModelConfig& config, const TensorSpec& spec) {
  std::vector<int64_t> shape;
  if (config.batching()) shape.push_back(-1);
  shape.insert(shape.end(), spec.dims.begin(), spec.dims.end());
  return shape_text(shape.data(), shape.size());
}

}  // namespace

const TensorSpec* ModelConfig::find_input(const std::string& tensor_name) const {
  return find_named(inputs, tensor_name);
}

const TensorSpec* ModelConfig::find_output(const std::string& tensor_name) const {
  return find_named(outputs, tensor_name);
}

ModelConfig parse_model_config(const std::string& text) {
  const json config = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) {
    invalid("the model configuration from Triton is not a JSON object");
  }
  ModelConfig out;
  out.name = string_field(config, "name");
  if (const auto it = config.find("max_batch_size"); it != config.end()) {
    out.max_batch_size = to_int64(*it, "max_batch_size");
  }
  if (out.max_batch_size < 0) invalid("max_batch_size must be >= 0");
  for (const char* feature : {"sequence_batching", "ensemble_scheduling", "batch_input", "batch_output"}) {
    if (present(config, feature))
      unsupported(std::string(feature) + " is not supported by the omnirt backend");
  }
  out.inputs = parse_tensors(config, "input", "input");
  out.outputs = parse_tensors(config, "output", "output");
  assign_positions(out.inputs, "input", /*must_be_dense=*/true);
  assign_positions(out.outputs, "output", /*must_be_dense=*/false);
  std::sort(out.inputs.begin(), out.inputs.end(),
            [](const TensorSpec& a, const TensorSpec& b) { return a.position < b.position; });
  const std::string filename = string_field(config, "default_model_filename");
  if (!filename.empty()) out.model_filename = filename;
  parse_parameters(config, out);
  return out;
}

std::string shape_text(const int64_t* shape, size_t ndim) {
  std::string text = "[";
  for (size_t d = 0; d < ndim; ++d) {
    if (d > 0) text += ",";
    text += std::to_string(shape[d]);
  }
  return text + "]";
}

int64_t check_request_input(const ModelConfig& config, const TensorSpec& spec, TRITONSERVER_DataType datatype,
                            const int64_t* shape, uint32_t ndim, uint64_t byte_size) {
  const std::string who = "input '" + spec.name + "' of model '" + config.name + "'";
  if (datatype != spec.datatype) {
    invalid(who + ": expected datatype " + datatype_name(spec.datatype) + ", got " + datatype_name(datatype));
  }
  const size_t batch_dims = config.batching() ? 1 : 0;
  const bool rank_ok = ndim == spec.dims.size() + batch_dims;
  if (!rank_ok || !dims_match(spec.dims, shape + batch_dims) ||
      (batch_dims == 1 && (shape[0] < 1 || shape[0] > config.max_batch_size))) {
    invalid(who + ": expected shape " + expected_shape_text(config, spec) +
            (config.batching() ? " (batch of 1.." + std::to_string(config.max_batch_size) + ")" : "") +
            ", got " + shape_text(shape, ndim));
  }
  uint64_t elements = 1;
  for (uint32_t d = 0; d < ndim; ++d) elements *= static_cast<uint64_t>(shape[d]);
  const uint64_t expected_bytes = elements * element_size(datatype);
  if (byte_size != expected_bytes) {
    invalid(who + ": shape " + shape_text(shape, ndim) + " of " + datatype_name(datatype) + " needs " +
            std::to_string(expected_bytes) + " bytes, got " + std::to_string(byte_size));
  }
  return batch_dims == 1 ? shape[0] : 1;
}

void check_module_output(const ModelConfig& config, const TensorSpec& spec, const DLTensor& tensor,
                         int64_t batch) {
  const std::string who = "output '" + spec.name + "' of model '" + config.name + "' (module output " +
                          std::to_string(spec.position) + ")";
  auto fail = [&](const std::string& problem) {
    throw Error(TRITONSERVER_ERROR_INTERNAL, who + ": " + problem);
  };
  if (datatype_of(tensor.dtype) != spec.datatype) {
    fail("the config says " + std::string(datatype_name(spec.datatype)) + ", the module gave " +
         dlpack_type_name(tensor.dtype));
  }
  const size_t batch_dims = config.batching() ? 1 : 0;
  if (tensor.ndim < 0 || static_cast<size_t>(tensor.ndim) != spec.dims.size() + batch_dims ||
      !dims_match(spec.dims, tensor.shape + batch_dims)) {
    fail("the config says shape " + expected_shape_text(config, spec) + ", the module gave " +
         shape_text(tensor.shape, static_cast<size_t>(std::max(tensor.ndim, 0))));
  }
  if (batch_dims == 1 && tensor.shape[0] != batch) {
    fail("the module gave " + std::to_string(tensor.shape[0]) + " rows for a batch of " +
         std::to_string(batch) + "; a batching model must keep dimension 0 as the batch");
  }
}

}  // namespace omnirt::triton
