// The vetting child's report as the host reads it: which stage the child was
// in, which it reached, and whether it finished; garbage is ignored.
#include "vetting/vet_protocol.h"

#include <gtest/gtest.h>

#include <string>

namespace omnirt::vetting {
namespace {

TEST(ReportReader, NamesTheStepInProgressAndTheStageReachedBeforeIt) {
  ReportReader reader;
  EXPECT_EQ(reader.step(), 0);
  EXPECT_EQ(reader.reached(), OMNIRT_STAGE_FOUND);
  reader.feed(step_line(OMNIRT_STAGE_DLOPEN) + step_line(OMNIRT_STAGE_ENTRY_SYMBOL));
  reader.feed(step_line(OMNIRT_STAGE_NEGOTIATE).substr(0, 3));  // a line split across reads
  EXPECT_EQ(reader.step(), OMNIRT_STAGE_ENTRY_SYMBOL);
  reader.feed(step_line(OMNIRT_STAGE_NEGOTIATE).substr(3));
  EXPECT_EQ(reader.step(), OMNIRT_STAGE_NEGOTIATE);
  EXPECT_STREQ(step_name(reader.step()), "negotiate");
  EXPECT_EQ(reader.reached(), OMNIRT_STAGE_ENTRY_SYMBOL);
  EXPECT_FALSE(reader.done());
}

TEST(ReportReader, AfterTheLoadTheReportedStageCountsAndUnloadIsNamed) {
  ReportReader reader;
  reader.feed(step_line(OMNIRT_STAGE_DLOPEN) + step_line(OMNIRT_STAGE_ENTRY_SYMBOL) +
              loaded_line(OMNIRT_STAGE_DLOPEN) + step_line(kUnloadStep));
  EXPECT_EQ(reader.reached(), OMNIRT_STAGE_DLOPEN);
  EXPECT_STREQ(step_name(reader.step()), "unload");
  reader.feed(done_line());
  EXPECT_TRUE(reader.done());
}

TEST(ReportReader, IgnoresGarbageAndAnythingPastItsBound) {
  ReportReader reader;
  reader.feed("step 99\nstep -1\nloaded 7\nstep x\n\xFF\xFE\nstep 2\n");
  EXPECT_EQ(reader.step(), OMNIRT_STAGE_ENTRY_SYMBOL);
  EXPECT_EQ(reader.reached(), OMNIRT_STAGE_DLOPEN);
  reader.feed(std::string(8192, 'z') + "\n" + done_line());
  EXPECT_FALSE(reader.done());
}

}  // namespace
}  // namespace omnirt::vetting
