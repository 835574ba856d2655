#include "state.h"

#include "errors.h"

namespace omnirt_py {

OutputKind parse_output_kind(const std::string& word) {
  if (word == "auto") return OutputKind::kAuto;
  if (word == "torch") return OutputKind::kTorch;
  if (word == "numpy") return OutputKind::kNumpy;
  if (word == "dlpack") return OutputKind::kDlpack;
  raise_error(OMNIRT_STATUS_INVALID_ARGUMENT,
              "outputs must be 'auto', 'torch', 'numpy' or 'dlpack', got '" + word + "'");
}

BackendState::BackendState(HostPtr host, omnirt_backend* backend, OutputKind outputs)
    : host_(std::move(host)), backend_(backend), outputs_(outputs) {
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  check(omnirt_backend_get_info(backend_, &info));
  name_ = info.name;
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  check(omnirt_get_capabilities(backend_, &caps));
  device_type_ = caps.dl_device_type;
  features_ = caps.features;
  check(omnirt_report_create(backend_, nullptr, &report_));
}

BackendState::~BackendState() { omnirt_report_destroy(report_); }

PyOverride* BackendState::keep(std::unique_ptr<PyOverride> entry) {
  overrides_.push_back(std::move(entry));
  return overrides_.back().get();
}

}  // namespace omnirt_py
