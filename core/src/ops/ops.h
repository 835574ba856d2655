// Named-op lookup: the backend's own kernel, else the base implementation
// (the host's cpu backend, for tensors in host memory only), else nothing.
// Never routed anywhere else.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend.h"

namespace omnirt::ops {

/// Where an op runs.
struct Lookup {
  omnirt_backend* implementer = nullptr;
  omnirt_op_decl decl{};
  /// True when `implementer` is the base rather than the backend asked.
  bool base = false;
};

/// The ops `backend` implements itself (empty when it has none).
std::vector<omnirt_op_decl> own_ops(omnirt_backend& backend);

/// The base implementation of named ops: the available "cpu" backend of the
/// same host, or nullptr.
omnirt_backend* base_backend(const omnirt_backend& backend);

/// Finds op `name` for `backend`. `non_host` says why the tensors are not
/// all in host memory ("input 0 is in kDLCUDA:0 memory"), or is "" when they
/// are; the base is used only when it is "". On failure returns nothing and
/// sets *why to "backend 'x' has no op 'y' and the base implementation
/// cannot run it: ...".
std::optional<Lookup> find(omnirt_backend& backend, const std::string& name,
                           const std::string& non_host, std::string* why);

/// Calls the op_run slot of `lookup.implementer` for a call made on `caller`;
/// on failure records "op 'x' on backend 'y' failed: <plugin's message>". `stream` is the
/// caller's (may be nullptr): when the base runs the op, the stream's work is
/// finished first and the base runs synchronously.
omnirt_status run(omnirt_backend& caller, const Lookup& lookup, const std::string& name,
                  const DLTensor* inputs, size_t num_inputs, DLTensor* outputs, size_t num_outputs,
                  const omnirt_op_attr* attrs, size_t num_attrs, omnirt_stream* stream);

}  // namespace omnirt::ops
