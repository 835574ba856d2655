#include "instance_state.h"

#include <cstdio>

#include "tensor_types.h"
#include "omnirt/cpp/host.hpp"
#include "triton_api.h"

namespace omnirt::triton {
namespace {

std::string timeline_text(const omnirt_module* module) {
  std::string text;
  for (size_t i = 0; i < omnirt_module_attempt_count(module); ++i) {
    omnirt_attempt attempt{};
    attempt.struct_size = sizeof attempt;
    if (omnirt_module_get_attempt(module, i, &attempt) != OMNIRT_STATUS_OK) continue;
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f ms", static_cast<double>(attempt.elapsed_ns) / 1e6);
    text += std::string(text.empty() ? " " : "; ") + omnirt::tier_name(attempt.tier) + ": " +
            (attempt.ok != 0 ? "ok" : omnirt_status_name(attempt.status)) +
            (attempt.selected != 0 ? ", selected" : "") + ", " + ms +
            (attempt.reason[0] != '\0' ? std::string(", ") + attempt.reason : std::string());
  }
  return text;
}

// Every datatype of the config must be one the backend computes with.
void check_datatypes(const ModelConfig& config, const Placement& placement) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  check_omnirt(omnirt_get_capabilities(placement.backend, &caps),
               "OmniRT backend '" + placement.backend_name + "'");
  auto check = [&](const TensorSpec& spec, const char* role) {
    const uint64_t bit = uint64_t{1} << *omnirt_type(spec.datatype);  // parse_model_config admits only these
    if ((caps.dtypes & bit) == 0) {
      throw Error(TRITONSERVER_ERROR_UNSUPPORTED,
                  std::string(role) + " '" + spec.name + "': OmniRT backend '" + placement.backend_name +
                      "' does not compute with " + datatype_name(spec.datatype));
    }
  };
  for (const TensorSpec& spec : config.inputs) check(spec, "input");
  for (const TensorSpec& spec : config.outputs) check(spec, "output");
}

}  // namespace

InstanceState::InstanceState(TRITONBACKEND_ModelInstance* instance, const ModelState& model)
    : instance_(instance), model_(model) {
  const char* name = nullptr;
  check_triton(TRITONBACKEND_ModelInstanceName(instance, &name), "reading the instance name");
  name_ = name;
  TRITONSERVER_InstanceGroupKind kind = TRITONSERVER_INSTANCEGROUPKIND_CPU;
  check_triton(TRITONBACKEND_ModelInstanceKind(instance, &kind), "reading the instance kind");
  int32_t device_id = 0;
  check_triton(TRITONBACKEND_ModelInstanceDeviceId(instance, &device_id), "reading the instance device");
  const ModelConfig& config = model.config();
  const std::string who = "instance '" + name_ + "'";
  try {
    placement_ = place_instance(model.backend().host(), config.wrap.backend, kind, device_id);
    check_datatypes(config, placement_);
  } catch (const Error& e) {
    throw Error(e.code(), who + ": " + e.what());
  }

  omnirt_module_source source{};
  source.struct_size = sizeof source;
  source.format = config.wrap.format.c_str();
  source.path = model.model_path().c_str();
  omnirt_wrap_options options{};
  options.struct_size = sizeof options;
  options.device = placement_.device;
  options.flags = config.wrap.compile ? 0u : OMNIRT_WRAP_DISABLE_COMPILE;
  omnirt_module* module = nullptr;
  check_omnirt(
      omnirt_wrap_module(placement_.backend, &source, config.wrap.tag.c_str(), &options, nullptr, &module),
      who + ": OmniRT could not wrap " + model.model_path() + " on " + placement_.text());
  module_.reset(module);
  log(TRITONSERVER_LOG_INFO, "model '" + config.name + "' " + who + " runs on OmniRT " + placement_.text() +
                                 " (" + config.wrap.format + ", tag '" + config.wrap.tag + "', compile " +
                                 (config.wrap.compile ? "on" : "off") +
                                 "); wrap timeline:" + timeline_text(module_.get()));
}

}  // namespace omnirt::triton
