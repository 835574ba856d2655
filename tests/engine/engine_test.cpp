// The cpu plugin's TorchScript engine through the plugin's C vtable, checked
// against libtorch running the same module in this process: both tiers'
// outputs, outputs and their ownership, bad modules, wrong inputs, concurrent
// runs and the threads option.
//
// Tolerances: the eager tier runs the very module libtorch runs, so its
// outputs must be bitwise equal. The compile tier is frozen and optimized
// (constants folded, conv+bn fused, MKL-DNN layouts), which reorders float
// arithmetic: rtol 1e-4, atol 1e-5.
#include <ATen/Parallel.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/script.h>

#include <c10/core/CPUAllocator.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "engine_test_support.h"
#include "torch_dl.h"

namespace omnirt::engine_testing {
namespace {

using ::testing::HasSubstr;

constexpr double kCompileRtol = 1e-4;
constexpr double kCompileAtol = 1e-5;

// A module as torch.jit.script makes one: with `training`, parameters, source.
torch::jit::Module scripted(const char* name, const std::string& source,
                            const std::vector<std::pair<std::string, at::Tensor>>& params = {}) {
  torch::jit::Module m(name);
  m.register_attribute("training", c10::BoolType::get(), true);
  for (const auto& [param, value] : params) m.register_parameter(param, value, false);
  m.define(source);
  return m;
}

torch::jit::Module mlp() {
  at::manual_seed(1);
  return scripted("Mlp", R"(
    def forward(self, x):
        h = torch.relu(torch.matmul(x, self.w1) + self.b1)
        return torch.matmul(h, self.w2) + self.b2
  )",
                  {{"w1", at::randn({16, 32})},
                   {"b1", at::randn({32})},
                   {"w2", at::randn({32, 8})},
                   {"b2", at::randn({8})}});
}

// conv + batch norm + relu + pool + linear: what freeze folds and
// optimize_for_inference moves to MKL-DNN.
torch::jit::Module convnet() {
  at::manual_seed(2);
  torch::jit::Module m("ConvNet");
  m.register_attribute("training", c10::BoolType::get(), true);
  m.register_parameter("conv_w", at::randn({8, 3, 3, 3}) * 0.2, false);
  m.register_parameter("conv_b", at::randn({8}), false);
  m.register_parameter("bn_w", at::rand({8}) + 0.5, false);
  m.register_parameter("bn_b", at::randn({8}), false);
  m.register_buffer("bn_mean", at::randn({8}));
  m.register_buffer("bn_var", at::rand({8}) + 0.5);
  m.register_parameter("fc_w", at::randn({10, 8}), false);
  m.register_parameter("fc_b", at::randn({10}), false);
  m.define(R"(
    def forward(self, x):
        y = torch.conv2d(x, self.conv_w, self.conv_b, [1, 1], [1, 1])
        y = torch.batch_norm(y, self.bn_w, self.bn_b, self.bn_mean, self.bn_var,
                             self.training, 0.1, 1e-5, False)
        y = torch.relu(y)
        y = torch.adaptive_avg_pool2d(y, [1, 1]).flatten(1)
        return torch.linear(y, self.fc_w, self.fc_b)
  )");
  return m;
}

std::string bytes_of(torch::jit::Module& m) {
  std::ostringstream out;
  m.save(out);
  return out.str();
}

// An executable loaded through the plugin, destroyed with it.
class Executable {
 public:
  Executable(const CpuInstance& cpu, const std::string& bytes, int32_t tier) : cpu_(cpu) {
    status_ = cpu.load(bytes, tier, &exe_);
  }
  ~Executable() { cpu_.v().executable_destroy(cpu_.s(), exe_); }
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  omnirt_status status() const { return status_; }
  omnirt_executable* get() const { return exe_; }

