// A fake backend for the wrap_module tests, built twice (see CMakeLists.txt):
//   wrapfake: host memory (kDLCPU), no named ops;
//   wrapdev:  "device" memory (kDLExtDev, really host memory), its own ops.
// Modules are text in format "fake": "fake: compile=ok eager=fail load_ms=5"
// says which tiers load (default ok) and how long loading takes;
// "warn=WORD" makes the first run log WORD as a warning, as a plugin does of
// a run that went another way than its tier promises. An executable takes
// one float32 tensor and returns it times two. Format "fakepkg" is one the
// backend knows of but cannot load here. With FAKE_WITH_ENGINE_PREPARE
// (wrapfake) its "engine" loads ahead through engine_prepare, taking
// kEngineLoadMs the first time; option engine=broken makes that load fail.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "omnirt/cpp/plugin.hpp"

#ifndef FAKE_NAME
#error "FAKE_NAME must name the backend"
#endif
#ifndef FAKE_DEVICE_TYPE
#error "FAKE_DEVICE_TYPE must be a DLDeviceType"
#endif

using omnirt::plugin::fail;

namespace {

struct FakeExecutable {
  int32_t tier;
  std::string warning;  // logged by the first run
  std::atomic<bool> warned{false};
};

struct Output {
  DLManagedTensor managed{};
  std::vector<int64_t> shape;
  std::vector<float> data;
};

void release(DLManagedTensor* self) { delete static_cast<Output*>(self->manager_ctx); }

// "key=value" of a fake module's text, or "" when absent.
std::string field(const std::string& text, const std::string& key) {
  std::istringstream words(text);
  std::string word;
  while (words >> word) {
    if (word.rfind(key + "=", 0) == 0) return word.substr(key.size() + 1);
  }
  return "";
}

class FakeBackend {
 public:
  explicit FakeBackend(const omnirt_backend_create_args& args)
      : engine_broken_(omnirt::plugin::Options(args).get("engine") == "broken") {
    omnirt::plugin::Options(args).check_keys(FAKE_NAME, {"engine"});
  }

  omnirt::plugin::Availability is_available() { return {true, ""}; }

  void capabilities(omnirt_capabilities& caps) {
    static const char* const formats[] = {"fake"};
    static const omnirt_module_format_unavailable unavailable[] = {
        {"fakepkg", "fake: built without the fakepkg loader"}};
    caps.dl_device_type = FAKE_DEVICE_TYPE;
    caps.device_count = 1;
    caps.features = OMNIRT_FEATURE_MODULES | OMNIRT_FEATURE_COMPILE | OMNIRT_FEATURE_MEMORY_STATS;
#ifdef FAKE_WITH_OPS
    caps.features |= OMNIRT_FEATURE_NAMED_OPS;
#endif
#ifdef FAKE_WITH_ENGINE_PREPARE
    caps.features |= OMNIRT_FEATURE_ENGINE_PREPARE;
#endif
    caps.dtypes = 1u << OMNIRT_DTYPE_F32;
    caps.vendor = "fake";
    caps.module_formats = formats;
    caps.num_module_formats = 1;
    caps.unavailable_module_formats = unavailable;
    caps.num_unavailable_module_formats = 1;
  }

  int32_t device_count() { return 1; }
  void device_info(int32_t, omnirt_device_info& info) {
    std::strcpy(info.name, "fake device");
    info.dl_device_type = FAKE_DEVICE_TYPE;
  }

  void* malloc_device(int32_t, size_t size) {
    if (size == 0) return nullptr;
    void* p = std::aligned_alloc(256, (size + 255) / 256 * 256);
    if (p == nullptr) fail(OMNIRT_STATUS_OUT_OF_MEMORY, "fake: out of memory");
    allocated_ += size;
    ++allocs_;
    sizes_mutex_.lock();
    sizes_[p] = size;
    sizes_mutex_.unlock();
    return p;
  }
  void free_device(int32_t, void* ptr) {
    if (ptr == nullptr) return;
    sizes_mutex_.lock();
    allocated_ -= sizes_[ptr];
    sizes_.erase(ptr);
    sizes_mutex_.unlock();
    std::free(ptr);
  }
  void memcpy_sync(void* dst, const void* src, size_t size, int32_t) {
    std::memcpy(dst, src, size);
  }
  void memset_sync(void* ptr, int32_t value, size_t size) { std::memset(ptr, value, size); }
  void device_synchronize(int32_t) {}

  // Knows two fields only, so the report's "known" list is tested.
  void memory_stats(int32_t, omnirt_memory_stats& stats) {
    stats.known = OMNIRT_STAT_ALLOCATED_BYTES | OMNIRT_STAT_ALLOC_COUNT;
    stats.allocated_bytes = allocated_;
    stats.alloc_count = allocs_;
  }

