// Issue 15 item 5 on cuda: a module's memory is in the backend's figures.
// The engine's modules take their device memory from the backend's
// allocator (plugins/cuda/engine/engine_memory.h): loading a module raises
// memory_stats by at least its weights and sets OMNIRT_STAT_MODULE_MEMORY, a
// run's outputs are counted while held, destroying the module and releasing
// its outputs gives the memory back, the compile tier's CUDA graphs still
// match the module run directly, and PyTorch used by the embedder outside
// engine calls is left to PyTorch's own allocator. Skipped with the reason
// where CUDA cannot run, or where the engine cannot route (libtorch < 2.8).
#include <gtest/gtest.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <torch/cuda.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cuda_plugin.h"
#include "torch_helpers.h"

namespace omnirt::cuda_test {
namespace {

constexpr int64_t kWidth = 2048;  // two 2048x2048 f32 weights: 32 MiB
constexpr int kLayers = 2;
constexpr uint64_t kWeightBytes = uint64_t(kLayers) * (kWidth * kWidth + kWidth) * sizeof(float);
// The weight matrices alone: 16 MiB each, a segment of their own. The biases
// share a small segment with other tensors (an output held keeps it).
constexpr uint64_t kMatrixBytes = uint64_t(kLayers) * kWidth * kWidth * sizeof(float);

omnirt_memory_stats stats_of(const CudaPlugin& plugin) {
  omnirt_memory_stats s{};
  s.struct_size = sizeof s;
  EXPECT_EQ(plugin.vt()->memory_stats(plugin.state(), 0, &s), OMNIRT_STATUS_OK) << last_error();
  return s;
}

// A module of `plugin`, loaded from `bytes` for `tier`, and its runs.
class Loaded {
 public:
  Loaded(const CudaPlugin& plugin, const std::string& bytes, int32_t tier) : plugin_(plugin) {
    const omnirt_module_source source = {sizeof source, "torchscript", bytes.data(), bytes.size(),
                                         nullptr};
    EXPECT_EQ(plugin_.vt()->module_load(plugin_.state(), 0, &source, tier, "mlp", &exe_),
              OMNIRT_STATUS_OK)
        << last_error();
  }
  ~Loaded() { destroy(); }
  Loaded(const Loaded&) = delete;
  Loaded& operator=(const Loaded&) = delete;

  bool ok() const { return exe_ != nullptr; }
  // One run on the default stream; the output is the caller's.
  DLManagedTensor* run(const at::Tensor& x) {
    const DLTensor in = dl_view(x);
    DLManagedTensor* out = nullptr;
    size_t count = 0;
    EXPECT_EQ(plugin_.vt()->executable_run(plugin_.state(), exe_, &in, 1, nullptr, &out, 1, &count),
              OMNIRT_STATUS_OK)
        << last_error();
    torch::cuda::synchronize();
    return out;
  }
  void destroy() {
    if (exe_ != nullptr) EXPECT_EQ(plugin_.vt()->executable_destroy(plugin_.state(), exe_), OMNIRT_STATUS_OK);
    exe_ = nullptr;
  }

 private:
  const CudaPlugin& plugin_;
  omnirt_executable* exe_ = nullptr;
};

class CudaEngineMemoryTest : public ::testing::TestWithParam<int32_t> {
 protected:
  void SetUp() override {
    const std::string why = gpu_unavailable(plugin_);
    if (!why.empty()) GTEST_SKIP() << why;
    // Before the engine is loaded the bit says whether the build can route.
    if ((stats_of(plugin_).known & OMNIRT_STAT_MODULE_MEMORY) == 0) {
      GTEST_SKIP() << "this engine's libtorch cannot give modules' memory to the backend "
                      "(plugins/cuda/engine/CMakeLists.txt says why)";
    }
    last_warning().clear();
    bytes_ = mlp_torchscript(kWidth, kLayers);
    std::istringstream stream(bytes_);
    reference_ = torch::jit::load(stream, torch::kCUDA);
    reference_.eval();
  }
  at::Tensor expected(const at::Tensor& x) {
    torch::NoGradGuard no_grad;
    return reference_.forward({x}).toTensor();
  }

