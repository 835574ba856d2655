// Named ops (NAMED_OPS, rule 7): each op of omnirt.nn v1 that the backend
// implements itself matches the kit's own plain C++ reference, run on the
// backend's device memory with default and explicit attributes; a call whose
// output shape does not match is INVALID_ARGUMENT (rule 12).
#include <memory>
#include <vector>

#include "kit.hpp"
#include "op_cases.hpp"

namespace omnirt::conformance {
namespace {

class NamedOps : public KitTest, public ::testing::WithParamInterface<OpCase> {
 protected:
  NamedOps() : KitTest(Needs::kDevice, OMNIRT_FEATURE_NAMED_OPS) {}

  void SetUp() override {
    KitTest::SetUp();
    if (IsSkipped()) return;
    if (auto why = not_checkable(backend(), GetParam().op)) GTEST_SKIP() << *why;
    const std::vector<reference::Shape> shapes = input_shapes(GetParam().op);
    for (size_t i = 0; i < shapes.size(); ++i) {
      auto t = std::make_unique<DeviceTensor>(backend(), shapes[i]);
      inputs_.push_back(input_values(t->count(), static_cast<unsigned>(i + 1)));
      KIT_ASSERT_OK(t->allocate(&inputs_.back()));
      dl_inputs_.push_back(t->dl());
      tensors_.push_back(std::move(t));
    }
  }

  // Runs the case's op on the uploaded inputs into `output`.
  omnirt_status run(DLTensor output) {
    const OpCase& c = GetParam();
    return omnirt_op_run(backend(), c.op, dl_inputs_.data(), dl_inputs_.size(), &output, 1,
                         c.attrs.data(), c.attrs.size(), nullptr);
  }

  std::vector<reference::Data> inputs_;
  std::vector<std::unique_ptr<DeviceTensor>> tensors_;
  std::vector<DLTensor> dl_inputs_;
};

KIT_TEST_P(NamedOps, MatchTheReference, 7) {
  DeviceTensor output(backend(), input_shapes(GetParam().op)[0]);
  KIT_ASSERT_OK(output.allocate());
  KIT_ASSERT_OK(run(output.dl()));
  reference::Data got;
  KIT_ASSERT_OK(output.download(&got));
  EXPECT_TRUE(Close(got, expected(GetParam(), inputs_))) << GetParam().op << " on device 0";
}

KIT_TEST_P(NamedOps, RefuseAnOutputOfAnotherShape, 12) {
  reference::Shape shape = input_shapes(GetParam().op)[0];
  shape.back() -= 1;  // the memory behind it still holds the full size
  DeviceTensor output(backend(), input_shapes(GetParam().op)[0]);
  KIT_ASSERT_OK(output.allocate());
  DLTensor out = output.dl();
  out.shape = shape.data();
  KIT_EXPECT_STATUS(run(out), OMNIRT_STATUS_INVALID_ARGUMENT);
}

INSTANTIATE_TEST_SUITE_P(, NamedOps, ::testing::ValuesIn(op_cases()),
                         [](const ::testing::TestParamInfo<OpCase>& param) {
                           return std::string(param.param.label);
                         });

}  // namespace
}  // namespace omnirt::conformance
