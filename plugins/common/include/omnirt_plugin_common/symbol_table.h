// A vendor API as a table of function pointers resolved from a DynamicLibrary
// (the X-macro symbol tables of IREE's CUDA and HIP drivers).
//
// A vendor lists its entry points once, as a macro MY_SYMBOLS(REQUIRED,
// OPTIONAL) whose body is a sequence of
//   REQUIRED(vInit, int, (const char* config))
//   OPTIONAL(OMNIRT_FEATURE_STREAMS, vStreamCreate, int, (vStream* out))
// and defines the table with OMNIRT_DEFINE_SYMBOL_TABLE(MySymbols, MY_SYMBOLS).
//
// Every entry becomes a member function pointer named like the vendor function.
// A missing REQUIRED symbol makes the runtime unusable; a missing OPTIONAL one
// clears the OMNIRT_FEATURE_* bits it is tagged with (0: it only improves
// messages or device info). The same list can declare a test double's exports,
// so the double and the binding cannot disagree on a signature.
#ifndef OMNIRT_PLUGIN_COMMON_SYMBOL_TABLE_H_
#define OMNIRT_PLUGIN_COMMON_SYMBOL_TABLE_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "omnirt/cpp/plugin.hpp"
#include "omnirt_plugin_common/dynamic_library.h"

namespace omnirt::plugin_common {

// Fills a symbol table and remembers what the library lacked. Keep it after
// resolving: it answers which features are lost and why.
class SymbolResolver {
 public:
  explicit SymbolResolver(const DynamicLibrary& library) : library_(&library) {}

  template <class Fn>
  void required(const char* name, Fn*& slot) {
    slot = reinterpret_cast<Fn*>(library_->symbol(name));
    if (slot == nullptr) missing_required_.push_back(name);
  }

  template <class Fn>
  void optional(uint64_t features, const char* name, Fn*& slot) {
    slot = reinterpret_cast<Fn*>(library_->symbol(name));
    if (slot == nullptr) missing_optional_.emplace_back(name, features);
  }

  // "aclInit, aclrtMalloc": the required symbols the library lacks, or "".
  std::string missing_required() const { return join(missing_required_); }

  // OMNIRT_FEATURE_* bits lost to missing optional symbols.
  uint64_t missing_features() const {
    uint64_t bits = 0;
    for (const auto& entry : missing_optional_) bits |= entry.second;
    return bits;
  }

  // The missing optional symbols that `feature` needs, "" when none.
  std::string missing_for(uint64_t feature) const {
    std::vector<const char*> names;
    for (const auto& entry : missing_optional_) {
      if ((entry.second & feature) != 0) names.push_back(entry.first);
    }
    return join(names);
  }

  // Throws NOT_SUPPORTED naming the missing symbols unless the library had
  // everything `feature` needs. `what` names the failed call for the message.
  void require(uint64_t feature, const std::string& backend, const char* what) const {
    const std::string missing = missing_for(feature);
    if (missing.empty()) return;
    plugin::fail(OMNIRT_STATUS_NOT_SUPPORTED, backend + ": " + what + " is not supported: " +
                                                  library_->path() + " lacks " + missing);
  }

 private:
  static std::string join(const std::vector<const char*>& names) {
    std::string out;
    for (const char* name : names) out += (out.empty() ? "" : ", ") + std::string(name);
    return out;
  }

  const DynamicLibrary* library_;
  std::vector<const char*> missing_required_;
  std::vector<std::pair<const char*, uint64_t>> missing_optional_;
};

}  // namespace omnirt::plugin_common

#define OMNIRT_SYMTAB_FIELD_(name, ret, params) ret(*name) params = nullptr;
#define OMNIRT_SYMTAB_FIELD_OPTIONAL_(features, name, ret, params) ret(*name) params = nullptr;
#define OMNIRT_SYMTAB_RESOLVE_(name, ret, params) resolver.required(#name, name);
#define OMNIRT_SYMTAB_RESOLVE_OPTIONAL_(features, name, ret, params) \
  resolver.optional(features, #name, name);

// Defines `struct Struct` with one function pointer per entry of LIST and
// `void resolve(SymbolResolver&)` filling them.
#define OMNIRT_DEFINE_SYMBOL_TABLE(Struct, LIST)                      \
  struct Struct {                                                     \
    LIST(OMNIRT_SYMTAB_FIELD_, OMNIRT_SYMTAB_FIELD_OPTIONAL_)         \
    void resolve(::omnirt::plugin_common::SymbolResolver& resolver) { \
      LIST(OMNIRT_SYMTAB_RESOLVE_, OMNIRT_SYMTAB_RESOLVE_OPTIONAL_)   \
    }                                                                 \
  };

#endif  // OMNIRT_PLUGIN_COMMON_SYMBOL_TABLE_H_
