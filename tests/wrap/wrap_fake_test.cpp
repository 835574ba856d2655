// wrap_module's tier chain, policies, switches, overrides, timeline, report
// and input checks, against the fake backends (no libtorch involved).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "wrap_test_util.h"

using namespace wraptest;
using ::testing::HasSubstr;

namespace {

constexpr uint32_t kIsolated = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;

std::vector<std::string> fake_plugins() {
  std::vector<std::string> p = {WRAP_FAKE_PLUGIN, WRAP_DEV_PLUGIN};
  if (std::string(WRAP_CPU_PLUGIN) != "") p.push_back(WRAP_CPU_PLUGIN);
  return p;
}

// An override that returns input 0 plus 100, so tests can tell it ran.
omnirt_status plus_100(void* user_data, const DLTensor* inputs, size_t, DLManagedTensor** outputs,
                       size_t capacity, size_t* num_outputs) {
  ++*static_cast<int*>(user_data);
  *num_outputs = 1;
  if (capacity < 1) return OMNIRT_STATUS_OUT_OF_RANGE;
  outputs[0] = map_floats(inputs[0], [](float v) { return v + 100.0f; });
  return OMNIRT_STATUS_OK;
}

class FakeWrap : public ::testing::Test {
 protected:
  explicit FakeWrap(const std::string& yaml = "", uint32_t flags = kIsolated)
      : host_(fake_plugins(), yaml, flags) {}

  void SetUp() override {
    ASSERT_EQ(host_.status(), OMNIRT_STATUS_OK) << last_message();
    fake_ = host_.backend("wrapfake");
    ASSERT_NE(fake_, nullptr);
  }

  omnirt_status wrap(omnirt_backend* b, const std::string& text, const char* tag, Module* out,
                     omnirt_report* report = nullptr, uint32_t flags = 0,
                     const char* format = "fake") {
    omnirt_module_source src{};
    src.struct_size = sizeof src;
    src.format = format;
    src.data = text.data();
    src.size = text.size();
    omnirt_wrap_options opt{};
    opt.struct_size = sizeof opt;
    opt.flags = flags;
    omnirt_module* m = nullptr;
    const omnirt_status s = omnirt_wrap_module(b, &src, tag, &opt, report, &m);
    out->reset(m);
    return s;
  }

  // Runs `m` on a 2x3 iota and returns the first output's values.
  std::vector<float> run(omnirt_module* m, omnirt_report* report = nullptr) {
    Tensor x = iota({2, 3});
    DLTensor in = x.view();
    Outputs out;
    EXPECT_EQ(omnirt_module_run(m, &in, 1, nullptr, out.slots, 8, &out.count, report),
              OMNIRT_STATUS_OK)
        << last_message();
    if (out.count == 0) return {};
    return std::vector<float>(out.floats(0), out.floats(0) + 6);
  }

  Host host_;
  omnirt_backend* fake_ = nullptr;
};

const std::vector<float> kTwice = {2, 4, 6, 8, 10, 12};
const std::vector<float> kPlus100 = {101, 102, 103, 104, 105, 106};

TEST_F(FakeWrap, CompileOkIsSelectedFirst) {
  Module m;
  ASSERT_EQ(wrap(fake_, "fake:", "block", &m), OMNIRT_STATUS_OK) << last_message();
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].tier, OMNIRT_TIER_COMPILE);
  EXPECT_EQ(a[0].ok, 1);
  EXPECT_EQ(a[0].selected, 1);
  EXPECT_EQ(a[0].status, OMNIRT_STATUS_OK);
  EXPECT_STREQ(a[0].reason, "");
  EXPECT_EQ(run(m.get()), kTwice);
}

