// wrap_module on the real cpu backend with TorchScript models made at test
// time by make_test_models.py: every tier's outputs equal libtorch's own
// (computed by the same libtorch in Python) within a stated tolerance, and
// bad modules and wrong inputs fail with messages that say what is wrong.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "npy.h"
#include "wrap_test_util.h"

using namespace wraptest;
using omnirt::run::HostTensor;
using omnirt::run::read_npy;
using ::testing::HasSubstr;

namespace {

// freeze + optimize_for_inference reorders float math (folded BatchNorm,
// MKLDNN convolutions), so outputs match to float32 rounding, not bitwise.
constexpr double kRtol = 1e-4, kAtol = 1e-5;

std::string model_path(const std::string& file) {
  return std::string(WRAP_MODELS_DIR) + "/" + file;
}

void expect_close(const DLTensor& got, const HostTensor& want, const std::string& what) {
  ASSERT_EQ(got.ndim, static_cast<int32_t>(want.shape.size())) << what;
  for (int32_t d = 0; d < got.ndim; ++d) ASSERT_EQ(got.shape[d], want.shape[d]) << what;
  ASSERT_EQ(got.dtype.code, kDLFloat);
  ASSERT_EQ(got.strides == nullptr || got.ndim <= 1 || got.strides[got.ndim - 1] == 1, true);
  const auto* g = static_cast<const float*>(got.data);
  const auto* w = reinterpret_cast<const float*>(want.bytes.data());
  for (int64_t i = 0; i < want.numel(); ++i) {
    ASSERT_LE(std::fabs(g[i] - w[i]), kAtol + kRtol * std::fabs(w[i])) << what << " element " << i;
  }
}

class CpuModels : public ::testing::Test {
 protected:
  CpuModels()
      : host_({WRAP_CPU_PLUGIN},
              "wrap_module:\n  policies:\n    rms_norm: [override, compile, eager]\n") {}

  void SetUp() override {
    std::ifstream why(model_path("unavailable.txt"));
    if (why) GTEST_SKIP() << std::string(std::istreambuf_iterator<char>(why), {});
    ASSERT_EQ(host_.status(), OMNIRT_STATUS_OK) << last_message();
    cpu_ = host_.backend("cpu");
    ASSERT_NE(cpu_, nullptr);
    omnirt_capabilities caps{};
    caps.struct_size = sizeof caps;
    ASSERT_EQ(omnirt_get_capabilities(cpu_, &caps), OMNIRT_STATUS_OK);
    if (caps.num_module_formats == 0) GTEST_SKIP() << "the cpu TorchScript engine is not built";
  }

  omnirt_status wrap_file(const std::string& file, const char* tag, uint32_t flags, Module* out,
                          const char* format = "torchscript") {
    const std::string path = model_path(file);
    omnirt_module_source src{};
    src.struct_size = sizeof src;
    src.format = format;
    src.path = path.c_str();
    omnirt_wrap_options opt{};
    opt.struct_size = sizeof opt;
    opt.flags = flags;
    const omnirt_op_attr eps{"eps", 1e-5};
    opt.attrs = &eps;
    opt.num_attrs = 1;
    omnirt_module* m = nullptr;
    const omnirt_status s = omnirt_wrap_module(cpu_, &src, tag, &opt, nullptr, &m);
    out->reset(m);
    return s;
  }

  omnirt_status wrap_bytes(const std::string& bytes, Module* out) {
    omnirt_module_source src{};
    src.struct_size = sizeof src;
    src.format = "torchscript";
    src.data = bytes.data();
    src.size = bytes.size();
    omnirt_module* m = nullptr;
    const omnirt_status s = omnirt_wrap_module(cpu_, &src, "bad", nullptr, nullptr, &m);
    out->reset(m);
    return s;
  }

  std::vector<HostTensor> inputs_of(const std::string& name) {
    std::vector<HostTensor> inputs;
    for (int i = 0;
         std::filesystem::exists(model_path(name + ".input" + std::to_string(i) + ".npy")); ++i) {
      inputs.push_back(read_npy(model_path(name + ".input" + std::to_string(i) + ".npy")));
    }
    return inputs;
  }