  omnirt_executable* module_load(int32_t, const omnirt_module_source& source, int32_t tier,
                                 const char*) {
    std::string text;
    if (source.data != nullptr) {
      text.assign(static_cast<const char*>(source.data), source.size);
    } else {
      std::ifstream file(source.path, std::ios::binary);
      if (!file) fail(OMNIRT_STATUS_NOT_FOUND, std::string("fake: cannot open ") + source.path);
      text.assign(std::istreambuf_iterator<char>(file), {});
    }
    if (text.rfind("fake:", 0) != 0) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, "fake: module does not start with 'fake:'");
    }
    const std::string load_ms = field(text, "load_ms");
    if (!load_ms.empty())
      std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(load_ms)));
    const char* tier_key = tier == OMNIRT_TIER_COMPILE ? "compile" : "eager";
    if (field(text, tier_key) == "fail") {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string("fake: ") + tier_key + " failure requested");
    }
    if (field(text, tier_key) == "null") return nullptr;  // a broken plugin: OK but nothing
    return reinterpret_cast<omnirt_executable*>(new FakeExecutable{tier, field(text, "warn")});
  }

  omnirt_status executable_run(omnirt_executable* executable, const DLTensor* inputs,
                               size_t num_inputs, omnirt_stream*, DLManagedTensor** outputs,
                               size_t capacity, size_t* num_outputs) {
    auto* exe = reinterpret_cast<FakeExecutable*>(executable);
    if (!exe->warning.empty() && !exe->warned.exchange(true)) {
      omnirt::plugin::log(OMNIRT_LOG_WARN, exe->warning);
    }
    if (num_inputs != 1) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT,
           "fake: expected 1 input, got " + std::to_string(num_inputs));
    }
    const DLTensor& in = inputs[0];
    if (in.dtype.code != kDLFloat || in.dtype.bits != 32) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, "input 0: expected dtype float32, got code " +
                                               std::to_string(in.dtype.code) + " bits " +
                                               std::to_string(in.dtype.bits));
    }
    *num_outputs = 1;
    if (capacity < 1) return OMNIRT_STATUS_OUT_OF_RANGE;
    auto* out = new Output;
    out->shape.assign(in.shape, in.shape + in.ndim);
    size_t n = 1;
    for (int64_t d : out->shape) n *= static_cast<size_t>(d);
    out->data.resize(n);
    const float* src = static_cast<const float*>(in.data);
    for (size_t i = 0; i < n; ++i) out->data[i] = 2.0f * src[i];
    DLTensor& t = out->managed.dl_tensor;
    t.data = out->data.data();
    t.device = in.device;
    t.ndim = in.ndim;
    t.dtype = in.dtype;
    t.shape = out->shape.data();
    out->managed.manager_ctx = out;
    out->managed.deleter = &release;
    outputs[0] = &out->managed;
    return OMNIRT_STATUS_OK;
  }

  void executable_destroy(omnirt_executable* exe) { delete reinterpret_cast<FakeExecutable*>(exe); }

#ifdef FAKE_WITH_ENGINE_PREPARE
  static constexpr int kEngineLoadMs = 40;
  std::string engine_prepare(const char* format) {
    if (std::strcmp(format, "fake") != 0) {
      fail(OMNIRT_STATUS_NOT_SUPPORTED, std::string("fake: no engine for format '") + format + "'");
    }
    if (engine_broken_) fail(OMNIRT_STATUS_UNAVAILABLE, "fake: the engine is broken on purpose");
    std::call_once(engine_loaded_, [] {
      std::this_thread::sleep_for(std::chrono::milliseconds(kEngineLoadMs));
    });
    return "fake engine 1.0";
  }
#endif

#ifdef FAKE_WITH_OPS
  // "rms_norm" shadows the base op (so it is listed as overridden); "twice"
  // exists only here. Both write 2 * input 0, so tests can tell them from
  // the base kernel.
  void list_ops(const omnirt_op_decl** ops, size_t* count) {
    static const omnirt_op_decl decls[] = {{"rms_norm", "omnirt.nn", 2, 1},
                                           {"twice", "fake.ops", 1, 1}};
    *ops = decls;
    *count = 2;
  }
  void op_run(const char*, const DLTensor* inputs, size_t, DLTensor* outputs, size_t,
              const omnirt_op_attr*, size_t, omnirt_stream*) {
    const size_t n = static_cast<size_t>(numel(inputs[0]));
    const float* src = static_cast<const float*>(inputs[0].data);
    float* dst = static_cast<float*>(outputs[0].data);
    for (size_t i = 0; i < n; ++i) dst[i] = 2.0f * src[i];
  }
  static int64_t numel(const DLTensor& t) {
    int64_t n = 1;
    for (int32_t i = 0; i < t.ndim; ++i) n *= t.shape[i];
    return n;
  }
#endif

 private:
  const bool engine_broken_;
  std::once_flag engine_loaded_;
  std::atomic<uint64_t> allocated_{0};
  std::atomic<uint64_t> allocs_{0};
  std::mutex sizes_mutex_;
  std::map<void*, size_t> sizes_;
};

}  // namespace

OMNIRT_DEFINE_BACKEND(FakeBackend, FAKE_NAME, "0.0.1")