TEST_F(FakeWrap, CompileFailureFallsBackToEmbedderOverride) {
  int calls = 0;
  ASSERT_EQ(omnirt_register_override(fake_, "block", &plus_100, &calls), OMNIRT_STATUS_OK);
  Module m;
  ASSERT_EQ(wrap(fake_, "fake: compile=fail", "block", &m), OMNIRT_STATUS_OK) << last_message();
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].tier, OMNIRT_TIER_COMPILE);
  EXPECT_EQ(a[0].ok, 0);
  EXPECT_EQ(a[0].selected, 0);
  EXPECT_EQ(a[0].status, OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(a[0].reason, "fake: compile failure requested");
  EXPECT_EQ(a[1].tier, OMNIRT_TIER_OVERRIDE);
  EXPECT_EQ(a[1].selected, 1);
  EXPECT_EQ(run(m.get()), kPlus100);
  EXPECT_EQ(calls, 1);
}

TEST_F(FakeWrap, WithoutOverrideFallsBackToEager) {
  Module m;
  ASSERT_EQ(wrap(fake_, "fake: compile=fail", "block", &m), OMNIRT_STATUS_OK) << last_message();
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[1].tier, OMNIRT_TIER_OVERRIDE);
  EXPECT_EQ(a[1].status, OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(a[1].reason, HasSubstr("no embedder override for tag 'block'"));
  EXPECT_THAT(a[1].reason, HasSubstr("backend 'wrapfake' has no op 'block'"));
  EXPECT_EQ(a[2].tier, OMNIRT_TIER_EAGER);
  EXPECT_EQ(a[2].selected, 1);
  EXPECT_EQ(run(m.get()), kTwice);
}

TEST_F(FakeWrap, OkWithoutAnExecutableIsAFailedAttempt) {
  Module m;
  ASSERT_EQ(wrap(fake_, "fake: compile=null", "block", &m), OMNIRT_STATUS_OK) << last_message();
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].tier, OMNIRT_TIER_COMPILE);
  EXPECT_EQ(a[0].ok, 0);
  EXPECT_EQ(a[0].status, OMNIRT_STATUS_INTERNAL);
  EXPECT_THAT(a[0].reason, HasSubstr("returned OK from module_load but no executable"));
  EXPECT_EQ(a[2].selected, 1);
  EXPECT_EQ(run(m.get()), kTwice);
}

TEST_F(FakeWrap, AllTiersFailingFailsWithTheWholeEntry) {
  Report report = make_report(fake_);
  Module m;
  EXPECT_EQ(wrap(fake_, "fake: compile=fail eager=fail", "block", &m, report.get()),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  const std::string message = last_message();
  EXPECT_THAT(message, HasSubstr("compile: INVALID_ARGUMENT (fake: compile failure requested)"));
  EXPECT_THAT(message, HasSubstr("override: NOT_FOUND (no embedder override for tag 'block'"));
  EXPECT_THAT(message, HasSubstr("eager: INVALID_ARGUMENT (fake: eager failure requested)"));
  EXPECT_STREQ(omnirt_last_error()->backend, "wrapfake");

  const auto doc = report_json(report.get());
  EXPECT_FALSE(doc["ok"].get<bool>());
  ASSERT_EQ(doc["timeline"].size(), 1u);
  const auto& entry = doc["timeline"][0];
  EXPECT_TRUE(entry["selected_tier"].is_null());
  ASSERT_EQ(entry["attempts"].size(), 3u);
  for (const auto& a : entry["attempts"]) {
    EXPECT_FALSE(a["ok"].get<bool>());
    EXPECT_FALSE(a["selected"].get<bool>());
  }
  ASSERT_EQ(doc["errors"].size(), 1u);
  EXPECT_EQ(doc["errors"][0]["status"], "INVALID_ARGUMENT");
  EXPECT_EQ(doc["errors"][0]["message"], message);
}

TEST_F(FakeWrap, WrapDisableCompileFlagSkipsCompile) {
  Module m;
  ASSERT_EQ(wrap(fake_, "fake:", "block", &m, nullptr, OMNIRT_WRAP_DISABLE_COMPILE),
            OMNIRT_STATUS_OK);
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].tier, OMNIRT_TIER_COMPILE);
  EXPECT_EQ(a[0].ok, 0);
  EXPECT_STREQ(a[0].reason, "compile disabled by OMNIRT_WRAP_DISABLE_COMPILE");
  EXPECT_EQ(a[2].tier, OMNIRT_TIER_EAGER);
  EXPECT_EQ(a[2].selected, 1);
}

