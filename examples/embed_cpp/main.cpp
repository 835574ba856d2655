// Embedding OmniRT from C++: the same steps as embed_c (host, backend,
// wrap_module, run, report) with omnirt/cpp/host.hpp's Host and Backend, and
// RAII owners for the module and report handles it does not wrap, so that no
// early return leaks one.
//
//   embed_cpp MODEL.pt SHAPE [BACKEND]      e.g. embed_cpp mlp.pt 2x16 cpu
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "omnirt/cpp/host.hpp"

namespace {

template <class T, void (*Destroy)(T*)>
struct Deleter {
  void operator()(T* p) const { Destroy(p); }
};
using Report = std::unique_ptr<omnirt_report, Deleter<omnirt_report, omnirt_report_destroy>>;
using Module = std::unique_ptr<omnirt_module, Deleter<omnirt_module, omnirt_module_destroy>>;

// Outputs of one run, each released through its own deleter.
struct Outputs {
  ~Outputs() {
    for (size_t i = 0; i < count; ++i) slots[i]->deleter(slots[i]);
  }
  DLManagedTensor* slots[8] = {};
  size_t count = 0;
};

void check(omnirt_status status, const std::string& what) {
  if (status != OMNIRT_STATUS_OK) {
    throw std::runtime_error(what + " failed: " + omnirt_status_name(status) + ": " +
                             omnirt_last_error()->message);
  }
}

std::vector<int64_t> parse_shape(const std::string& text) {
  std::vector<int64_t> shape;
  std::istringstream in(text);
  std::string part;
  while (std::getline(in, part, 'x')) shape.push_back(std::stoll(part));
  return shape;
}

std::string json_of(omnirt_report* report) {
  char* text = nullptr;
  check(omnirt_report_to_json(report, &text), "render report");
  std::string json = text;
  omnirt_string_free(text);
  return json;
}

void print_timeline(const omnirt_module* module) {
  static const char* const tiers[] = {"compile", "override", "eager"};
  std::printf("timeline:\n");
  for (size_t i = 0; i < omnirt_module_attempt_count(module); ++i) {
    omnirt_attempt a{};
    a.struct_size = sizeof a;
    check(omnirt_module_get_attempt(module, i, &a), "read attempt");
    std::printf("  %-8s %-16s %8.3f ms  %s\n",
                a.tier >= 0 && a.tier <= 2 ? tiers[a.tier] : "unknown",
                a.selected ? "ok, selected" : omnirt_status_name(a.status),
                static_cast<double>(a.elapsed_ns) / 1e6, a.reason);
  }
}

int run(const std::string& model, std::vector<int64_t> shape, const char* backend_name) {
  omnirt::Host host;
  check(host.create(), "create host");
  omnirt::Backend backend;
  check(host.backend(backend_name, &backend), "select backend");
  omnirt_report* raw_report = nullptr;
  check(omnirt_report_create(backend.get(), nullptr, &raw_report), "create report");
  Report report(raw_report);

  omnirt_module_source source{};
  source.struct_size = sizeof source;
  source.format = "torchscript";
  source.path = model.c_str();
  omnirt_module* raw_module = nullptr;
  const omnirt_status wrapped =
      omnirt_wrap_module(backend.get(), &source, "example", nullptr, report.get(), &raw_module);
  if (wrapped != OMNIRT_STATUS_OK) {
    std::cerr << "wrap_module failed: " << omnirt::last_error().message << "\n";
    std::cout << "report:\n" << json_of(report.get()) << "\n";  // the timeline says why
    return 1;
  }
  Module module(raw_module);
  print_timeline(module.get());

  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  std::vector<float> data(static_cast<size_t>(numel), 0.5f);
  DLTensor input{};
  input.data = data.data();
  input.device = DLDevice{kDLCPU, 0};  // host memory: for backends computing on it (cpu)
  input.ndim = static_cast<int32_t>(shape.size());
  input.dtype = DLDataType{kDLFloat, 32, 1};
  input.shape = shape.data();
  Outputs outputs;
  check(omnirt_module_run(module.get(), &input, 1, nullptr, outputs.slots, 8, &outputs.count,
                          report.get()),
        "run");
  for (size_t i = 0; i < outputs.count; ++i) {
    const DLTensor& t = outputs.slots[i]->dl_tensor;
    std::printf("output %zu: shape ", i);
    for (int32_t d = 0; d < t.ndim; ++d)
      std::printf("%s%lld", d > 0 ? "x" : "", static_cast<long long>(t.shape[d]));
    std::printf(", dtype code %u bits %u\n", t.dtype.code, t.dtype.bits);
  }
  std::cout << "report:\n" << json_of(report.get()) << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: " << argv[0] << " MODEL.pt SHAPE [BACKEND]   (SHAPE like 1x3x224x224)\n";
    return 2;
  }
  try {
    return run(argv[1], parse_shape(argv[2]), argc > 3 ? argv[3] : "auto");
  } catch (const std::exception& e) {
    std::cerr << "embed_cpp: " << e.what() << "\n";
    return 1;
  }
}
