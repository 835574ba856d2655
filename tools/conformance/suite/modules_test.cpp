// Modules (MODULES, rules 7 and 12): wrap_module's tiers and timeline as an
// embedder sees them. A corrupt module is refused as INVALID_ARGUMENT by every
// tier that reaches the plugin, each attempt recorded with its reason; with a
// named op for the tag, the chain falls back to the override tier, records
// exactly one selected attempt, and the module it returns computes the op.
#include <memory>
#include <vector>

#include "kit.hpp"
#include "module_wrap.hpp"
#include "op_cases.hpp"

namespace omnirt::conformance {
namespace {

class Modules : public KitTest {
 protected:
  Modules() : KitTest(Needs::kDevice, OMNIRT_FEATURE_MODULES) {}

  // The tiers that hand a module to the plugin.
  static std::vector<std::string> plugin_tiers() {
    std::vector<std::string> tiers = {"eager"};
    if (has(OMNIRT_FEATURE_COMPILE)) tiers.push_back("compile");
    return tiers;
  }
};

KIT_TEST(Modules, CorruptModulesAreRefusedByEveryTier, 12) {
  for (size_t f = 0; f < caps().num_module_formats; ++f) {
    const char* format = caps().module_formats[f];
    SCOPED_TRACE(std::string("format ") + format);
    Wrapped w;
    wrap(backend(), corrupt_module(format), nullptr, 0, &w);
    ASSERT_EQ(w.problem, "");
    EXPECT_EQ(w.module, nullptr) << "a corrupt module was wrapped";
    KIT_EXPECT_STATUS(w.status, OMNIRT_STATUS_INVALID_ARGUMENT) << w.message;
    for (const std::string& tier : plugin_tiers()) {
      const WrapAttempt* a = w.attempt(tier);
      ASSERT_NE(a, nullptr) << "no " << tier << " attempt in the timeline";
      EXPECT_FALSE(a->ok || a->selected) << tier << " accepted a corrupt module";
      EXPECT_EQ(a->status, OMNIRT_STATUS_INVALID_ARGUMENT)
          << tier << " refused a corrupt module with " << omnirt_status_name(a->status)
          << ": " << a->reason;
      EXPECT_NE(a->reason, "") << tier << " gave no reason";
    }
  }
}

KIT_TEST(Modules, FallBackToTheOverrideTierAndRecordIt, 7) {
  // A tag naming an op the backend implements makes the op the override tier.
  const OpCase* use = nullptr;
  for (const OpCase& c : op_cases()) {
    if (c.attrs.empty() && !not_checkable(backend(), c.op)) use = &c;
  }
  if (use == nullptr) GTEST_SKIP() << "backend implements no op of omnirt.nn v1 itself";
  SCOPED_TRACE(std::string("tag ") + use->op);

  Wrapped w;
  wrap(backend(), corrupt_module(caps().module_formats[0]), use->op, 0, &w);
  ASSERT_EQ(w.problem, "");
  KIT_ASSERT_OK(w.status) << w.message;
  size_t selected = 0;
  for (const WrapAttempt& a : w.attempts) {
    selected += a.selected ? 1 : 0;
    if (a.tier != "override") {
      EXPECT_FALSE(a.ok) << a.tier << " accepted a corrupt module";
      EXPECT_NE(a.reason, "") << a.tier << " failed without a reason";
    }
  }
  EXPECT_EQ(selected, 1u) << "exactly one attempt must be selected";
  ASSERT_FALSE(w.attempts.empty());
  EXPECT_TRUE(w.attempts.back().tier == "override" && w.attempts.back().selected)
      << "the last attempt must be the selected override";

  std::vector<std::unique_ptr<DeviceTensor>> tensors;
  std::vector<reference::Data> values;
  std::vector<DLTensor> inputs;
  for (const reference::Shape& shape : input_shapes(use->op)) {
    tensors.push_back(std::make_unique<DeviceTensor>(backend(), shape));
    values.push_back(input_values(tensors.back()->count(), static_cast<unsigned>(values.size() + 1)));
    KIT_ASSERT_OK(tensors.back()->allocate(&values.back()));
    inputs.push_back(tensors.back()->dl());
  }
  DLManagedTensor* output = nullptr;
  size_t num_outputs = 0;
  KIT_ASSERT_OK(omnirt_module_run(w.module, inputs.data(), inputs.size(), nullptr, &output, 1,
                                  &num_outputs, nullptr));
  ASSERT_EQ(num_outputs, 1u);
  const std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)> owned(
      output, [](DLManagedTensor* t) {
        if (t->deleter != nullptr) t->deleter(t);
      });
  reference::Data got(tensors[0]->count());
  const DLTensor& out = output->dl_tensor;
  KIT_ASSERT_OK(omnirt_memcpy(backend(), got.data(), static_cast<char*>(out.data) + out.byte_offset,
                              got.size() * sizeof(float), OMNIRT_MEMCPY_DEVICE_TO_HOST));
  EXPECT_TRUE(Close(got, expected(*use, values))) << "the wrapped module's output";
}

}  // namespace
}  // namespace omnirt::conformance
