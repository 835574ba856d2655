#include "model_state.h"

#include <sys/stat.h>

#include <memory>

#include "placement.h"
#include "setting_values.h"
#include "triton_api.h"

namespace omnirt::triton {
namespace {

std::string read_config(TRITONBACKEND_Model* model) {
  TRITONSERVER_Message* message = nullptr;
  check_triton(TRITONBACKEND_ModelConfig(model, 1, &message), "reading the model config");
  std::unique_ptr<TRITONSERVER_Message, TRITONSERVER_Error* (*)(TRITONSERVER_Message*)> owned(
      message, TRITONSERVER_MessageDelete);
  return message_json(message);
}

std::string find_model_file(TRITONBACKEND_Model* model, const std::string& filename) {
  TRITONBACKEND_ArtifactType type{};
  const char* repository = nullptr;
  check_triton(TRITONBACKEND_ModelRepository(model, &type, &repository), "locating the model repository");
  uint64_t version = 0;
  check_triton(TRITONBACKEND_ModelVersion(model, &version), "reading the model version");
  const std::string path = std::string(repository) + "/" + std::to_string(version) + "/" + filename;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    throw Error(TRITONSERVER_ERROR_NOT_FOUND, "model file " + path +
                                                  " not found (a TorchScript module; the config's "
                                                  "default_model_filename names it, model.pt by default)");
  }
  return path;
}

}  // namespace

ModelState::ModelState(TRITONBACKEND_Model* model, BackendState& backend)
    : backend_(backend), config_(parse_model_config(read_config(model))) {
  model_path_ = find_model_file(model, config_.model_filename);
  if (config_.wrap.backend != "auto") select_backend(backend_.host(), config_.wrap.backend);
  if (!config_.unused_parameters.empty()) {
    log(TRITONSERVER_LOG_INFO, "model '" + config_.name + "': parameters not used by the omnirt backend: " +
                                   join_names(config_.unused_parameters));
  }
}

}  // namespace omnirt::triton