  CudaPlugin plugin_;
  std::string bytes_;
  torch::jit::Module reference_;
};

TEST_P(CudaEngineMemoryTest, LoadCountsTheWeightsAndDestroyGivesThemBack) {
  const omnirt_memory_stats before = stats_of(plugin_);
  auto module = std::make_unique<Loaded>(plugin_, bytes_, GetParam());
  ASSERT_TRUE(module->ok());
  const omnirt_memory_stats loaded = stats_of(plugin_);
  std::printf("[ figures ] before %llu, loaded %llu allocated bytes (weights %llu)\n",
              (unsigned long long)before.allocated_bytes, (unsigned long long)loaded.allocated_bytes,
              (unsigned long long)kWeightBytes);
  EXPECT_NE(loaded.known & OMNIRT_STAT_MODULE_MEMORY, 0u) << "the engine no longer counts";
  EXPECT_GE(loaded.allocated_bytes, before.allocated_bytes + kWeightBytes);
  EXPECT_GE(loaded.peak_bytes, before.allocated_bytes + kWeightBytes);
  EXPECT_GT(loaded.alloc_count, before.alloc_count);

  const at::Tensor x = torch::randn({1, kWidth}, torch::TensorOptions().device(torch::kCUDA));
  for (int i = 0; i < 5; ++i) {  // the compile tier warms up, captures, then replays
    DLManagedTensor* out = module->run(x);
    ASSERT_NE(out, nullptr);
    EXPECT_TRUE(torch::allclose(as_tensor(out), expected(x), 1e-3, 1e-3)) << "run " << i;
    out->deleter(out);
  }
  EXPECT_EQ(last_warning().find("capture failed"), std::string::npos) << last_warning();
  const omnirt_memory_stats ran = stats_of(plugin_);
  module->destroy();
  const omnirt_memory_stats destroyed = stats_of(plugin_);
  std::printf("[ figures ] after runs %llu, destroyed %llu allocated bytes\n",
              (unsigned long long)ran.allocated_bytes, (unsigned long long)destroyed.allocated_bytes);
  EXPECT_GE(ran.allocated_bytes, destroyed.allocated_bytes + kWeightBytes);
  EXPECT_LE(destroyed.allocated_bytes, loaded.allocated_bytes - kWeightBytes);
}

// An output is counted while held and stays valid after its module is
// destroyed; releasing it gives its memory back.
TEST_P(CudaEngineMemoryTest, OutputsAreCountedWhileHeldAndOutliveTheModule) {
  auto module = std::make_unique<Loaded>(plugin_, bytes_, GetParam());
  ASSERT_TRUE(module->ok());
  const at::Tensor x = torch::randn({4, kWidth}, torch::TensorOptions().device(torch::kCUDA));
  const at::Tensor want = expected(x);
  DLManagedTensor* first = module->run(x);  // compile tier: a graph's static output
  ASSERT_NE(first, nullptr);
  const omnirt_memory_stats one = stats_of(plugin_);
  std::vector<DLManagedTensor*> held;
  if (GetParam() == OMNIRT_TIER_EAGER) {
    // Each held output takes a new block of the module's pool; 600 of 32 KiB
    // outgrow the first 2 MiB segments, so the figures rise.
    for (int i = 0; i < 600; ++i) held.push_back(module->run(x));
    const omnirt_memory_stats many = stats_of(plugin_);
    std::printf("[ figures ] one output held %llu, 601 held %llu allocated bytes\n",
                (unsigned long long)one.allocated_bytes, (unsigned long long)many.allocated_bytes);
    EXPECT_GE(many.allocated_bytes, one.allocated_bytes + 600 * 4 * kWidth * sizeof(float) / 2);
  }
  const omnirt_memory_stats before_destroy = stats_of(plugin_);
  module->destroy();
  const omnirt_memory_stats destroyed = stats_of(plugin_);
  EXPECT_GE(before_destroy.allocated_bytes, destroyed.allocated_bytes + kMatrixBytes)
      << "a held output kept the weights";
  EXPECT_TRUE(torch::allclose(as_tensor(first), want, 1e-3, 1e-3));
  for (DLManagedTensor* t : held) EXPECT_TRUE(torch::allclose(as_tensor(t), want, 1e-3, 1e-3));
  first->deleter(first);
  for (DLManagedTensor* t : held) t->deleter(t);
  const omnirt_memory_stats released = stats_of(plugin_);
  std::printf("[ figures ] module destroyed %llu, outputs released %llu allocated bytes\n",
              (unsigned long long)destroyed.allocated_bytes,
              (unsigned long long)released.allocated_bytes);
  EXPECT_LT(released.allocated_bytes, destroyed.allocated_bytes);
}

// What the embedder allocates with PyTorch outside engine calls, on the
// same device and thread, stays PyTorch's.
TEST_P(CudaEngineMemoryTest, TheEmbeddersPyTorchIsNotRouted) {
  Loaded module(plugin_, bytes_, GetParam());
  ASSERT_TRUE(module.ok());
  const at::Tensor x = torch::randn({1, kWidth}, torch::TensorOptions().device(torch::kCUDA));
  DLManagedTensor* out = module.run(x);
  const omnirt_memory_stats before = stats_of(plugin_);
  at::Tensor mine = torch::empty({64 << 20}, torch::TensorOptions().device(torch::kCUDA));
  at::Tensor product = torch::mm(x.view({kWidth, 1}), x);  // 16 MiB, cuBLAS
  torch::cuda::synchronize();
  const omnirt_memory_stats after = stats_of(plugin_);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.alloc_count, before.alloc_count);
  out->deleter(out);
}

// A backend destroyed while one of its module's outputs is held: the output
// stays valid, and releasing it later calls into nothing that is gone.
TEST_P(CudaEngineMemoryTest, OutputsOutliveTheirBackend) {
  auto other = std::make_unique<CudaPlugin>();
  DLManagedTensor* out = nullptr;
  const at::Tensor x = torch::randn({2, kWidth}, torch::TensorOptions().device(torch::kCUDA));
  {
    Loaded module(*other, bytes_, GetParam());
    ASSERT_TRUE(module.ok());
    out = module.run(x);
    ASSERT_NE(out, nullptr);
  }
  other.reset();  // destroyed; the fixture's instance keeps the plugin loaded
  EXPECT_TRUE(torch::allclose(as_tensor(out), expected(x), 1e-3, 1e-3));
  out->deleter(out);
  c10::cuda::CUDACachingAllocator::emptyCache();
  torch::cuda::synchronize();
}

INSTANTIATE_TEST_SUITE_P(Tiers, CudaEngineMemoryTest,
                         ::testing::Values(int32_t{OMNIRT_TIER_COMPILE}, int32_t{OMNIRT_TIER_EAGER}),
                         [](const auto& param_info) {
                           return std::string(param_info.param == OMNIRT_TIER_COMPILE ? "Compile"
                                                                                      : "Eager");
                         });

}  // namespace
}  // namespace omnirt::cuda_test
