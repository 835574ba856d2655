// omnirt_op_run, omnirt_op_resolve and omnirt_list_overridden_ops.
#include <string>

#include "error.h"
#include "module/tensor.h"
#include "ops/ops.h"
#include "plugin_call.h"

using omnirt::guard_api;
using omnirt::record_error;

namespace {

// "input 0 is in kDLCUDA:0 memory" for the first tensor not in host memory, or "".
std::string first_non_host(const DLTensor* tensors, size_t count, const char* role) {
  for (size_t i = 0; i < count; ++i) {
    if (!omnirt::tensor::is_host_memory(tensors[i].device.device_type)) {
      return std::string(role) + " " + std::to_string(i) + " is in " +
             omnirt::tensor::device_name(tensors[i].device) + " memory";
    }
  }
  return "";
}

omnirt_status check_tensors(const DLTensor* tensors, size_t count, const char* role,
                            const char* op) {
  if (tensors == nullptr && count > 0) {
    return record_error(OMNIRT_STATUS_INVALID_ARGUMENT, std::string("op '") + op + "': " + role +
                                                            "s is NULL but its count is " +
                                                            std::to_string(count));
  }
  for (size_t i = 0; i < count; ++i) {
    if (auto problem = omnirt::tensor::check(tensors[i], i, role, std::nullopt)) {
      return record_error(OMNIRT_STATUS_INVALID_ARGUMENT,
                          std::string("op '") + op + "': " + *problem);
    }
  }
  return OMNIRT_STATUS_OK;
}

}  // namespace

extern "C" {

omnirt_status omnirt_op_run(omnirt_backend* backend, const char* name, const DLTensor* inputs,
                            size_t num_inputs, DLTensor* outputs, size_t num_outputs,
                            const omnirt_op_attr* attrs, size_t num_attrs, omnirt_stream* stream) {
  return guard_api("omnirt_op_run", [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(omnirt::require_usable(backend, "omnirt_op_run"));
    OMNIRT_RETURN_IF_ERROR(omnirt::require_non_null(name, "omnirt_op_run", "name"));
    if (attrs == nullptr && num_attrs > 0) {
      return record_error(OMNIRT_STATUS_INVALID_ARGUMENT, std::string("op '") + name +
                                                              "': attrs is NULL but num_attrs is " +
                                                              std::to_string(num_attrs));
    }
    if (omnirt_status s = check_tensors(inputs, num_inputs, "input", name)) return s;
    if (omnirt_status s = check_tensors(outputs, num_outputs, "output", name)) return s;

    std::string non_host = first_non_host(inputs, num_inputs, "input");
    if (non_host.empty()) non_host = first_non_host(outputs, num_outputs, "output");
    std::string why;
    const auto lookup = omnirt::ops::find(*backend, name, non_host, &why);
    if (!lookup) return record_error(OMNIRT_STATUS_NOT_SUPPORTED, why, backend->name);
    return omnirt::ops::run(*backend, *lookup, name, inputs, num_inputs, outputs, num_outputs,
                            attrs, num_attrs, stream);
  });
}

omnirt_status omnirt_op_resolve(omnirt_backend* backend, const char* name,
                                omnirt_backend** implementer) {
  return guard_api("omnirt_op_resolve", [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(omnirt::require_usable(backend, "omnirt_op_resolve"));
    OMNIRT_RETURN_IF_ERROR(omnirt::require_non_null(name, "omnirt_op_resolve", "name"));
    OMNIRT_RETURN_IF_ERROR(
        omnirt::require_non_null(implementer, "omnirt_op_resolve", "implementer"));
    *implementer = nullptr;
    std::string why;
    const auto lookup = omnirt::ops::find(*backend, name, "", &why);
    if (!lookup) return record_error(OMNIRT_STATUS_NOT_SUPPORTED, why, backend->name);
    *implementer = lookup->implementer;
    return OMNIRT_STATUS_OK;
  });
}

omnirt_status omnirt_list_overridden_ops(omnirt_backend* backend, const char** names,
                                         size_t capacity, size_t* count) {
  return guard_api("omnirt_list_overridden_ops", [&]() -> omnirt_status {
    OMNIRT_RETURN_IF_ERROR(omnirt::require_usable(backend, "omnirt_list_overridden_ops"));
    if (count == nullptr || (names == nullptr && capacity > 0)) {
      return record_error(
          OMNIRT_STATUS_INVALID_ARGUMENT,
          "omnirt_list_overridden_ops: count must not be NULL, nor names when capacity > 0");
    }
    *count = 0;
    omnirt_backend* base = omnirt::ops::base_backend(*backend);
    if (base == nullptr || base == backend) return OMNIRT_STATUS_OK;
    const auto base_ops = omnirt::ops::own_ops(*base);
    for (const omnirt_op_decl& own : omnirt::ops::own_ops(*backend)) {
      for (const omnirt_op_decl& b : base_ops) {
        if (std::string(own.name) != b.name) continue;
        // Plugin-owned static strings: valid as long as the host.
        if (*count < capacity) names[*count] = own.name;
        ++*count;
        break;
      }
    }
    return OMNIRT_STATUS_OK;
  });
}

}  // extern "C"
