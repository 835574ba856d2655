#include "module/runners.h"

#include "error.h"
#include "plugin_call.h"
#include "plugin_text.h"

namespace omnirt::wrap {
namespace {

using V = omnirt_backend_vtable;

class ExecutableRunner final : public Runner {
 public:
  ExecutableRunner(omnirt_backend& backend, omnirt_executable* executable, bool names_outputs)
      : backend_(backend), executable_(executable), names_outputs_(names_outputs) {}

  ~ExecutableRunner() override {
    // Checked here so that a plugin without the slot leaves no error behind.
    if (backend_.vtable.executable_destroy != nullptr) {
      call_slot<&V::executable_destroy>(backend_, "executable_destroy", executable_);
    }
  }

  omnirt_status run(const DLTensor* inputs, size_t num_inputs, omnirt_stream* stream,
                    DLManagedTensor** outputs, size_t output_capacity,
                    size_t* num_outputs) override {
    return call_slot<&V::executable_run>(backend_, "executable_run", executable_, inputs,
                                         num_inputs, stream, outputs, output_capacity, num_outputs);
  }

  omnirt_status output_name(const DLManagedTensor* output, const char** name) override {
    *name = "";
    if (!names_outputs_ || backend_.vtable.output_name == nullptr) return OMNIRT_STATUS_OK;
    const omnirt_status status =
        call_slot<&V::output_name>(backend_, "output_name", executable_, output, name);
    if (status != OMNIRT_STATUS_OK) return status;
    if (*name == nullptr) *name = "";
    // Handed on by pointer, so it cannot be repaired: refused instead.
    const PluginText text = read_plugin_text(*name, OMNIRT_TEXT_MAX_IDENTIFIER);
    if (text.clean()) return OMNIRT_STATUS_OK;
    *name = "";
    return fail(OMNIRT_STATUS_INTERNAL, backend_.name,
                "backend '{}': output_name gave '{}'{}, which is not UTF-8 text of at most {} bytes "
                "(PLUGIN_RULES 13)",
                backend_.name, text.text, text.cut ? "..." : "", OMNIRT_TEXT_MAX_IDENTIFIER);
  }

 private:
  omnirt_backend& backend_;
  omnirt_executable* executable_;
  const bool names_outputs_;
};

class OverrideRunner final : public Runner {
 public:
  OverrideRunner(omnirt_backend& backend, Override entry, std::string tag)
      : backend_(backend), entry_(entry), tag_(std::move(tag)) {}

  omnirt_status run(const DLTensor* inputs, size_t num_inputs, omnirt_stream* /*stream*/,
                    DLManagedTensor** outputs, size_t output_capacity,
                    size_t* num_outputs) override {
    const omnirt_status status =
        entry_.fn(entry_.user_data, inputs, num_inputs, outputs, output_capacity, num_outputs);
    if (status == OMNIRT_STATUS_OK) return status;
    return fail(status, backend_.name, "embedder override for tag '{}' failed with {}", tag_,
                omnirt_status_name(status));
  }

 private:
  omnirt_backend& backend_;
  Override entry_;
  std::string tag_;
};

}  // namespace

std::unique_ptr<Runner> make_executable_runner(omnirt_backend& backend,
                                               omnirt_executable* executable, bool names_outputs) {
  return std::make_unique<ExecutableRunner>(backend, executable, names_outputs);
}

std::unique_ptr<Runner> make_override_runner(omnirt_backend& backend, Override entry,
                                             const std::string& tag) {
  return std::make_unique<OverrideRunner>(backend, entry, tag);
}

}  // namespace omnirt::wrap