  // Runs on `inputs`; the outputs own their memory (adopt takes each
  // DLManagedTensor and calls its deleter when the tensor dies).
  omnirt_status run(const std::vector<DLTensor>& inputs, std::vector<at::Tensor>& outputs,
                    size_t capacity = 8) const {
    std::vector<DLManagedTensor*> raw(capacity, nullptr);
    size_t count = 0;
    const omnirt_status status = cpu_.v().executable_run(cpu_.s(), exe_, inputs.data(),
                                                         inputs.size(), nullptr, raw.data(),
                                                         capacity, &count);
    outputs.clear();
    if (status == OMNIRT_STATUS_OK) {
      for (size_t i = 0; i < count; ++i) outputs.push_back(adopt(raw[i]));
    } else {
      last_count_ = count;
    }
    return status;
  }
  std::vector<at::Tensor> run(const std::vector<at::Tensor>& inputs) const {
    std::vector<DLTensor> dls;
    for (const at::Tensor& t : inputs) dls.push_back(dl(t));
    std::vector<at::Tensor> outputs;
    EXPECT_EQ(run(dls, outputs), OMNIRT_STATUS_OK) << last_error().message;
    return outputs;
  }
  size_t last_count() const { return last_count_; }

 private:
  const CpuInstance& cpu_;
  omnirt_executable* exe_ = nullptr;
  omnirt_status status_ = OMNIRT_STATUS_INTERNAL;
  mutable size_t last_count_ = 0;
};

// What libtorch itself computes with the module as loaded from `bytes`.
at::Tensor libtorch_forward(const std::string& bytes, const at::Tensor& x) {
  std::istringstream in(bytes);
  torch::jit::Module m = torch::jit::load(in);
  m.eval();
  at::NoGradGuard no_grad;
  return m.forward({x}).toTensor();
}

class EngineTest : public ::testing::Test {
 protected:
  CpuInstance cpu_;
};

TEST_F(EngineTest, BothTiersMatchLibtorchOnAnMlpAndAConvNet) {
  struct Model {
    const char* name;
    torch::jit::Module module;
    at::Tensor input;
  };
  at::manual_seed(3);
  for (Model& model : std::vector<Model>{{"mlp", mlp(), at::randn({4, 16})},
                                         {"convnet", convnet(), at::randn({2, 3, 12, 12})}}) {
    SCOPED_TRACE(model.name);
    const std::string bytes = bytes_of(model.module);
    Executable eager(cpu_, bytes, OMNIRT_TIER_EAGER);
    Executable compiled(cpu_, bytes, OMNIRT_TIER_COMPILE);
    ASSERT_EQ(eager.status(), OMNIRT_STATUS_OK) << last_error().message;
    ASSERT_EQ(compiled.status(), OMNIRT_STATUS_OK) << last_error().message;
    const at::Tensor expected = libtorch_forward(bytes, model.input);
    for (int run = 0; run < 3; ++run) {  // the profiling executor specializes on early runs
      const std::vector<at::Tensor> e = eager.run({model.input});
      const std::vector<at::Tensor> c = compiled.run({model.input});
      ASSERT_EQ(e.size(), 1u);
      ASSERT_EQ(c.size(), 1u);
      EXPECT_TRUE(at::equal(e[0], expected));
      EXPECT_TRUE(at::allclose(c[0], expected, kCompileRtol, kCompileAtol))
          << (c[0] - expected).abs().max().item<float>();
    }
  }
}

TEST_F(EngineTest, LoadsFromAFileAndFromBytesItNoLongerNeeds) {
  torch::jit::Module m = mlp();
  std::string bytes = bytes_of(m);
  const std::string path = ::testing::TempDir() + "omnirt_engine_mlp.pt";
  std::ofstream(path, std::ios::binary) << bytes;
  const at::Tensor x = at::randn({1, 16});
  const at::Tensor expected = libtorch_forward(bytes, x);

  omnirt_executable* raw = nullptr;
  ASSERT_EQ(cpu_.load("", OMNIRT_TIER_COMPILE, &raw, "torchscript", path.c_str()), OMNIRT_STATUS_OK)
      << last_error().message;
  cpu_.v().executable_destroy(cpu_.s(), raw);

  Executable from_bytes(cpu_, bytes, OMNIRT_TIER_EAGER);
  ASSERT_EQ(from_bytes.status(), OMNIRT_STATUS_OK);
  std::fill(bytes.begin(), bytes.end(), '\0');  // the ABI lends the bytes for the call only
  bytes = std::string();
  EXPECT_TRUE(at::equal(from_bytes.run({x})[0], expected));
  std::remove(path.c_str());
}

TEST_F(EngineTest, OutputsAreTuplesAndListsFlattenedInOrder) {
  torch::jit::Module m = scripted("Multi", R"(
    def forward(self, x):
        return x + 1, [x * 2, x - 1]
  )");
  Executable exe(cpu_, bytes_of(m), OMNIRT_TIER_COMPILE);
  ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
  const at::Tensor x = at::randn({3});
  const std::vector<at::Tensor> out = exe.run({x});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(at::equal(out[0], x + 1));
  EXPECT_TRUE(at::equal(out[1], x * 2));
  EXPECT_TRUE(at::equal(out[2], x - 1));

  std::vector<at::Tensor> none;
  const DLTensor in = dl(x);
  EXPECT_EQ(exe.run({in}, none, 2), OMNIRT_STATUS_OUT_OF_RANGE);
  EXPECT_EQ(exe.last_count(), 3u);
  EXPECT_THAT(last_error().message, HasSubstr("forward returned 3 tensors, output capacity is 2"));
}

TEST_F(EngineTest, OutputsNeverBorrowTheInputsAndOutliveTheExecutable) {
  torch::jit::Module m = scripted("Identity", R"(
    def forward(self, x):
        return x
  )");
  at::Tensor x = at::randn({5});
  const at::Tensor before = x.clone();
  std::vector<at::Tensor> out;
  {
    Executable exe(cpu_, bytes_of(m), OMNIRT_TIER_EAGER);
    ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
    out = exe.run({x});
  }
  ASSERT_EQ(out.size(), 1u);
  x.fill_(42);
  EXPECT_TRUE(at::equal(out[0], before));
}

// What forward returns is checked when the module loads, not on every run.
TEST_F(EngineTest, AResultTheEngineCannotHandOutIsRefusedAtLoadNamingItsType) {
  const struct {
    const char* source;
    const char* type;
  } cases[] = {
      {"def forward(self, x):\n    return x, x.dim()\n", "Tuple[Tensor, int]"},
      {"def forward(self, x) -> Dict[int, Tensor]:\n    return {0: x}\n", "Dict[int, Tensor]"},
      {"def forward(self, x) -> Optional[Tensor]:\n    return x\n", "Optional[Tensor]"},
      {"def forward(self, x):\n    return None\n", "NoneType"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.type);
    torch::jit::Module m = scripted("Result", c.source);
    Executable exe(cpu_, bytes_of(m), OMNIRT_TIER_EAGER);
    EXPECT_EQ(exe.status(), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_error().message,
                HasSubstr(std::string("forward returns ") + c.type +
                          "; the cpu engine hands out a tensor, or tuples, lists and "
                          "Dict[str, ...] of tensors"));
  }
}

TEST_F(EngineTest, AnArgumentNoDLTensorCarriesIsRefusedAtLoad) {
  torch::jit::Module m = scripted("Pick", R"(
    def forward(self, x, rows: List[int]):
        return x[rows]
  )");
  Executable exe(cpu_, bytes_of(m), OMNIRT_TIER_EAGER);
  EXPECT_EQ(exe.status(), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_error().message,
              HasSubstr("forward's argument 'rows' is of type List[int]; the cpu engine passes "
                        "tensors (Tensor, Optional[Tensor]), and int, float, bool and Scalar "
                        "arguments given as 0-d tensors"));
}

// int, float and bool arguments, each given as a 0-d tensor of a fitting dtype.
TEST_F(EngineTest, ScalarArgumentsAreReadFrom0dTensors) {
  torch::jit::Module m = scripted("Affine", R"(
    def forward(self, x, k: int, s: float, flip: bool):
        y = x * s + k
        if flip:
            return -y
        return y
  )");
  for (const int32_t tier : {OMNIRT_TIER_EAGER, OMNIRT_TIER_COMPILE}) {
    SCOPED_TRACE(tier);
    Executable exe(cpu_, bytes_of(m), tier);
    ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
    const at::Tensor x = at::randn({2, 3});
    const at::Tensor k = at::scalar_tensor(3, at::kLong);
    const at::Tensor s = at::scalar_tensor(0.5, at::kFloat);
    const at::Tensor yes = at::scalar_tensor(true, at::kBool);
    const at::Tensor no = at::scalar_tensor(false, at::kBool);
    EXPECT_TRUE(at::allclose(exe.run({x, k, s, yes})[0], -(x * 0.5 + 3)));
    EXPECT_TRUE(at::allclose(exe.run({x, k, s, no})[0], x * 0.5 + 3));
    // An int tensor serves a float argument; a float never serves an int.
    EXPECT_TRUE(at::allclose(exe.run({x, k, at::scalar_tensor(2, at::kInt), no})[0], x * 2 + 3));

    std::vector<at::Tensor> out;
    EXPECT_EQ(exe.run({dl(x), dl(s), dl(s), dl(no)}, out), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_error().message,
                HasSubstr("input 1 ('k'): forward takes a int here; a 0-d tensor of dtype Float "
                          "is not one"));
    const at::Tensor two_ks = at::full({2}, 3, at::kLong);
    EXPECT_EQ(exe.run({dl(x), dl(two_ks), dl(s), dl(no)}, out), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_error().message,
                HasSubstr("input 1 ('k'): forward takes a int here, given as a 0-d tensor; got "
                          "shape [2]"));
    EXPECT_EQ(exe.run({dl(x), dl(k), dl(s), dl(k)}, out), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_error().message, HasSubstr("input 3 ('flip'): forward takes a bool here"));
  }
}

// Bool tensors in both DLPack forms, and bool outputs as OMNIRT_DL_BOOL.
TEST_F(EngineTest, BoolTensorsGoInAndComeOut) {
  torch::jit::Module m = scripted("Mask", R"(
    def forward(self, x, mask):
        return x.masked_fill(mask, 0.0), mask.logical_not()
  )");
  const at::Tensor x = at::randn({2, 3});
  const at::Tensor mask = at::rand({2, 3}) > 0.5;
  for (const int32_t tier : {OMNIRT_TIER_EAGER, OMNIRT_TIER_COMPILE}) {
    SCOPED_TRACE(tier);
    Executable exe(cpu_, bytes_of(m), tier);
    ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
    for (const DLDataType form : {DLDataType{OMNIRT_DL_BOOL, 8, 1}, DLDataType{kDLUInt, 1, 1}}) {
      SCOPED_TRACE(int(form.code));
      DLTensor mask_dl = dl(mask);
      mask_dl.dtype = form;
      std::vector<DLManagedTensor*> raw(2, nullptr);
      size_t count = 0;
      const DLTensor in[2] = {dl(x), mask_dl};
      ASSERT_EQ(cpu_.v().executable_run(cpu_.s(), exe.get(), in, 2, nullptr, raw.data(), 2, &count),
                OMNIRT_STATUS_OK)
          << last_error().message;
      ASSERT_EQ(count, 2u);
      const DLDataType out_type = raw[1]->dl_tensor.dtype;
      EXPECT_EQ(out_type.code, OMNIRT_DL_BOOL);
      EXPECT_EQ(out_type.bits, 8);
      EXPECT_EQ(out_type.lanes, 1);
      const at::Tensor filled = adopt(raw[0]);
      const at::Tensor negated = adopt(raw[1]);
      EXPECT_TRUE(at::equal(filled, x.masked_fill(mask, 0.0)));
      EXPECT_TRUE(at::equal(negated, mask.logical_not()));
    }
  }
}

// Dict[str, Tensor] entries come out in ascending key order, whatever order
// the module inserts them in, each named by its key.
TEST_F(EngineTest, DictOutputsAreFlattenedByKeyAndNamed) {
  torch::jit::Module m = scripted("Heads", R"(
    def forward(self, x) -> Tuple[Dict[str, Tensor], Tensor]:
        heads = {"logits": x * 2, "boxes": x + 1}
        heads["aux"] = x - 1
        return heads, x * 3
  )");
  for (const int32_t tier : {OMNIRT_TIER_EAGER, OMNIRT_TIER_COMPILE}) {
    SCOPED_TRACE(tier);
    Executable exe(cpu_, bytes_of(m), tier);
    ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
    const at::Tensor x = at::randn({4});
    const DLTensor in = dl(x);
    std::vector<DLManagedTensor*> raw(4, nullptr);
    size_t count = 0;
    ASSERT_EQ(cpu_.v().executable_run(cpu_.s(), exe.get(), &in, 1, nullptr, raw.data(), 4, &count),
              OMNIRT_STATUS_OK)
        << last_error().message;
    ASSERT_EQ(count, 4u);
    const char* want_names[] = {"aux", "boxes", "logits", ""};
    const at::Tensor want[] = {x - 1, x + 1, x * 2, x * 3};
    for (size_t i = 0; i < 4; ++i) {
      const char* name = nullptr;
      ASSERT_EQ(cpu_.v().output_name(cpu_.s(), exe.get(), raw[i], &name), OMNIRT_STATUS_OK)
          << last_error().message;
      EXPECT_STREQ(name, want_names[i]);
    }
    // An output is only named by the executable that made it.
    Executable other(cpu_, bytes_of(m), tier);
    const char* name = nullptr;
    EXPECT_EQ(cpu_.v().output_name(cpu_.s(), other.get(), raw[0], &name),
              OMNIRT_STATUS_INVALID_ARGUMENT);
    for (size_t i = 0; i < 4; ++i) EXPECT_TRUE(at::equal(adopt(raw[i]), want[i])) << i;
  }
  EXPECT_NE(cpu_.capabilities().features & OMNIRT_FEATURE_OUTPUT_NAMES, 0u);
}

TEST_F(EngineTest, TrailingOptionalInputsMayBeLeftOut) {
  torch::jit::Module m = scripted("Sum", R"(
    def forward(self, x, y, z: Optional[torch.Tensor] = None):
        if z is None:
            return x + y
        return x + y + z
  )");
  Executable exe(cpu_, bytes_of(m), OMNIRT_TIER_COMPILE);
  ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
  const at::Tensor one = at::ones({2});
  EXPECT_TRUE(at::equal(exe.run({one, one})[0], one * 2));
  EXPECT_TRUE(at::equal(exe.run({one, one, one})[0], one * 3));
  std::vector<at::Tensor> out;
  EXPECT_EQ(exe.run({dl(one)}, out), OMNIRT_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(last_error().message,
              HasSubstr("forward(x, y, z=<default>) takes 2 to 3 inputs, got 1"));
}

TEST_F(EngineTest, BadModulesAreClearErrors) {
  torch::jit::Module m = mlp();
  const std::string bytes = bytes_of(m);
  const std::string truncated = bytes.substr(0, bytes.size() / 2);
  const std::string truncated_path = ::testing::TempDir() + "omnirt_engine_truncated.pt";
  std::ofstream(truncated_path, std::ios::binary) << truncated;
  const std::string dir = ::testing::TempDir();

  struct Case {
    const char* what;
    std::string bytes;
    const char* path;
    const char* format;
    int32_t tier;
    omnirt_status status;
    const char* message;
  };
  const Case cases[] = {
      {"truncated bytes", truncated, nullptr, "torchscript", OMNIRT_TIER_COMPILE,
       OMNIRT_STATUS_INVALID_ARGUMENT, "not a loadable TorchScript module"},
      {"truncated file", "", truncated_path.c_str(), "torchscript", OMNIRT_TIER_EAGER,
       OMNIRT_STATUS_INVALID_ARGUMENT, "not a loadable TorchScript module"},
      {"not TorchScript", "def forward(x): return x", nullptr, "torchscript", OMNIRT_TIER_EAGER,
       OMNIRT_STATUS_INVALID_ARGUMENT, "not a loadable TorchScript module"},
      {"empty bytes", "", nullptr, "torchscript", OMNIRT_TIER_EAGER,
       OMNIRT_STATUS_INVALID_ARGUMENT, "module bytes are empty"},
      {"missing file", "", "/nonexistent/model.pt", "torchscript", OMNIRT_TIER_EAGER,
       OMNIRT_STATUS_NOT_FOUND, "module file '/nonexistent/model.pt': No such file or directory"},
      {"a directory", "", dir.c_str(), "torchscript", OMNIRT_TIER_EAGER,
       OMNIRT_STATUS_INVALID_ARGUMENT, "is not a regular file"},
      {"wrong format tag", bytes, nullptr, "onnx", OMNIRT_TIER_EAGER, OMNIRT_STATUS_NOT_SUPPORTED,
       "module format 'onnx' is not supported (supported: torchscript)"},
      {"override tier", bytes, nullptr, "torchscript", OMNIRT_TIER_OVERRIDE,
       OMNIRT_STATUS_INVALID_ARGUMENT, "tier 1 is not one the engine prepares"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    omnirt_executable* exe = nullptr;
    std::string data = c.bytes;
    if (c.path == nullptr && data.empty()) {
      // Empty bytes with a non-NULL pointer: the source still names bytes.
      omnirt_module_source source{sizeof(omnirt_module_source), c.format, "", 0, nullptr};
      EXPECT_EQ(cpu_.v().module_load(cpu_.s(), 0, &source, c.tier, nullptr, &exe), c.status);
    } else {
      EXPECT_EQ(cpu_.load(data, c.tier, &exe, c.format, c.path), c.status);
    }
    EXPECT_THAT(last_error().message, HasSubstr(c.message));
    EXPECT_EQ(exe, nullptr);
  }
  std::remove(truncated_path.c_str());
}

TEST_F(EngineTest, WrongInputsAreInvalidArgumentsNamingInputExpectedAndActual) {
  torch::jit::Module m = mlp();
  Executable exe(cpu_, bytes_of(m), OMNIRT_TIER_COMPILE);
  ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
  const at::Tensor x = at::randn({2, 16});
  std::vector<at::Tensor> out;
  auto expect_invalid = [&](const std::vector<DLTensor>& inputs, const std::string& fragment) {
    EXPECT_EQ(exe.run(inputs, out), OMNIRT_STATUS_INVALID_ARGUMENT);
    EXPECT_THAT(last_error().message, HasSubstr(fragment));
  };
  expect_invalid({}, "forward(x) takes 1 input, got 0");
  expect_invalid({dl(x), dl(x)}, "forward(x) takes 1 input, got 2");
  DLTensor t = dl(x);
  t.dtype = {kDLUInt, 16, 1};
  // libtorch's table decides: 1.13 has no uint16 (2.x has), none has lanes != 1.
  expect_invalid({t}, "input 0 ('x'): dtype uint16 is not supported");
  t.dtype = {kDLFloat, 32, 4};
  expect_invalid({t}, "input 0 ('x'): dtype float32x4 is not supported (libtorch: ");
  t = dl(x);
  t.device = {kDLCUDA, 1};
  expect_invalid({t}, "input 0 ('x'): device must be cpu:0, got cuda:1");
  t = dl(x);
  t.data = nullptr;
  expect_invalid({t}, "input 0 ('x'): data is NULL but the tensor has 32 elements");
  t = dl(x);
  t.ndim = -1;
  expect_invalid({t}, "input 0 ('x'): ndim must be 0..64");
  int64_t negative[] = {-16, 1};
  t = dl(x);
  t.strides = negative;
  expect_invalid({t}, "input 0 ('x'): strides[0] must be >= 0");
  expect_invalid({dl(at::randn({2, 5}))}, "forward failed");  // 5 features, not 16
}

TEST_F(EngineTest, ConcurrentRunsOfOneExecutableEachGetTheirOwnResult) {
  torch::jit::Module m = convnet();
  const std::string bytes = bytes_of(m);
  Executable exe(cpu_, bytes, OMNIRT_TIER_COMPILE);
  ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
  constexpr int kThreadsRunning = 4, kRuns = 15;
  std::vector<at::Tensor> inputs, expected;
  for (int i = 0; i < kThreadsRunning; ++i) {
    inputs.push_back(at::randn({1, 3, 16, 16}));
    expected.push_back(libtorch_forward(bytes, inputs.back()));
  }
  std::atomic<int> mismatches{0}, failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreadsRunning; ++i) {
    threads.emplace_back([&, i] {
      const std::vector<DLTensor> in = {dl(inputs[i])};
      for (int r = 0; r < kRuns; ++r) {
        std::vector<at::Tensor> out;
        if (exe.run(in, out) != OMNIRT_STATUS_OK || out.size() != 1) {
          ++failures;
        } else if (!at::allclose(out[0], expected[i], kCompileRtol, kCompileAtol)) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
}

int libtorch_threads_on_a_new_thread() {
  int threads = 0;
  std::thread([&] { threads = at::get_num_threads(); }).join();
  return threads;
}

omnirt_memory_stats memory(const CpuInstance& cpu) {
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  EXPECT_EQ(cpu.v().memory_stats(cpu.s(), 0, &stats), OMNIRT_STATUS_OK);
  return stats;
}

// What libtorch allocates for a module is in the backend's figures: its
// weights while it lives, a run's intermediates in the peak, its outputs
// until released; and nothing is left counted once all is gone.
TEST_F(EngineTest, TheModelsMemoryIsCountedAndGivenBack) {
  torch::jit::Module m = mlp();
  const std::string bytes = bytes_of(m);
  const uint64_t before = memory(cpu_).allocated_bytes;
  {
    Executable exe(cpu_, bytes, OMNIRT_TIER_EAGER);
    ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
    const omnirt_memory_stats loaded = memory(cpu_);
    EXPECT_NE(loaded.known & OMNIRT_STAT_MODULE_MEMORY, 0u);
    constexpr uint64_t kWeights = (16 * 32 + 32 + 32 * 8 + 8) * sizeof(float);
    EXPECT_GE(loaded.allocated_bytes, before + kWeights);

    ASSERT_EQ(cpu_.v().reset_memory_stats(cpu_.s(), 0), OMNIRT_STATUS_OK);
    const at::Tensor x = at::randn({64, 16});
    std::vector<at::Tensor> out = exe.run({x});
    ASSERT_EQ(out.size(), 1u);
    const omnirt_memory_stats ran = memory(cpu_);
    // The 64x32 hidden layer lived during the run; the 64x8 output still does.
    EXPECT_GE(ran.peak_bytes, loaded.allocated_bytes + 64 * 32 * sizeof(float));
    EXPECT_GE(ran.allocated_bytes, loaded.allocated_bytes + 64 * 8 * sizeof(float));
    EXPECT_GT(ran.alloc_count, 0u);
    out.clear();  // the output's deleter runs
    EXPECT_EQ(memory(cpu_).allocated_bytes, loaded.allocated_bytes);
  }
  EXPECT_EQ(memory(cpu_).allocated_bytes, before);
}

// The counting allocator sits in front of libtorch's for the whole process:
// libtorch used outside an engine call keeps working, raw allocations
// included, and is not counted.
TEST_F(EngineTest, OtherUsersOfLibtorchKeepWorkingAndAreNotCounted) {
  torch::jit::Module m = mlp();
  Executable exe(cpu_, bytes_of(m), OMNIRT_TIER_EAGER);  // installs the counting allocator
  ASSERT_EQ(exe.status(), OMNIRT_STATUS_OK) << last_error().message;
  const omnirt_memory_stats before = memory(cpu_);
  {
    const at::Tensor a = at::randn({256, 256});
    const at::Tensor b = at::matmul(a, a);
    EXPECT_EQ(b.size(0), 256);
    c10::Allocator* cpu_allocator = c10::GetCPUAllocator();
    void* raw = cpu_allocator->raw_allocate(4096);
    ASSERT_NE(raw, nullptr);
    std::memset(raw, 1, 4096);
    cpu_allocator->raw_deallocate(raw);
  }
  const omnirt_memory_stats after = memory(cpu_);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.alloc_count, before.alloc_count);
  // And the engine's own runs keep being counted.
  const std::vector<at::Tensor> out = exe.run({at::randn({2, 16})});
  EXPECT_GT(memory(cpu_).alloc_count, after.alloc_count);
}

TEST_F(EngineTest, ThreadsOptionSetsLibtorchsThreadsOnceForTheProcess) {
  torch::jit::Module m = mlp();
  const std::string bytes = bytes_of(m);
  Executable first(cpu_, bytes, OMNIRT_TIER_EAGER);
  ASSERT_EQ(first.status(), OMNIRT_STATUS_OK) << last_error().message;
  EXPECT_EQ(libtorch_threads_on_a_new_thread(), kThreads);

  CpuInstance other(OMNIRT_TEST_CPU_PLUGIN_PATH, {{"threads", "5"}});
  Executable second(other, bytes, OMNIRT_TIER_EAGER);
  EXPECT_EQ(second.status(), OMNIRT_STATUS_OK) << last_error().message;
  EXPECT_EQ(libtorch_threads_on_a_new_thread(), kThreads);
  EXPECT_THAT(logs(), testing::Contains(HasSubstr("libtorch already runs with 3 threads")));
}

TEST(EngineThreads, DefaultIsTheMachinesCores) {
  // A fresh process: libtorch's thread count is set once per process.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        CpuInstance cpu(OMNIRT_TEST_CPU_PLUGIN_PATH, {});
        torch::jit::Module m = mlp();
        Executable exe(cpu, bytes_of(m), OMNIRT_TIER_EAGER);
        const int cores = static_cast<int>(std::thread::hardware_concurrency());
        std::exit(exe.status() == OMNIRT_STATUS_OK && libtorch_threads_on_a_new_thread() == cores
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace omnirt::engine_testing