TEST_F(FakeWrap, RegisterOverrideRejectsDuplicatesAndUnregisters) {
  int calls = 0;
  ASSERT_EQ(omnirt_register_override(fake_, "block", &plus_100, &calls), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_register_override(fake_, "block", &plus_100, &calls),
            OMNIRT_STATUS_ALREADY_EXISTS);
  EXPECT_THAT(last_message(),
              HasSubstr("'wrapfake' already has an embedder override for tag 'block'"));
  EXPECT_EQ(omnirt_unregister_override(fake_, "block"), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_unregister_override(fake_, "block"), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(last_message(), HasSubstr("has no embedder override for tag 'block'"));
  EXPECT_EQ(omnirt_register_override(fake_, "", &plus_100, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(omnirt_register_override(fake_, "block", nullptr, nullptr),
            OMNIRT_STATUS_INVALID_ARGUMENT);

  Module m;  // unregistered: the chain goes on to eager
  ASSERT_EQ(wrap(fake_, "fake: compile=fail", "block", &m), OMNIRT_STATUS_OK);
  EXPECT_EQ(attempts(m.get()).back().tier, OMNIRT_TIER_EAGER);
  EXPECT_EQ(calls, 0);
}

TEST_F(FakeWrap, TimelineTimesEveryAttempt) {
  Report report = make_report(fake_);
  Module m;
  ASSERT_EQ(wrap(fake_, "fake: compile=fail load_ms=20", "block", &m, report.get()),
            OMNIRT_STATUS_OK);
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 3u);
  EXPECT_GE(a[0].elapsed_ns, 20'000'000u);  // compile slept, then failed
  EXPECT_LT(a[1].elapsed_ns, 20'000'000u);  // override lookup does not load
  EXPECT_GE(a[2].elapsed_ns, 20'000'000u);
  const auto doc = report_json(report.get());
  const auto& entry = doc["timeline"][0];
  EXPECT_EQ(entry["selected_tier"], "eager");
  EXPECT_GE(entry["wrap_ms"].get<double>(), 40.0);
  EXPECT_GE(entry["attempts"][0]["elapsed_ms"].get<double>(), 20.0);
  EXPECT_EQ(entry["attempts"][2]["selected"], true);
}

TEST_F(FakeWrap, ReportJsonFollowsTheSchema) {
  omnirt_report* raw = nullptr;
  ASSERT_EQ(omnirt_report_create(fake_, "my-run-7", &raw), OMNIRT_STATUS_OK);
  Report report(raw);
  Module m;
  ASSERT_EQ(wrap(fake_, "fake:", "block", &m, report.get()), OMNIRT_STATUS_OK);
  run(m.get(), report.get());
  run(m.get(), report.get());
  ASSERT_EQ(omnirt_report_add_stage(report.get(), "preprocess", 1.25), OMNIRT_STATUS_OK);
  EXPECT_EQ(omnirt_report_add_stage(report.get(), "bad", -1), OMNIRT_STATUS_INVALID_ARGUMENT);

  const auto doc = report_json(report.get());
  EXPECT_EQ(doc["schema_version"], 2);
  EXPECT_EQ(doc["run_id"], "my-run-7");
  EXPECT_TRUE(doc["created_at"].is_string());
  EXPECT_TRUE(doc["ok"].get<bool>());
  EXPECT_EQ(doc["host"]["abi_version"], "1.1");
  EXPECT_TRUE(doc["host"]["library_version"].is_string());
  EXPECT_EQ(doc["backend"]["name"], "wrapfake");
  EXPECT_EQ(doc["backend"]["plugin_version"], "0.0.1");
  EXPECT_EQ(doc["backend"]["abi_version"], "1.1");
  EXPECT_EQ(doc["backend"]["device_type"], "kDLCPU");
  EXPECT_TRUE(doc["notes"].is_array() && doc["notes"].empty());

  const auto& entry = doc["timeline"][0];
  EXPECT_EQ(entry["backend"], "wrapfake");
  EXPECT_EQ(entry["tag"], "block");
  EXPECT_EQ(entry["device"], 0);
  EXPECT_EQ(entry["selected_tier"], "compile");
  EXPECT_TRUE(entry["wrap_ms"].is_number());
  const auto& a = entry["attempts"][0];
  EXPECT_EQ(a["tier"], "compile");
  EXPECT_EQ(a["status"], "OK");
  EXPECT_TRUE(a["ok"].is_boolean());
  EXPECT_TRUE(a["reason"].is_string());
  EXPECT_TRUE(a["detail"].is_string());
  EXPECT_TRUE(a["elapsed_ms"].is_number());

  const auto& stages = doc["stages"];
  ASSERT_EQ(stages.size(), 5u);
  EXPECT_EQ(stages[0]["kind"], "engine");
  EXPECT_EQ(stages[0]["name"], "engine_load");
  EXPECT_EQ(stages[1]["kind"], "wrap");
  EXPECT_EQ(stages[2]["kind"], "run");
  EXPECT_EQ(stages[2]["tag"], "block");
  // wrapfake has no events: its runs have a wall time to completion only.
  EXPECT_TRUE(stages[2]["ms"].is_number());
  EXPECT_TRUE(stages[2]["device_ms"].is_null());
  EXPECT_FALSE(stages[1].contains("device_ms"));
  EXPECT_EQ(stages[4]["kind"], "embedder");
  EXPECT_EQ(stages[4]["name"], "preprocess");
  EXPECT_DOUBLE_EQ(stages[4]["ms"].get<double>(), 1.25);
  EXPECT_EQ(doc["runs"]["count"], 2);
  EXPECT_EQ(doc["runs"]["failed"], 0);
  EXPECT_GT(doc["runs"]["total_ms"].get<double>(), 0.0);
  EXPECT_EQ(doc["runs"]["device_timed"], 0);
  EXPECT_TRUE(doc["runs"]["device_mean_ms"].is_null());

  // The fake knows two statistics; the others are null, not zero.
  const auto& memory = doc["memory"];
  EXPECT_EQ(memory["known"], nlohmann::json({"allocated_bytes", "alloc_count"}));
  EXPECT_TRUE(memory["allocated_bytes"].is_number_unsigned());
  EXPECT_TRUE(memory["peak_bytes"].is_null());

  const auto& outputs = doc["outputs"];
  EXPECT_EQ(outputs["run"], 1);
  EXPECT_EQ(outputs["tag"], "block");
  EXPECT_EQ(outputs["tensors"][0]["shape"], nlohmann::json({2, 3}));
  EXPECT_EQ(outputs["tensors"][0]["dtype"], "float32");
  EXPECT_EQ(outputs["tensors"][0]["device"], "kDLCPU:0");
  EXPECT_TRUE(doc["errors"].empty());
}

TEST_F(FakeWrap, WrongInputsNameInputExpectedAndActual) {
  Report report = make_report(fake_);
  Module m;
  ASSERT_EQ(wrap(fake_, "fake:", "block", &m), OMNIRT_STATUS_OK);
  Tensor x = iota({2, 3});
  Outputs out;
  auto run_with = [&](std::vector<DLTensor> in) {
    return omnirt_module_run(m.get(), in.data(), in.size(), nullptr, out.slots, 8, &out.count,
                             report.get());
  };
  DLTensor good = x.view();

  EXPECT_EQ(run_with({good, good}), OMNIRT_STATUS_INVALID_ARGUMENT);  // count: the engine's check
  EXPECT_THAT(last_message(), HasSubstr("expected 1 input, got 2"));

  DLTensor wrong_dtype = good;
  wrong_dtype.dtype = DLDataType{kDLInt, 32, 1};
  EXPECT_EQ(run_with({wrong_dtype}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("input 0: expected dtype float32"));

  DLTensor wrong_device = good;
  wrong_device.device = DLDevice{kDLCUDA, 0};
  EXPECT_EQ(run_with({wrong_device}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(last_message(), "module 'block': input 0: expected device kDLCPU:0, got kDLCUDA:0");

  std::vector<int64_t> negative = {2, -3};
  DLTensor bad_shape = good;
  bad_shape.shape = negative.data();
  EXPECT_EQ(run_with({good, bad_shape}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(last_message(), "module 'block': input 1: expected dimension 1 >= 0, got -3");

  DLTensor no_data = good;
  no_data.data = nullptr;
  EXPECT_EQ(run_with({no_data}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(last_message(), "module 'block': input 0: expected data for 6 elements, got NULL");

  DLTensor bad_ndim = good;
  bad_ndim.ndim = -1;
  EXPECT_EQ(run_with({bad_ndim}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("input 0: expected ndim >= 0, got -1"));

  EXPECT_EQ(omnirt_module_run(m.get(), &good, 1, nullptr, out.slots, 0, &out.count, nullptr),
            OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(out.count, 1u);  // how many are needed
  out.count = 0;

  const auto doc = report_json(report.get());
  EXPECT_EQ(doc["runs"]["count"], 6);
  EXPECT_EQ(doc["runs"]["failed"], 6);
  EXPECT_EQ(doc["errors"].size(), 6u);
  EXPECT_TRUE(doc["outputs"].is_null());
}

TEST_F(FakeWrap, BadModulesFailEveryLoadingTier) {
  Module m;
  EXPECT_EQ(wrap(fake_, "not a module", "", &m), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(),
              HasSubstr("compile: INVALID_ARGUMENT (fake: module does not start with 'fake:')"));
  EXPECT_THAT(last_message(),
              HasSubstr("override: NOT_FOUND (no tag given, so no override applies)"));

  EXPECT_EQ(wrap(fake_, "fake:", "", &m, nullptr, 0, "onnx"), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_message(),
              HasSubstr("backend 'wrapfake' does not accept module format 'onnx' (accepts: fake)"));

  omnirt_module_source src{};
  src.struct_size = sizeof src;
  src.format = "fake";
  src.path = "/nonexistent/model.fake";
  omnirt_module* raw = nullptr;
  EXPECT_EQ(omnirt_wrap_module(fake_, &src, nullptr, nullptr, nullptr, &raw),
            OMNIRT_STATUS_NOT_FOUND);
  EXPECT_THAT(last_message(), HasSubstr("fake: cannot open /nonexistent/model.fake"));
  EXPECT_EQ(raw, nullptr);
}

TEST_F(FakeWrap, AFormatTheBackendCannotLoadHereFailsWithItsReason) {
  omnirt_capabilities caps{};
  caps.struct_size = sizeof caps;
  ASSERT_EQ(omnirt_get_capabilities(fake_, &caps), OMNIRT_STATUS_OK);
  ASSERT_EQ(caps.num_unavailable_module_formats, 1u);
  EXPECT_STREQ(caps.unavailable_module_formats[0].format, "fakepkg");
  Report report = make_report(fake_);
  Module m;
  EXPECT_EQ(wrap(fake_, "fake:", "pkg", &m, report.get(), 0, "fakepkg"), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(last_message(),
              HasSubstr("compile: NOT_SUPPORTED (backend 'wrapfake' cannot load module format "
                        "'fakepkg' here: fake: built without the fakepkg loader)"));
  const auto doc = report_json(report.get());
  EXPECT_THAT(doc["timeline"][0]["attempts"][2]["reason"].get<std::string>(),
              HasSubstr("fake: built without the fakepkg loader"));
}

TEST_F(FakeWrap, WarningsOfARunBecomeReportNotes) {
  Report report = make_report(fake_);
  Module m;
  ASSERT_EQ(wrap(fake_, "fake: warn=no_graph_for_these_inputs", "block", &m, report.get()),
            OMNIRT_STATUS_OK);
  run(m.get(), nullptr);  // without a report: the log alone hears it
  Module other;
  ASSERT_EQ(wrap(fake_, "fake: warn=ran_without_a_graph", "other", &other, report.get()),
            OMNIRT_STATUS_OK);
  EXPECT_EQ(run(m.get(), report.get()), kTwice);
  EXPECT_EQ(run(other.get(), report.get()), kTwice);  // warns on this, its first run
  EXPECT_EQ(run(other.get(), report.get()), kTwice);
  const auto doc = report_json(report.get());
  ASSERT_EQ(doc["notes"].size(), 1u) << doc["notes"].dump();
  const auto& note = doc["notes"][0];
  EXPECT_EQ(note["run"], 1);  // the report's second run
  EXPECT_EQ(note["tag"], "other");
  EXPECT_EQ(note["backend"], "wrapfake");
  EXPECT_EQ(note["message"], "ran_without_a_graph");
  EXPECT_EQ(note["count"], 1);
  EXPECT_TRUE(doc["ok"].get<bool>());  // a note is not an error
}

TEST_F(FakeWrap, BadArgumentsAreRejected) {
  omnirt_module* raw = nullptr;
  EXPECT_EQ(omnirt_wrap_module(fake_, nullptr, "x", nullptr, nullptr, &raw),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  omnirt_module_source src{};
  src.struct_size = sizeof src;
  src.format = "fake";
  src.data = "fake:";
  src.size = 5;
  src.path = "/tmp/also-a-path";
  EXPECT_EQ(omnirt_wrap_module(fake_, &src, "x", nullptr, nullptr, &raw),
            OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("exactly one of source->data"));
  src.path = nullptr;
  omnirt_wrap_options opt{};
  opt.struct_size = 4;
  EXPECT_EQ(omnirt_wrap_module(fake_, &src, "x", &opt, nullptr, &raw), OMNIRT_STATUS_INCOMPATIBLE);
  opt.struct_size = sizeof opt;
  opt.device = 3;
  EXPECT_EQ(omnirt_wrap_module(fake_, &src, "x", &opt, nullptr, &raw), OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_THAT(last_message(),
              HasSubstr("device 3 is out of range: backend 'wrapfake' has 1 device(s)"));
  EXPECT_EQ(raw, nullptr);
}

TEST_F(FakeWrap, ConcurrentRunsOfOneModule) {
  Report report = make_report(fake_);
  Module m;
  ASSERT_EQ(wrap(fake_, "fake:", "block", &m, report.get()), OMNIRT_STATUS_OK);
  constexpr int kThreads = 8, kRuns = 200;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Tensor x = iota({4, 5}, static_cast<float>(t * 1000));
      DLTensor in = x.view();
      for (int r = 0; r < kRuns; ++r) {
        Outputs out;
        if (omnirt_module_run(m.get(), &in, 1, nullptr, out.slots, 8, &out.count, report.get()) !=
                OMNIRT_STATUS_OK ||
            out.floats(0)[19] != 2.0f * x.data[19]) {
          ++wrong;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(report_json(report.get())["runs"]["count"], kThreads * kRuns);
}

// --- the engine's load, a stage of its own ---------------------------------

TEST_F(FakeWrap, TheEnginesLoadIsTimedApartFromTheFirstTierThatNeedsIt) {
  Report report = make_report(fake_);
  Module m;
  ASSERT_EQ(wrap(fake_, "fake: load_ms=1", "first", &m, report.get()), OMNIRT_STATUS_OK);
  ASSERT_EQ(wrap(fake_, "fake: load_ms=1", "second", &m, report.get()), OMNIRT_STATUS_OK);
  const auto doc = report_json(report.get());
  const auto& first = doc["timeline"][0];
  ASSERT_TRUE(first["engine_load"].is_object()) << first.dump();
  EXPECT_EQ(first["engine_load"]["engine"], "fake engine 1.0");
  EXPECT_EQ(first["engine_load"]["ok"], true);
  EXPECT_GE(first["engine_load"]["ms"].get<double>(), 40.0);
  // Not charged to the compile tier, but part of the whole wrap.
  EXPECT_LT(first["attempts"][0]["elapsed_ms"].get<double>(), 40.0);
  EXPECT_GE(first["wrap_ms"].get<double>(), 40.0);
  // Once loaded, asking again is immediate.
  EXPECT_LT(doc["timeline"][1]["engine_load"]["ms"].get<double>(), 40.0);
}

TEST_F(FakeWrap, NoEngineIsLoadedWhenNoTierNeedsIt) {
  int calls = 0;
  ASSERT_EQ(omnirt_register_override(fake_, "kernel", &plus_100, &calls), OMNIRT_STATUS_OK);
  Report report = make_report(fake_);
  Module m;
  // compile disabled, override found: eager (which needs the engine) is never tried.
  ASSERT_EQ(wrap(fake_, "fake:", "kernel", &m, report.get(), OMNIRT_WRAP_DISABLE_COMPILE),
            OMNIRT_STATUS_OK);
  EXPECT_TRUE(report_json(report.get())["timeline"][0]["engine_load"].is_null());
  // A backend without ENGINE_PREPARE (wrapdev) loads its engine inside module_load.
  omnirt_backend* dev = host_.backend("wrapdev");
  Report dev_report = make_report(dev);
  ASSERT_EQ(wrap(dev, "fake:", "plain", &m, dev_report.get()), OMNIRT_STATUS_OK);
  EXPECT_TRUE(report_json(dev_report.get())["timeline"][0]["engine_load"].is_null());
}

class BrokenEngineWrap : public FakeWrap {
 protected:
  BrokenEngineWrap() : FakeWrap("backends:\n  wrapfake:\n    options: {engine: broken}\n") {}
};

TEST_F(BrokenEngineWrap, AFailedEngineLoadIsRecordedAndTheTiersStillRun) {
  Report report = make_report(fake_);
  Module m;
  // The fake's module_load does not need the engine, so the wrap succeeds.
  ASSERT_EQ(wrap(fake_, "fake:", "block", &m, report.get()), OMNIRT_STATUS_OK);
  const auto doc = report_json(report.get());
  const auto& load = doc["timeline"][0]["engine_load"];
  EXPECT_EQ(load["ok"], false);
  EXPECT_EQ(load["status"], "UNAVAILABLE");
  EXPECT_THAT(load["reason"].get<std::string>(), HasSubstr("fake: the engine is broken on purpose"));
  EXPECT_EQ(doc["stages"][0]["ok"], false);
}

// --- policy from configuration -------------------------------------------

class PolicyWrap : public FakeWrap {
 protected:
  PolicyWrap()
      : FakeWrap(
            "wrap_module:\n"
            "  policies:\n"
            "    block: [override, compile, eager]\n"
            "    eager_only: [eager]\n") {}
};

TEST_F(PolicyWrap, OverrideFirstWhenThePolicySaysSo) {
  int calls = 0;
  ASSERT_EQ(omnirt_register_override(fake_, "block", &plus_100, &calls), OMNIRT_STATUS_OK);
  Module m;
  ASSERT_EQ(wrap(fake_, "fake:", "block", &m), OMNIRT_STATUS_OK) << last_message();
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].tier, OMNIRT_TIER_OVERRIDE);
  EXPECT_EQ(a[0].selected, 1);
  EXPECT_EQ(run(m.get()), kPlus100);
}

TEST_F(PolicyWrap, PolicyListsOnlyTheTiersToTry) {
  Module m;
  ASSERT_EQ(wrap(fake_, "fake:", "eager_only", &m), OMNIRT_STATUS_OK);
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].tier, OMNIRT_TIER_EAGER);
  // Other tags keep the default order.
  ASSERT_EQ(wrap(fake_, "fake:", "other", &m), OMNIRT_STATUS_OK);
  EXPECT_EQ(attempts(m.get())[0].tier, OMNIRT_TIER_COMPILE);
}

class CompileOffWrap : public FakeWrap {
 protected:
  CompileOffWrap() : FakeWrap("wrap_module:\n  compile: false\n") {}
};

TEST_F(CompileOffWrap, ConfigurationSwitchesCompileOff) {
  Module m;
  ASSERT_EQ(wrap(fake_, "fake:", "block", &m), OMNIRT_STATUS_OK);
  const auto a = attempts(m.get());
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a[0].status, OMNIRT_STATUS_UNAVAILABLE);
  EXPECT_STREQ(a[0].reason, "compile disabled by configuration (wrap_module.compile: false)");
  EXPECT_EQ(a[2].selected, 1);
}

// The environment switch, honoured unless the host ignores the environment.
class EnvWrap : public ::testing::Test {
 protected:
  void SetUp() override { setenv("OMNIRT_DISABLE_COMPILE", "1", 1); }
  void TearDown() override { unsetenv("OMNIRT_DISABLE_COMPILE"); }

  // The attempts' reasons belong to the module, so host and module stay
  // alive as members (declared in that order: the module goes first).
  std::vector<omnirt_attempt> wrap_with(uint32_t flags) {
    host_ = std::make_unique<Host>(fake_plugins(), "", flags);
    EXPECT_EQ(host_->status(), OMNIRT_STATUS_OK) << last_message();
    return wrap_on(*host_, module_);
  }

  // Wraps on `host` into `module`, which must go before the host.
  static std::vector<omnirt_attempt> wrap_on(Host& host, Module& module) {
    omnirt_module_source src{};
    src.struct_size = sizeof src;
    src.format = "fake";
    src.data = "fake:";
    src.size = 5;
    omnirt_module* raw = nullptr;
    EXPECT_EQ(omnirt_wrap_module(host.backend("wrapfake"), &src, "block", nullptr, nullptr, &raw),
              OMNIRT_STATUS_OK);
    module.reset(raw);
    return attempts(module.get());
  }

  std::unique_ptr<Host> host_;
  Module module_;
};

TEST_F(EnvWrap, OmnirtDisableCompileSkipsCompile) {
  const auto a = wrap_with(OMNIRT_HOST_SKIP_INSTALLED_DIR);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_STREQ(a[0].reason, "compile disabled by OMNIRT_DISABLE_COMPILE");
  EXPECT_EQ(a[2].selected, 1);
}

// Read once, when a host is created (host.h): setting it later, as an
// embedder might with setenv, changes nothing for a host that exists.
TEST_F(EnvWrap, IsReadOnceWhenAHostIsCreated) {
  unsetenv("OMNIRT_DISABLE_COMPILE");
  Host earlier(fake_plugins(), "", OMNIRT_HOST_SKIP_INSTALLED_DIR);
  ASSERT_EQ(earlier.status(), OMNIRT_STATUS_OK) << last_message();
  setenv("OMNIRT_DISABLE_COMPILE", "1", 1);
  {
    Module module;
    const auto a = wrap_on(earlier, module);
    ASSERT_EQ(a.size(), 1u);
    EXPECT_EQ(a[0].tier, OMNIRT_TIER_COMPILE);
    EXPECT_EQ(a[0].selected, 1);
  }
  const auto a = wrap_with(OMNIRT_HOST_SKIP_INSTALLED_DIR);  // a host made now reads it
  ASSERT_EQ(a.size(), 3u);
  EXPECT_STREQ(a[0].reason, "compile disabled by OMNIRT_DISABLE_COMPILE");
}

TEST_F(EnvWrap, IgnoredWhenTheHostIgnoresTheEnvironment) {
  const auto a = wrap_with(kIsolated);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].tier, OMNIRT_TIER_COMPILE);
  EXPECT_EQ(a[0].selected, 1);
}

}  // namespace
