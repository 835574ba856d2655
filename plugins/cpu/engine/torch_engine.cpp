// libomnirt_cpu_engine.so: the cpu plugin's TorchScript engine behind the C
// table of engine_api.h. Every libtorch exception stops at this file's edge.
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <caffe2/serialize/read_adapter_interface.h>
#include <sys/stat.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/version.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>

#include "counting_allocator.h"
#include "dlpack_io.h"
#include "engine_api.h"
#include "omnirt/cpp/plugin.hpp"
#include "torch_engine/exported_tensor.h"
#include "torch_engine/warning_capture.h"

using omnirt::plugin::fail;
using omnirt::torch_common::ForwardSignature;

namespace {
constexpr const char* kEngine = "the cpu engine";
}  // namespace

struct omnirt_cpu_engine_module {
  torch::jit::Module module;
  torch::jit::Method forward;  // looked up once, not per run
  ForwardSignature signature;

  // Refuses, at load, a forward whose arguments or result it cannot pass.
  explicit omnirt_cpu_engine_module(torch::jit::Module m)
      : module(std::move(m)),
        forward(module.get_method("forward")),
        signature(ForwardSignature::of(forward.function().getSchema(), kEngine)) {
    omnirt::torch_common::check_result_type(forward.function().getSchema(), kEngine);
  }
};

