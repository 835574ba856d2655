#include "named_outputs.h"

#include <algorithm>

#include "omnirt/cpp/plugin.hpp"

namespace omnirt::torch_common {
namespace {

using plugin::fail;

bool returnable(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
      return true;
    case c10::TypeKind::TupleType:
    case c10::TypeKind::ListType:
      for (const c10::TypePtr& element : type->containedTypes()) {
        if (!returnable(element)) return false;
      }
      return true;
    case c10::TypeKind::DictType: {
      const auto dict = type->cast<c10::DictType>();
      return dict->getKeyType()->kind() == c10::TypeKind::StringType &&
             returnable(dict->getValueType());
    }
    default:
      return false;
  }
}

void flatten(const c10::IValue& value, const std::string& name, const std::string& where,
             std::vector<NamedTensor>& out) {
  if (value.isTensor()) {
    if (!value.toTensor().defined()) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, where + " is an undefined tensor");
    }
    out.push_back({name, value.toTensor()});
    return;
  }
  if (value.isTuple() || value.isList()) {
    const auto elements = value.isTuple() ? value.toTupleRef().elements().vec()
                                          : value.toListRef().vec();
    for (size_t i = 0; i < elements.size(); ++i) {
      flatten(elements[i], name, where + "[" + std::to_string(i) + "]", out);
    }
    return;
  }
  if (value.isGenericDict()) {
    std::vector<std::pair<std::string, c10::IValue>> entries;
    for (const auto& entry : value.toGenericDict()) {
      if (!entry.key().isString()) {
        fail(OMNIRT_STATUS_INVALID_ARGUMENT, where + " is a dict with keys of type " +
                                                 entry.key().type()->annotation_str() +
                                                 "; outputs are named by string keys");
      }
      entries.emplace_back(entry.key().toStringRef(), entry.value());
    }
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [key, element] : entries) {
      flatten(element, name.empty() ? key : name + "." + key, where + "['" + key + "']", out);
    }
    return;
  }
  fail(OMNIRT_STATUS_INVALID_ARGUMENT,
       where + " is of type " + value.type()->annotation_str() +
           "; an engine hands out tensors, and tuples, lists and Dict[str, ...] of them");
}

}  // namespace

void check_result_type(const c10::FunctionSchema& schema, const std::string& engine) {
  const auto& returns = schema.returns();
  if (returns.size() == 1 && returnable(returns[0].type())) return;
  std::string types;
  for (const c10::Argument& r : returns) {
    types += (types.empty() ? "" : ", ") + r.type()->annotation_str();
  }
  fail(OMNIRT_STATUS_INVALID_ARGUMENT,
       "forward returns " + (types.empty() ? std::string("nothing") : types) + "; " + engine +
           " hands out a tensor, or tuples, lists and Dict[str, ...] of tensors");
}

std::vector<NamedTensor> flatten_result(const c10::IValue& result) {
  std::vector<NamedTensor> outputs;
  if (result.isTensor() && result.toTensor().defined()) {
    outputs.push_back({std::string(), result.toTensor()});  // the common case, without a name
  } else {
    flatten(result, "", "forward's result", outputs);
  }
  return outputs;
}

}  // namespace omnirt::torch_common
