// The entry points Triton calls (tritonbackend.h). Each is a thin guard:
// state lives in BackendState, ModelState and InstanceState, and no
// exception crosses into the server.
#include <memory>
#include <utility>

#include "backend_settings.h"
#include "backend_state.h"
#include "instance_state.h"
#include "model_state.h"
#include "setting_values.h"
#include "triton_api.h"

using omnirt::triton::BackendSettings;
using omnirt::triton::BackendState;
using omnirt::triton::check_triton;
using omnirt::triton::Error;
using omnirt::triton::guard;
using omnirt::triton::InstanceState;
using omnirt::triton::log;
using omnirt::triton::ModelState;

namespace {

template <class State, class Object, TRITONSERVER_Error* (*Get)(Object*, void**)>
State& state_of(Object* object) {
  void* state = nullptr;
  check_triton(Get(object, &state), "reading the backend's state");
  if (state == nullptr) throw Error(TRITONSERVER_ERROR_INTERNAL, "omnirt backend: state missing");
  return *static_cast<State*>(state);
}

// Makes `object`'s state and hands Triton the pointer; the matching
// Finalize entry point deletes it.
template <class State, class Object, TRITONSERVER_Error* (*Set)(Object*, void*), class... Args>
State& attach_state(Object* object, Args&&... args) {
  auto state = std::make_unique<State>(std::forward<Args>(args)...);
  check_triton(Set(object, state.get()), "storing the backend's state");
  return *state.release();
}

BackendState& backend_state(TRITONBACKEND_Backend* backend) {
  return state_of<BackendState, TRITONBACKEND_Backend, TRITONBACKEND_BackendState>(backend);
}

ModelState& model_state(TRITONBACKEND_Model* model) {
  return state_of<ModelState, TRITONBACKEND_Model, TRITONBACKEND_ModelState>(model);
}

InstanceState& instance_state(TRITONBACKEND_ModelInstance* instance) {
  return state_of<InstanceState, TRITONBACKEND_ModelInstance, TRITONBACKEND_ModelInstanceState>(instance);
}

}  // namespace

// The entry points are the library's only exports (see libtriton_omnirt.map).
#pragma GCC visibility push(default)
extern "C" {

TRITONBACKEND_ISPEC TRITONSERVER_Error* TRITONBACKEND_Initialize(TRITONBACKEND_Backend* backend) {
  return guard([&] {
    uint32_t major = 0;
    uint32_t minor = 0;
    check_triton(TRITONBACKEND_ApiVersion(&major, &minor), "reading Triton's backend API version");
    if (major != TRITONBACKEND_API_VERSION_MAJOR || minor < TRITONBACKEND_API_VERSION_MINOR) {
      throw Error(TRITONSERVER_ERROR_UNSUPPORTED, "the omnirt backend needs Triton backend API " +
                                                      std::to_string(TRITONBACKEND_API_VERSION_MAJOR) + "." +
                                                      std::to_string(TRITONBACKEND_API_VERSION_MINOR) +
                                                      " or a later 1.x; this server has " +
                                                      std::to_string(major) + "." + std::to_string(minor));
    }
    TRITONSERVER_Message* config = nullptr;  // owned by Triton
    check_triton(TRITONBACKEND_BackendConfig(backend, &config), "reading the backend config");
    const BackendSettings settings =
        omnirt::triton::parse_backend_settings(omnirt::triton::message_json(config));
    const BackendState& state =
        attach_state<BackendState, TRITONBACKEND_Backend, TRITONBACKEND_BackendSetState>(backend, settings);
    for (const std::string& line : state.describe()) log(TRITONSERVER_LOG_INFO, line);
    if (!settings.other_keys.empty()) {
      log(TRITONSERVER_LOG_VERBOSE, "backend config keys not read by the omnirt backend: " +
                                        omnirt::triton::join_names(settings.other_keys));
    }
  });
}

TRITONBACKEND_ISPEC TRITONSERVER_Error* TRITONBACKEND_Finalize(TRITONBACKEND_Backend* backend) {
  return guard([&] {
    delete &backend_state(backend);
    log(TRITONSERVER_LOG_INFO, "backend finalized, OmniRT host destroyed");
  });
}

TRITONBACKEND_ISPEC TRITONSERVER_Error* TRITONBACKEND_ModelInitialize(TRITONBACKEND_Model* model) {
  return guard([&] {
    TRITONBACKEND_Backend* backend = nullptr;
    check_triton(TRITONBACKEND_ModelBackend(model, &backend), "finding the model's backend");
    attach_state<ModelState, TRITONBACKEND_Model, TRITONBACKEND_ModelSetState>(model, model,
                                                                               backend_state(backend));
  });
}

TRITONBACKEND_ISPEC TRITONSERVER_Error* TRITONBACKEND_ModelFinalize(TRITONBACKEND_Model* model) {
  return guard([&] { delete &model_state(model); });
}

TRITONBACKEND_ISPEC TRITONSERVER_Error* TRITONBACKEND_ModelInstanceInitialize(
    TRITONBACKEND_ModelInstance* instance) {
  return guard([&] {
    TRITONBACKEND_Model* model = nullptr;
    check_triton(TRITONBACKEND_ModelInstanceModel(instance, &model), "finding the instance's model");
    attach_state<InstanceState, TRITONBACKEND_ModelInstance, TRITONBACKEND_ModelInstanceSetState>(
        instance, instance, model_state(model));
  });
}

TRITONBACKEND_ISPEC TRITONSERVER_Error* TRITONBACKEND_ModelInstanceFinalize(
    TRITONBACKEND_ModelInstance* instance) {
  return guard([&] { delete &instance_state(instance); });
}

TRITONBACKEND_ISPEC TRITONSERVER_Error* TRITONBACKEND_ModelInstanceExecute(
    TRITONBACKEND_ModelInstance* instance, TRITONBACKEND_Request** requests, const uint32_t request_count) {
  // An error returned here leaves the requests to Triton, so it is returned
  // only before any request is touched; after that every request is answered.
  InstanceState* state = nullptr;
  if (TRITONSERVER_Error* error = guard([&] { state = &instance_state(instance); })) return error;
  state->execute(requests, request_count);
  return nullptr;
}

}  // extern "C"
#pragma GCC visibility pop