  // Wraps `name` for the tier and checks its first output against libtorch's.
  void check_tier(const std::string& name, int32_t tier, uint32_t flags) {
    Module m;
    ASSERT_EQ(wrap_file(name + ".pt", name.c_str(), flags, &m), OMNIRT_STATUS_OK) << last_message();
    const auto a = attempts(m.get());
    ASSERT_EQ(a.back().tier, tier) << name << ": " << a.back().reason;
    ASSERT_EQ(a.back().selected, 1);
    auto inputs = inputs_of(name);
    std::vector<DLTensor> views;
    for (auto& t : inputs) views.push_back(t.view());
    Outputs out;
    ASSERT_EQ(omnirt_module_run(m.get(), views.data(), views.size(), nullptr, out.slots, 8,
                                &out.count, nullptr),
              OMNIRT_STATUS_OK)
        << last_message();
    ASSERT_GE(out.count, 1u);
    const std::string what = name + " (" + std::to_string(tier) + ")";
    expect_close(out.slots[0]->dl_tensor, read_npy(model_path(name + ".expected.npy")), what);
    if (tier == OMNIRT_TIER_COMPILE) {
      expect_close(out.slots[0]->dl_tensor, read_npy(model_path(name + ".frozen.npy")), what);
    }
  }

  Host host_;
  omnirt_backend* cpu_ = nullptr;
};

TEST_F(CpuModels, CompileTierMatchesLibtorch) {
  for (const char* name : {"mlp", "convbn", "two_outputs"})
    check_tier(name, OMNIRT_TIER_COMPILE, 0);
}

TEST_F(CpuModels, EagerTierMatchesLibtorch) {
  for (const char* name : {"mlp", "convbn", "two_outputs"}) {
    check_tier(name, OMNIRT_TIER_EAGER, OMNIRT_WRAP_DISABLE_COMPILE);
  }
}

TEST_F(CpuModels, OverrideTierMatchesLibtorch) {
  // Policy puts override first for rms_norm: the cpu backend's kernel runs.
  check_tier("rms_norm", OMNIRT_TIER_OVERRIDE, 0);
}

TEST_F(CpuModels, TwoOutputsAreBothReturned) {
  Module m;
  ASSERT_EQ(wrap_file("two_outputs.pt", "two", 0, &m), OMNIRT_STATUS_OK) << last_message();
  auto inputs = inputs_of("two_outputs");
  DLTensor in = inputs[0].view();
  Outputs out;
  EXPECT_EQ(omnirt_module_run(m.get(), &in, 1, nullptr, out.slots, 1, &out.count, nullptr),
            OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(out.count, 2u);
  out.count = 0;
  ASSERT_EQ(omnirt_module_run(m.get(), &in, 1, nullptr, out.slots, 8, &out.count, nullptr),
            OMNIRT_STATUS_OK);
  ASSERT_EQ(out.count, 2u);
  const auto* x = reinterpret_cast<const float*>(inputs[0].bytes.data());
  EXPECT_FLOAT_EQ(out.floats(1)[3], 2 * x[3]);
}

TEST_F(CpuModels, BadModulesFailWithReasons) {
  std::ifstream file(model_path("mlp.pt"), std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(file), {});
  Module m;
  EXPECT_NE(wrap_bytes(bytes.substr(0, bytes.size() / 2), &m), OMNIRT_STATUS_OK);
  EXPECT_THAT(last_message(), HasSubstr("compile: INVALID_ARGUMENT"));
  EXPECT_THAT(last_message(), HasSubstr("eager: INVALID_ARGUMENT"));

  EXPECT_EQ(wrap_bytes("this is not a TorchScript archive", &m), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("eager: INVALID_ARGUMENT"));

  EXPECT_EQ(wrap_file("mlp.pt", "mlp", 0, &m, "onnx"), OMNIRT_STATUS_NOT_SUPPORTED);
  EXPECT_THAT(
      last_message(),
      HasSubstr("backend 'cpu' does not accept module format 'onnx' (accepts: torchscript)"));

  EXPECT_EQ(wrap_file("missing.pt", "missing", 0, &m), OMNIRT_STATUS_NOT_FOUND);
  EXPECT_EQ(m, nullptr);
}

TEST_F(CpuModels, WrongInputsNameInputExpectedAndActual) {
  Module m;
  ASSERT_EQ(wrap_file("mlp.pt", "mlp", 0, &m), OMNIRT_STATUS_OK) << last_message();
  auto inputs = inputs_of("mlp");
  DLTensor good = inputs[0].view();
  Outputs out;
  auto run_with = [&](std::vector<DLTensor> in) {
    return omnirt_module_run(m.get(), in.data(), in.size(), nullptr, out.slots, 8, &out.count,
                             nullptr);
  };
  // The count is the engine's check, against forward's signature.
  EXPECT_EQ(run_with({good, good}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("forward(x) takes 1 input, got 2"));
  EXPECT_EQ(run_with({}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("takes 1 input, got 0"));

  // TorchScript signatures carry no dtype or shape: libtorch finds these
  // during forward, and the engine passes its error on.
  DLTensor wrong_dtype = good;
  wrong_dtype.dtype = DLDataType{kDLFloat, 64, 1};
  std::vector<double> wide(32);
  wrong_dtype.data = wide.data();
  EXPECT_EQ(run_with({wrong_dtype}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("forward failed"));

  std::vector<int64_t> wrong_shape = {2, 5};  // the first Linear wants 16 features
  DLTensor bad = good;
  bad.shape = wrong_shape.data();
  EXPECT_EQ(run_with({bad}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_message(), HasSubstr("forward failed"));

  DLTensor on_gpu = good;
  on_gpu.device = DLDevice{kDLCUDA, 0};
  EXPECT_EQ(run_with({on_gpu}), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(last_message(), "module 'mlp': input 0: expected device kDLCPU:0, got kDLCUDA:0");
}

// Bool masks in and out through the host API: the .npy bool input (numpy's
// b1, OMNIRT_DL_BOOL) and a bool output, equal to libtorch's.
TEST_F(CpuModels, BoolTensorsGoInAndComeOut) {
  for (const uint32_t flags : {0u, OMNIRT_WRAP_DISABLE_COMPILE}) {
    Module m;
    ASSERT_EQ(wrap_file("mask.pt", "mask", flags, &m), OMNIRT_STATUS_OK) << last_message();
    auto inputs = inputs_of("mask");
    ASSERT_EQ(inputs[1].dtype.code, OMNIRT_DL_BOOL);
    std::vector<DLTensor> views = {inputs[0].view(), inputs[1].view()};
    Report report = make_report(cpu_);
    Outputs out;
    ASSERT_EQ(omnirt_module_run(m.get(), views.data(), 2, nullptr, out.slots, 8, &out.count,
                                report.get()),
              OMNIRT_STATUS_OK)
        << last_message();
    ASSERT_EQ(out.count, 2u);
    expect_close(out.slots[0]->dl_tensor, read_npy(model_path("mask.expected0.npy")), "filled");
    const DLTensor& negated = out.slots[1]->dl_tensor;
    EXPECT_EQ(negated.dtype.code, OMNIRT_DL_BOOL);
    EXPECT_EQ(negated.dtype.bits, 8);
    const HostTensor want = read_npy(model_path("mask.expected1.npy"));
    ASSERT_EQ(want.bytes.size(), 6u);
    EXPECT_EQ(0, std::memcmp(negated.data, want.bytes.data(), want.bytes.size()));
    EXPECT_EQ(report_json(report.get())["outputs"]["tensors"][1]["dtype"], "bool");
  }
}

// A dict's entries come out in key order, each named by its key through
// omnirt_module_output_name and in the run report.
TEST_F(CpuModels, DictOutputsAreNamedByTheirKeys) {
  Module m;
  ASSERT_EQ(wrap_file("heads.pt", "heads", 0, &m), OMNIRT_STATUS_OK) << last_message();
  auto inputs = inputs_of("heads");
  DLTensor in = inputs[0].view();
  Report report = make_report(cpu_);
  Outputs out;
  ASSERT_EQ(omnirt_module_run(m.get(), &in, 1, nullptr, out.slots, 8, &out.count, report.get()),
            OMNIRT_STATUS_OK)
      << last_message();
  ASSERT_EQ(out.count, 3u);
  const char* keys[] = {"aux", "boxes", "logits"};
  const auto tensors = report_json(report.get())["outputs"]["tensors"];
  for (size_t i = 0; i < 3; ++i) {
    const char* name = nullptr;
    ASSERT_EQ(omnirt_module_output_name(m.get(), out.slots[i], &name), OMNIRT_STATUS_OK)
        << last_message();
    EXPECT_STREQ(name, keys[i]);
    EXPECT_EQ(tensors[i]["name"], keys[i]);
    expect_close(out.slots[i]->dl_tensor,
                 read_npy(model_path(std::string("heads.expected.") + keys[i] + ".npy")), keys[i]);
  }
}

TEST_F(CpuModels, ScalarArgumentsComeFrom0dInputs) {
  Module m;
  ASSERT_EQ(wrap_file("scale.pt", "scale", 0, &m), OMNIRT_STATUS_OK) << last_message();
  auto inputs = inputs_of("scale");  // x, then 0-d int64, float32 and bool
  std::vector<DLTensor> views;
  for (auto& t : inputs) views.push_back(t.view());
  ASSERT_EQ(views[1].ndim, 0);
  Outputs out;
  ASSERT_EQ(omnirt_module_run(m.get(), views.data(), views.size(), nullptr, out.slots, 8,
                              &out.count, nullptr),
            OMNIRT_STATUS_OK)
      << last_message();
  expect_close(out.slots[0]->dl_tensor, read_npy(model_path("scale.expected.npy")), "scale");
}

// libtorch warns on every run of this model; the report keeps the warning
// once, with how many runs raised it, and the host's log does not repeat it.
TEST_F(CpuModels, WarningsOfEveryRunGoIntoTheReportOnce) {
  Module m;
  ASSERT_EQ(wrap_file("warns.pt", "warns", OMNIRT_WRAP_DISABLE_COMPILE, &m), OMNIRT_STATUS_OK)
      << last_message();
  auto inputs = inputs_of("warns");
  DLTensor in = inputs[0].view();
  Report report = make_report(cpu_);
  for (int run = 0; run < 4; ++run) {
    Outputs out;
    ASSERT_EQ(omnirt_module_run(m.get(), &in, 1, nullptr, out.slots, 8, &out.count, report.get()),
              OMNIRT_STATUS_OK)
        << last_message();
  }
  const auto notes = report_json(report.get())["notes"];
  ASSERT_EQ(notes.size(), 1u) << notes.dump();
  EXPECT_EQ(notes[0]["run"], 0);  // the first run that raised it
  EXPECT_EQ(notes[0]["backend"], "cpu");
  EXPECT_THAT(notes[0]["message"].get<std::string>(),
              HasSubstr("libtorch: An output with one or more elements was resized"));
  EXPECT_EQ(notes[0]["count"], 4);
}

// The report's memory figures count the model's memory on the cpu backend:
// a run's peak above what the model holds, and back down once released.
TEST_F(CpuModels, TheReportCountsTheModelsMemory) {
  Module m;
  Report report = make_report(cpu_);
  ASSERT_EQ(wrap_file("convbn.pt", "convbn", 0, &m), OMNIRT_STATUS_OK) << last_message();
  ASSERT_EQ(omnirt_reset_memory_stats(cpu_, 0), OMNIRT_STATUS_OK);
  const auto held = report_json(report.get())["memory"];
  EXPECT_EQ(held["module_memory"], "counted");
  auto inputs = inputs_of("convbn");
  DLTensor in = inputs[0].view();
  {
    Outputs out;
    ASSERT_EQ(omnirt_module_run(m.get(), &in, 1, nullptr, out.slots, 8, &out.count, report.get()),
              OMNIRT_STATUS_OK)
        << last_message();
    const auto ran = report_json(report.get())["memory"];
    const uint64_t output_bytes = 1 * 8 * 8 * 8 * sizeof(float);
    EXPECT_GE(ran["allocated_bytes"].get<uint64_t>(),
              held["allocated_bytes"].get<uint64_t>() + output_bytes);
    EXPECT_GT(ran["peak_bytes"].get<uint64_t>(), held["allocated_bytes"].get<uint64_t>());
  }
  EXPECT_EQ(report_json(report.get())["memory"]["allocated_bytes"], held["allocated_bytes"]);
}

TEST_F(CpuModels, ConcurrentRunsMatchLibtorch) {
  Module m;
  ASSERT_EQ(wrap_file("convbn.pt", "convbn", 0, &m), OMNIRT_STATUS_OK) << last_message();
  auto inputs = inputs_of("convbn");
  const HostTensor expected = read_npy(model_path("convbn.expected.npy"));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      DLTensor in = inputs[0].view();
      for (int r = 0; r < 20; ++r) {
        Outputs out;
        ASSERT_EQ(omnirt_module_run(m.get(), &in, 1, nullptr, out.slots, 8, &out.count, nullptr),
                  OMNIRT_STATUS_OK)
            << last_message();
        expect_close(out.slots[0]->dl_tensor, expected, "concurrent convbn");
      }
    });
  }
  for (auto& th : threads) th.join();
}

}  // namespace
