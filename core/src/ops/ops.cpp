#include "ops/ops.h"

#include "error.h"
#include "host.h"
#include "plugin_call.h"
#include "plugin_text.h"

namespace omnirt::ops {
namespace {

using V = omnirt_backend_vtable;

std::optional<omnirt_op_decl> own_op(omnirt_backend& backend, const std::string& name) {
  for (const omnirt_op_decl& decl : own_ops(backend)) {
    if (name == decl.name) return decl;
  }
  return std::nullopt;
}

}  // namespace

std::vector<omnirt_op_decl> own_ops(omnirt_backend& backend) {
  if (backend.vtable.list_ops == nullptr || backend.vtable.op_run == nullptr) return {};
  const omnirt_op_decl* decls = nullptr;
  size_t count = 0;
  if (call_slot<&V::list_ops>(backend, "list_ops", &decls, &count) != OMNIRT_STATUS_OK ||
      decls == nullptr || count > OMNIRT_MAX_PLUGIN_LIST) {
    return {};
  }
  std::vector<omnirt_op_decl> result;
  for (size_t i = 0; i < count; ++i) {
    // Only an op named by valid text can be asked for by name (the host
    // compares names, and hands them out through omnirt_list_overridden_ops).
    if (decls[i].name != nullptr && read_plugin_text(decls[i].name, OMNIRT_TEXT_MAX_IDENTIFIER).clean()) {
      result.push_back(decls[i]);
    }
  }
  return result;
}

omnirt_backend* base_backend(const omnirt_backend& backend) {
  for (const auto& candidate : backend.host->registry.backends()) {
    if (candidate->name == "cpu" && candidate->available) return candidate.get();
  }
  return nullptr;
}

std::optional<Lookup> find(omnirt_backend& backend, const std::string& name,
                           const std::string& non_host, std::string* why) {
  if (auto decl = own_op(backend, name)) return Lookup{&backend, *decl, false};

  omnirt_backend* base = base_backend(backend);
  if (base == &backend) {  // nothing further to fall back to
    *why = "backend '" + backend.name + "' has no op '" + name + "'";
    return std::nullopt;
  }
  const std::string prefix = "backend '" + backend.name + "' has no op '" + name +
                             "' and the base implementation cannot run it: ";
  if (base == nullptr) {
    *why = prefix + "no base backend ('cpu') is available in this host";
    return std::nullopt;
  }
  auto decl = own_op(*base, name);
  if (!decl) {
    *why = prefix + "the base backend '" + base->name + "' has no such op either";
    return std::nullopt;
  }
  if (!non_host.empty()) {
    *why = prefix + non_host + "; the base runs host memory (kDLCPU, kDLCUDAHost) only";
    return std::nullopt;
  }
  return Lookup{base, *decl, true};
}

omnirt_status run(omnirt_backend& caller, const Lookup& lookup, const std::string& name,
                  const DLTensor* inputs, size_t num_inputs, DLTensor* outputs, size_t num_outputs,
                  const omnirt_op_attr* attrs, size_t num_attrs, omnirt_stream* stream) {
  if (lookup.base && stream != nullptr) {
    // A stream belongs to its own backend: finish its work on these host
    // tensors, then let the base run on its default stream.
    OMNIRT_RETURN_IF_ERROR(omnirt_stream_synchronize(&caller, stream));
    stream = nullptr;
  }
  const omnirt_status status =
      call_slot<&V::op_run>(*lookup.implementer, "op_run", name.c_str(), inputs, num_inputs,
                            outputs, num_outputs, attrs, num_attrs, stream);
  if (status == OMNIRT_STATUS_OK) return status;
  return record_error(status,
                      "op '" + name + "' on backend '" + lookup.implementer->name +
                          "' failed: " + omnirt_last_error()->message,
                      lookup.implementer->name);
}

}  // namespace omnirt::ops
