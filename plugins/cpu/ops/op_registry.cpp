#include "op_registry.h"

#include <cstring>
#include <iterator>
#include <string>

#include "kernels.h"
#include "omnirt/cpp/plugin.hpp"

namespace omnirt::cpu::ops {
namespace {

using omnirt::plugin::fail;

constexpr char kOpSet[] = "omnirt.nn";
constexpr int32_t kOpSetVersion = 1;

const omnirt_op_set kSets[] = {{kOpSet, kOpSetVersion}};

// kDecls[i] is implemented by kKernels[i].
const omnirt_op_decl kDecls[] = {
    {"rms_norm", kOpSet, 2, 1},
    {"layer_norm", kOpSet, 3, 1},
    {"softmax", kOpSet, 1, 1},
    {"geglu", kOpSet, 2, 1},
};
void (*const kKernels[])(const OpCall&) = {&rms_norm, &layer_norm, &softmax, &geglu};
static_assert(std::size(kDecls) == std::size(kKernels));

std::string op_names() {
  std::string names;
  for (const omnirt_op_decl& d : kDecls) names += names.empty() ? d.name : std::string(", ") + d.name;
  return names;
}

}  // namespace

const omnirt_op_set* op_sets(size_t* count) {
  *count = std::size(kSets);
  return kSets;
}

const omnirt_op_decl* op_decls(size_t* count) {
  *count = std::size(kDecls);
  return kDecls;
}

void run_op(const char* backend, const char* name, const DLTensor* inputs, size_t num_inputs,
            DLTensor* outputs, size_t num_outputs, const omnirt_op_attr* attrs, size_t num_attrs) {
  if (name == nullptr) fail(OMNIRT_STATUS_INVALID_ARGUMENT, "op name is NULL");
  size_t i = 0;
  while (i < std::size(kDecls) && std::strcmp(kDecls[i].name, name) != 0) ++i;
  if (i == std::size(kDecls)) {
    fail(OMNIRT_STATUS_NOT_FOUND, std::string("backend '") + backend + "' has no op '" + name +
                                      "' (it implements " + kOpSet + " v" +
                                      std::to_string(kOpSetVersion) + ": " + op_names() + ")");
  }
  const omnirt_op_decl& decl = kDecls[i];
  if (num_inputs != static_cast<size_t>(decl.num_inputs) ||
      num_outputs != static_cast<size_t>(decl.num_outputs)) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT,
         std::string(name) + " takes " + std::to_string(decl.num_inputs) + " inputs and " +
             std::to_string(decl.num_outputs) + " output, got " + std::to_string(num_inputs) +
             " and " + std::to_string(num_outputs));
  }
  if (inputs == nullptr || outputs == nullptr || (num_attrs > 0 && attrs == nullptr)) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string(name) + ": inputs, outputs or attrs is NULL");
  }
  kKernels[i](OpCall(name, inputs, outputs, attrs, num_attrs));
}

}  // namespace omnirt::cpu::ops