namespace {

void write_message(const std::string& text, char* message, size_t capacity) noexcept {
  if (message == nullptr || capacity == 0) return;
  const size_t n = std::min(text.size(), capacity - 1);
  std::memcpy(message, text.data(), n);
  message[n] = '\0';
}

// Runs `f`; turns any exception into a status and a message. Our own errors
// keep theirs; libtorch's (c10::Error, and std::runtime_error from TorchScript
// `raise` and the deserializer) get `torch_status` and `context` before them.
template <class F>
omnirt_status guarded(omnirt_status torch_status, const char* context, char* message,
                      size_t capacity, F&& f) noexcept {
  auto report = [&](omnirt_status status, const char* text, const char* prefix = "") noexcept {
    try {
      write_message(std::string(prefix) + text, message, capacity);
    } catch (...) {  // building the text needs memory; the status alone must get through
    }
    return status;
  };
  try {
    f();
    return OMNIRT_STATUS_OK;
  } catch (const omnirt::plugin::Error& e) {
    return report(e.status(), e.what());
  } catch (const c10::NotImplementedError& e) {
    return report(OMNIRT_STATUS_NOT_SUPPORTED, e.what_without_backtrace(), context);
  } catch (const c10::OutOfMemoryError& e) {
    return report(OMNIRT_STATUS_OUT_OF_MEMORY, e.what_without_backtrace(), context);
  } catch (const c10::Error& e) {
    return report(torch_status, e.what_without_backtrace(), context);
  } catch (const std::bad_alloc&) {
    return report(OMNIRT_STATUS_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return report(torch_status, e.what(), context);
  } catch (...) {
    return report(OMNIRT_STATUS_INTERNAL, "unknown exception in libtorch");
  }
}

// Serves torch::jit::load straight from the caller's bytes, without a copy.
class BytesReader final : public caffe2::serialize::ReadAdapterInterface {
 public:
  BytesReader(const void* data, size_t size) : data_(static_cast<const char*>(data)), size_(size) {}
  size_t size() const override { return size_; }
  size_t read(uint64_t pos, void* buf, size_t n, const char* /*what*/) const override {
    if (pos >= size_) return 0;
    n = std::min<size_t>(n, size_ - static_cast<size_t>(pos));
    std::memcpy(buf, data_ + pos, n);
    return n;
  }

 private:
  const char* data_;
  size_t size_;
};

void check_file(const char* path) {
  struct stat st;
  if (::stat(path, &st) != 0) {
    const int err = errno;
    fail(err == ENOENT ? OMNIRT_STATUS_NOT_FOUND : OMNIRT_STATUS_INVALID_ARGUMENT,
         std::string("module file '") + path + "': " + std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    fail(OMNIRT_STATUS_INVALID_ARGUMENT, std::string("module file '") + path + "' is not a regular file");
  }
}

std::mutex threads_mutex;
int32_t threads_in_force = 0;  // 0: not configured by the engine yet

omnirt_status configure_threads(int32_t threads, char* message, size_t capacity) noexcept {
  return guarded(OMNIRT_STATUS_INTERNAL, "configuring libtorch threads: ", message, capacity, [&] {
    if (threads <= 0) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, "threads must be > 0, got " + std::to_string(threads));
    }
    std::lock_guard<std::mutex> lock(threads_mutex);
    if (threads_in_force == threads) return;
    if (threads_in_force != 0) {
      fail(OMNIRT_STATUS_ALREADY_EXISTS,
           "libtorch already runs with " + std::to_string(threads_in_force) +
               " threads in this process; " + std::to_string(threads) + " not applied");
    }
    at::set_num_threads(threads);
    try {
      at::set_num_interop_threads(threads);
    } catch (const c10::Error&) {
      // The embedder started libtorch's inter-op pool before us; it stays as
      // it is. A single forward runs on the intra-op threads set above.
    }
    threads_in_force = threads;
  });
}

omnirt_status load(const void* data, size_t size, const char* path, int32_t tier,
                   omnirt_cpu_engine_module** out, char* message, size_t capacity) noexcept {
  omnirt::torch_common::WarningCapture warnings;
  torch::jit::Module module;
  omnirt_status status = guarded(
      OMNIRT_STATUS_INVALID_ARGUMENT, "not a loadable TorchScript module: ", message, capacity, [&] {
        if (tier != OMNIRT_TIER_COMPILE && tier != OMNIRT_TIER_EAGER) {
          fail(OMNIRT_STATUS_INVALID_ARGUMENT,
               "tier " + std::to_string(tier) + " is not one the engine prepares (compile or eager)");
        }
        if (data != nullptr) {
          if (size == 0) fail(OMNIRT_STATUS_INVALID_ARGUMENT, "module bytes are empty (size 0)");
          module = torch::jit::load(std::make_shared<BytesReader>(data, size));
        } else {
          if (path == nullptr) fail(OMNIRT_STATUS_INVALID_ARGUMENT, "neither bytes nor a path given");
          check_file(path);
          module = torch::jit::load(std::string(path));
        }
        // Scripted modules carry `training`; a module built in C++ may not,
        // and Module::eval() asserts on those.
        if (module.hasattr("training")) module.eval();
      });
  if (status != OMNIRT_STATUS_OK) return status;
  if (tier == OMNIRT_TIER_COMPILE) {
    status = guarded(OMNIRT_STATUS_NOT_SUPPORTED,
                     "compile tier (freeze + optimize_for_inference) failed: ", message, capacity,
                     [&] {
                       torch::jit::Module frozen = torch::jit::freeze(module);
                       module = torch::jit::optimize_for_inference(frozen);
                     });
    if (status != OMNIRT_STATUS_OK) return status;
  }
  return guarded(OMNIRT_STATUS_INVALID_ARGUMENT, "module has no usable forward: ", message,
                 capacity, [&] {
    *out = new omnirt_cpu_engine_module(std::move(module));
  });
}

omnirt_status run(omnirt_cpu_engine_module* m, const DLTensor* inputs, size_t num_inputs,
                  DLManagedTensor** outputs, size_t output_capacity, size_t* num_outputs,
                  char* message, size_t capacity) noexcept {
  omnirt::torch_common::WarningCapture warnings;
  return guarded(OMNIRT_STATUS_INVALID_ARGUMENT, "forward failed: ", message, capacity, [&] {
    c10::InferenceMode inference;
    const std::vector<c10::IValue> args =
        omnirt::cpu_engine::wrap_inputs(m->signature, inputs, num_inputs);
    // forward's stack, a copy: `args` stays for take_outputs' alias check.
    // Room for the `self` that Method::operator() inserts first, so that the
    // insert does not reallocate.
    std::vector<c10::IValue> stack;
    stack.reserve(args.size() + 1);
    stack.assign(args.begin(), args.end());
    std::vector<omnirt::torch_common::NamedTensor> results =
        omnirt::cpu_engine::take_outputs(m->forward(std::move(stack)), args);
    *num_outputs = results.size();
    if (results.size() > output_capacity) {
      fail(OMNIRT_STATUS_OUT_OF_RANGE, "forward returned " + std::to_string(results.size()) +
                                           " tensors, output capacity is " +
                                           std::to_string(output_capacity));
    }
    // Exporting only allocates a small holder; export all before handing any
    // out, so a failure leaves the caller nothing to release.
    std::vector<std::unique_ptr<DLManagedTensor, void (*)(DLManagedTensor*)>> exported;
    exported.reserve(results.size());
    for (omnirt::torch_common::NamedTensor& r : results) {
      exported.emplace_back(
          omnirt::torch_common::export_tensor(std::move(r.tensor), std::move(r.name), m),
          [](DLManagedTensor* p) { p->deleter(p); });
    }
    for (size_t i = 0; i < exported.size(); ++i) outputs[i] = exported[i].release();
  });
}

void destroy(omnirt_cpu_engine_module* m) noexcept { delete m; }

omnirt_status output_name(omnirt_cpu_engine_module* m, const DLManagedTensor* output,
                          const char** name, char* message, size_t capacity) noexcept {
  return guarded(OMNIRT_STATUS_INVALID_ARGUMENT, "", message, capacity, [&] {
    *name = omnirt::torch_common::exported_name(output, m);
    if (*name == nullptr) {
      fail(OMNIRT_STATUS_INVALID_ARGUMENT, "the output is not one this module's runs returned");
    }
  });
}

const omnirt_cpu_engine_api kApi = {
    sizeof(omnirt_cpu_engine_api),
    OMNIRT_CPU_ENGINE_API_VERSION,
    "libtorch " TORCH_VERSION,
    &configure_threads,
    &load,
    &run,
    &destroy,
    &output_name,
    &omnirt::torch_common::set_warning_sink,
    [](const omnirt_cpu_engine_ledger* ledger) -> const void* {
      try {
        return omnirt::cpu_engine::begin_scope(ledger);
      } catch (...) {  // installing needs memory: then nothing is counted
        return omnirt::cpu_engine::begin_scope(nullptr);
      }
    },
    [](const void* previous) {
      omnirt::cpu_engine::end_scope(static_cast<const omnirt_cpu_engine_ledger*>(previous));
    },
    []() -> int32_t { return omnirt::cpu_engine::memory_counted() ? 1 : 0; },
};

}  // namespace

extern "C" OMNIRT_EXPORT const omnirt_cpu_engine_api* omnirt_cpu_engine_get(void) { return &kApi; }
