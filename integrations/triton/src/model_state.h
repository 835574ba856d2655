// The per-model state: its parsed configuration and model file, checked at
// TRITONBACKEND_ModelInitialize so that a model that cannot be served fails
// to load with the reason.
#pragma once

#include <string>

#include "backend_state.h"
#include "model_config.h"
#include "triton/core/tritonbackend.h"

namespace omnirt::triton {

class ModelState {
 public:
  /// Reads and checks the config; a named OmniRT backend must be selectable
  /// now (an unavailable one fails the load with OmniRT's reason).
  ModelState(TRITONBACKEND_Model* model, BackendState& backend);

  const ModelConfig& config() const { return config_; }
  /// <repository>/<version>/<default_model_filename>.
  const std::string& model_path() const { return model_path_; }
  BackendState& backend() const { return backend_; }

 private:
  BackendState& backend_;
  ModelConfig config_;
  std::string model_path_;
};

}  // namespace omnirt::triton
