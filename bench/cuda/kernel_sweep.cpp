#include "kernel_sweep.h"

#include <torch/cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench_fatbin.h"
#include "kernels/row_configs.h"
#include "launch_plan.h"
#include "op_cases.h"
#include "sweep_configs.h"
#include "torch_helpers.h"

namespace omnirt::cuda_test {
namespace {

namespace kernels = omnirt::cuda::kernels;

constexpr int kSweepRounds = 7;
constexpr double kSweepRoundSeconds = 1e-3;
constexpr int kThreadsPerSm = 2048;  // as the planner assumes (launch_plan.cpp)

// kRegisters: the row in registers as floats; kPacked: in its 16-bit form
// (f16/bf16 alone); kLoop: a block of kLoopThreads per row holding none of it (lanes,
// packs, rows unused); kShared: softmax's 16-bit row in shared memory ("sh",
// packs: loaded at once; 0: the plugin's, copied by the engine on sm_90), or
// layer_norm's (the plugin's "sh", packs: kSharedNormPacks).
enum class Holding { kRegisters, kPacked, kLoop, kShared };

struct Config {
  const char* suffix;
  int lanes, packs, rows;
  Holding holding;
  int most_threads = kernels::kMaxRowThreads;  // of a whole-block configuration
  // The list of row_configs.h whose kernels it is like: its dtypes
  // (row_list_has_dtype) and whether the plugin's kernel of it is the
  // sweep's _cs (row_config_streams).
  kernels::RowConfigList list = kernels::RowConfigList::EVERY;
};
// How the kernels of a list of row_configs.h (or the sweep's like it) hold a row.
constexpr Holding holding_of(kernels::RowConfigList list) {
  return list == kernels::RowConfigList::PACKED ? Holding::kPacked : Holding::kRegisters;
}

constexpr Config kConfigs[] = {
#define OMNIRT_SWEEP_CONFIG(list, suffix, lanes, packs, rows)             \
  {#suffix, lanes, packs, rows, holding_of(kernels::RowConfigList::list), \
   kernels::most_row_threads(kernels::RowConfigList::list), kernels::RowConfigList::list},
#define OMNIRT_SWEEP_LOOP_CONFIG(suffix) {#suffix, 0, 0, 1, Holding::kLoop},
    OMNIRT_ROW_CONFIG_LISTS(OMNIRT_SWEEP_CONFIG) OMNIRT_SWEEP_ROW_CONFIGS(OMNIRT_SWEEP_CONFIG)
        OMNIRT_SWEEP_PACKED_CONFIGS(OMNIRT_SWEEP_CONFIG) OMNIRT_SWEEP_LOOP_KERNELS(OMNIRT_SWEEP_LOOP_CONFIG)
#undef OMNIRT_SWEEP_LOOP_CONFIG
#undef OMNIRT_SWEEP_CONFIG
};

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// Block sizes the group configurations are tried in, the plugin's
// (row_configs.h's group_threads) among them: their kernels take the groups
// of a block from blockDim, within their bounds of kGroupThreads.
constexpr int kGroupBlockThreads[] = {64, 128, kernels::kGroupThreads};

// Whether the sweep tries group configurations in blocks of `threads`: each
// list's (group_threads) must be among them, or the sweep would never mark
// the plugin's plan for that list's cases.
constexpr bool sweeps_group_block(int threads) {
  for (int tried : kGroupBlockThreads) {
    if (tried == threads) return true;
  }
  return false;
}
#define OMNIRT_SWEEP_GROUP_BLOCK_CHECK(list, suffix, lanes, packs, rows)                           \
  static_assert(lanes == 0 || sweeps_group_block(kernels::group_threads(kernels::RowConfigList::list)), \
                #list "'s group block is not among kGroupBlockThreads");
OMNIRT_ROW_CONFIG_LISTS(OMNIRT_SWEEP_GROUP_BLOCK_CHECK)
#undef OMNIRT_SWEEP_GROUP_BLOCK_CHECK

// Threads per block and rows per block of each block `config` runs rows of
// `row_packs` packs in, or none when it does not hold them or leaves over
// half of its threads' packs empty (a smaller configuration then does the
// same work). Loop kernels run rows that give each of their threads a pack
// at least.
std::vector<std::pair<int, int>> block_shapes(const Config& config, long long row_packs) {
  if (config.holding == Holding::kLoop) {
    if (row_packs < kernels::kLoopThreads) return {};
    return {{kernels::kLoopThreads, 1}};
  }
  if (config.lanes > 0) {
    const long long capacity = (long long)config.lanes * config.packs;
    if (row_packs > capacity || 2 * row_packs <= capacity) return {};
    std::vector<std::pair<int, int>> shapes;
    for (int threads : kGroupBlockThreads) shapes.push_back({threads, threads / config.lanes * config.rows});
    return shapes;
  }
  const long long useful = ceil_div(row_packs, config.packs);
  const long long threads = std::max<long long>(kernels::kMinRowThreads, ceil_div(useful, 32) * 32);
  if (threads > config.most_threads || 2 * useful <= threads) return {};
  return {{int(threads), 1}};
}

// One way to run a case, its check against ATen and its times.
struct Candidate {
  std::string name;       // the kernel's config[_cs], "op_run" or "aten"
  std::string grid_kind;  // how the grid was chosen
  Config config{"", 0, 0, 0, Holding::kRegisters};
  unsigned grid = 0, block = 0;
  unsigned shared_bytes = 0;  // dynamic shared memory ("sh": the row)
  int regs = -1, blocks_per_sm = -1;  // -1: the runtime did not say
  bool plan = false;                  // the plugin's choice: its kernel and grid
  std::function<void(int)> run;       // call i (rotates over the input sets)
  std::string check = "ok";
  double median_us = 0;
};

// Kernel arguments of one input set, at stable addresses (cudaLaunchKernel
// reads them through pointers).
struct KernelArgs {
  void *x = nullptr, *w = nullptr, *b = nullptr, *y = nullptr;
  long long rows = 0, n = 0, inner = 1, count = 0;  // count: geglu's elements
  float eps = 0;
  std::vector<void*> pointers;
};

class Sweep {
 public:
  Sweep(CudaPlugin& plugin, const Peak& peak, const cudaDeviceProp& prop)
      : plugin_(plugin), peak_(peak), prop_(prop) {}

  void run_case(const OpCase& c);
  void print_summary() const;
  int mismatches() const { return mismatches_; }

 private:
  // A candidate as the summary names it; us 0: there is none.
  struct Pick {
    std::string text = "-";  // config, grid kind, grid x block, regs/blocks per SM
    double us = 0, pct = 0;
  };
  struct Summary {
    std::string label;
    double aten_us, op_run_us, plan_us;  // plan_us 0: not among the candidates
    Pick best;  // the fastest candidate
    Pick lean;  // the fastest that holds its row packed, in shared memory or not at all
  };

  std::vector<Candidate> candidates(const OpCase& c, std::vector<KernelArgs>& args) const;
  void add_grids(Candidate k, const std::string& symbol, long long work, const cuda::LaunchPlan& plan,
                 bool plan_kernel, std::vector<KernelArgs>& args, std::vector<Candidate>& out) const;
  double pct_of_peak(size_t bytes, double us) const {
    return peak_.bytes_per_second > 0 ? 100 * double(bytes) / (us * 1e-6) / peak_.bytes_per_second : 0;
  }

  CudaPlugin& plugin_;
  const Peak& peak_;
  const cudaDeviceProp& prop_;
  BenchFatbin fatbin_;
  std::vector<Summary> summary_;
  int mismatches_ = 0;
};

// Candidate `k` (name, config and block set) running kernel `symbol` on
// each of the grids worth trying for `work` blocks of work; the one on the
// plugin's grid is marked when `plan_kernel` says the kernel is the plugin's.
void Sweep::add_grids(Candidate k, const std::string& symbol, long long work, const cuda::LaunchPlan& plan,
                      bool plan_kernel, std::vector<KernelArgs>& args, std::vector<Candidate>& out) const {
  const int sms = prop_.multiProcessorCount;
  const void* function = fatbin_.function(symbol);
  check_cuda(cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, int(k.shared_bytes)),
             "cudaFuncSetAttribute");
  cudaFuncAttributes attr{};
  if (cudaFuncGetAttributes(&attr, function) == cudaSuccess) k.regs = attr.numRegs;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k.blocks_per_sm, function, int(k.block), k.shared_bytes) !=
      cudaSuccess) {
    k.blocks_per_sm = -1;
  }
  cudaGetLastError();  // an attribute the runtime would not give is not an error of the run
  // Grids: the planner's (every SM full by thread count), the occupancy
  // the registers allow, twice that, and one block per step of work.
  std::vector<std::pair<std::string, long long>> grids = {
      {"fill", (long long)sms * std::max(1, kThreadsPerSm / int(k.block))}};
  if (k.blocks_per_sm > 0) {
    grids.push_back({"occ", (long long)sms * k.blocks_per_sm});
    grids.push_back({"2occ", 2LL * sms * k.blocks_per_sm});
  }
  grids.push_back({"all", work});
  std::vector<long long> seen;
  for (const auto& [kind, wanted] : grids) {
    const long long grid = std::max(1LL, std::min(wanted, work));
    if (std::find(seen.begin(), seen.end(), grid) != seen.end()) continue;
    seen.push_back(grid);
    Candidate g = k;
    g.grid_kind = kind;
    g.grid = unsigned(grid);
    g.plan = plan_kernel && g.grid == plan.grid && g.block == plan.block;
    g.run = [&args, function, blocks = g.grid, threads = g.block, shared = g.shared_bytes,
             overlap = prop_.major >= 9](int i) {
      KernelArgs& a = args[size_t(i) % args.size()];
      launch_as_plugin(function, blocks, threads, a.pointers.data(), overlap, shared);
    };
    out.push_back(std::move(g));
  }
}

std::vector<Candidate> Sweep::candidates(const OpCase& c, std::vector<KernelArgs>& args) const {
  const int element_bytes = c.dtype == at::kFloat ? 4 : 2;
  const int sms = prop_.multiProcessorCount;
  std::vector<Candidate> out;
  if (c.op == "geglu") {
    // Every P of sweep_configs.h, both Access policies, on kElementwiseThreads.
    const long long pieces = args[0].count * element_bytes / kernels::kPackBytes;
    const cuda::LaunchPlan plan = cuda::plan_elementwise(args[0].count, element_bytes, true);
#define OMNIRT_SWEEP_LIST(P) P,
    for (int packs : {OMNIRT_SWEEP_GEGLU_PACKS(OMNIRT_SWEEP_LIST)}) {
#undef OMNIRT_SWEEP_LIST
      for (const char* access : {"", "_cs"}) {
        Candidate k;
        k.name = "p" + std::to_string(packs) + access;
        k.config = {"", 0, packs, 1, Holding::kRegisters};
        k.block = unsigned(kernels::kElementwiseThreads);
        add_grids(k, "omnirt_geglu_" + std::string(dtype_name(c.dtype)) + "_" + k.name,
                  ceil_div(pieces, (long long)k.block * packs), plan,
                  *access == '\0' && packs == kernels::kGegluPacks, args, out);
      }
    }
    return out;
  }
  const long long n = c.shape.back();
  const long long rows = args[0].rows;
  const long long row_packs = n * element_bytes / kernels::kPackBytes;
  const cuda::RowOp op = c.op == "rms_norm"     ? cuda::RowOp::kRmsNorm
                         : c.op == "layer_norm" ? cuda::RowOp::kLayerNorm
                                                : cuda::RowOp::kSoftmax;
  const cuda::LaunchPlan plan = cuda::plan_rows(op, rows, n, element_bytes, true, sms);
  if (op == cuda::RowOp::kSoftmax && element_bytes == 2 && n * element_bytes <= kernels::kSharedRowBytes) {
    // The shared-memory softmax, a block per row: the plugin's and every P
    // of sweep_configs.h.
#define OMNIRT_SWEEP_LIST(P) P,
    for (int packs : {0, OMNIRT_SWEEP_SHARED_PACKS(OMNIRT_SWEEP_LIST)}) {
#undef OMNIRT_SWEEP_LIST
      Candidate k;
      k.name = packs == 0 ? "sh" : "sh" + std::to_string(packs);
      k.config = {"", 0, packs, 1, Holding::kShared};
      k.block = unsigned(kernels::kSharedRowThreads);
      k.shared_bytes = unsigned(n * element_bytes);
      add_grids(k, "omnirt_softmax_" + std::string(dtype_name(c.dtype)) + "_" + k.name, rows, plan,
                plan.variant == cuda::kSharedRow && packs == 0, args, out);
    }
  }
  if (op == cuda::RowOp::kLayerNorm && plan.variant == cuda::kSharedRow) {
    // layer_norm's shared-memory kernel, in the plugin's blocks (b4's, which
    // the sweep times below).
    Candidate k;
    k.name = "sh";
    k.config = {"", 0, kernels::kSharedNormPacks, 1, Holding::kShared};
    k.block = plan.block;
    k.shared_bytes = plan.shared_bytes;
    add_grids(k, "omnirt_layer_norm_" + std::string(dtype_name(c.dtype)) + "_sh", rows, plan, true, args, out);
  }
  for (const Config& config : kConfigs) {
    if (!kernels::row_list_has_dtype(config.list, element_bytes)) continue;
    for (const auto& [block, rows_per_block] : block_shapes(config, row_packs)) {
      for (const char* access : {"", "_cs"}) {
        if (config.holding == Holding::kLoop && *access != '\0') continue;  // cached only
        Candidate k;
        k.name = std::string(config.suffix) + access;
        k.config = config;
        k.block = unsigned(block);
        const bool plugin_access = (*access != '\0') == kernels::row_config_streams(config.list, element_bytes, config.lanes, config.packs);
        add_grids(k, "omnirt_" + c.op + "_" + dtype_name(c.dtype) + "_" + k.name,
                  ceil_div(rows, rows_per_block), plan,
                  plugin_access && std::string(config.suffix) == cuda::variant_suffix(plan.variant), args, out);
      }
    }
  }
  return out;
}

void Sweep::run_case(const OpCase& c) {
  const CaseInputs in = case_inputs(c, size_t(prop_.l2CacheSize));
  const int64_t n = c.shape.back();
  std::vector<at::Tensor> outputs;
  std::vector<std::vector<DLTensor>> dl_inputs;
  std::vector<DLTensor> dl_outputs;
  std::vector<KernelArgs> args(in.sets.size());
  outputs.reserve(in.sets.size());  // dl_outputs point into them
  for (size_t s = 0; s < in.sets.size(); ++s) {
    const std::vector<at::Tensor>& set = in.sets[s];
    outputs.push_back(torch::full_like(set[0], NAN));
    dl_inputs.emplace_back();
    for (const at::Tensor& t : set) dl_inputs.back().push_back(dl_view(t));
    dl_outputs.push_back(dl_view(outputs.back()));
    KernelArgs& a = args[s];
    a.x = set[0].data_ptr();
    a.y = outputs.back().data_ptr();
    a.rows = set[0].numel() / n;
    a.n = n;
    if (c.op == "softmax") {
      a.pointers = {&a.x, &a.y, &a.rows, &a.n, &a.inner};
    } else if (c.op == "geglu") {
      a.w = set[1].data_ptr();  // geglu's b
      a.count = set[0].numel();
      a.pointers = {&a.x, &a.w, &a.y, &a.count};
    } else {
      a.w = set[1].data_ptr();
      a.eps = c.op == "rms_norm" ? 1e-6f : 1e-5f;  // the ops' defaults, as aten_op's
      a.pointers = {&a.x, &a.w};
      if (c.op == "layer_norm") {
        a.b = set[2].data_ptr();
        a.pointers.push_back(&a.b);
      }
      a.pointers.insert(a.pointers.end(), {&a.y, &a.rows, &a.n, &a.eps});
    }
  }

  std::vector<Candidate> all = candidates(c, args);
  const omnirt_backend_vtable& vt = *plugin_.vt();
  std::string op_run_error;
  Candidate op_run;
  op_run.name = "op_run";
  op_run.grid_kind = "plugin";
  op_run.run = [&](int i) {
    const size_t s = size_t(i) % in.sets.size();
    if (vt.op_run(plugin_.state(), c.op.c_str(), dl_inputs[s].data(), dl_inputs[s].size(), &dl_outputs[s],
                  1, nullptr, 0, nullptr) != OMNIRT_STATUS_OK) {
      op_run_error = last_error();
    }
  };
  all.push_back(op_run);
  Candidate aten;
  aten.name = "aten";
  aten.grid_kind = "ATen";
  at::Tensor aten_result;
  aten.run = [&](int i) { aten_result = aten_op(c.op, in.sets[size_t(i) % in.sets.size()]); };
  all.push_back(aten);

  // Checked first, each on input set 0 into a NaN-filled output.
  aten.run(0);
  const at::Tensor want = aten_result.to(torch::kFloat);
  const double tol = op_tolerance(c.dtype);
  std::vector<Candidate> timed;
  for (Candidate& k : all) {
    if (k.name == "aten") {
      timed.push_back(k);
      continue;
    }
    outputs[0].fill_(NAN);
    std::string error;
    try {
      k.run(0);
      check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (error.empty() && k.name == "op_run") error = op_run_error;
    if (!error.empty()) {
      k.check = "FAILED: " + error;
    } else {
      const at::Tensor got = outputs[0].to(torch::kFloat);
      if (!torch::allclose(got, want, tol, tol)) {
        k.check = "MISMATCH: max abs error " + std::to_string((got - want).abs().max().item<float>());
      }
    }
    if (k.check == "ok") {
      timed.push_back(k);
    } else {
      ++mismatches_;
      std::printf("#   %s %s grid %u x %u: %s\n", k.name.c_str(), k.grid_kind.c_str(), k.grid, k.block,
                  k.check.c_str());
    }
  }

  // Taking turns, in rounds of about kSweepRoundSeconds of ATen's calls.
  std::vector<std::function<void(int)>> runs;
  for (const Candidate& k : timed) {
    for (int i = 0; i < 3; ++i) k.run(i);
    runs.push_back(k.run);
  }
  const double rough = seconds_per_call(aten.run, 3);
  const int calls = std::max(5, int(kSweepRoundSeconds / std::max(rough, 1e-7)));
  const std::vector<double> medians = median_seconds_in_turns(runs, calls, kSweepRounds);
  for (size_t i = 0; i < timed.size(); ++i) timed[i].median_us = medians[i] * 1e6;
  std::sort(timed.begin(), timed.end(),
            [](const Candidate& a, const Candidate& b) { return a.median_us < b.median_us; });

  const std::string label = c.op + " " + dtype_name(c.dtype) + " " + shape_text(c.shape);
  const auto find = [&](const std::string& name) {
    return std::find_if(timed.begin(), timed.end(), [&](const Candidate& k) { return k.name == name; });
  };
  const double aten_us = find("aten")->median_us;
  const auto plan = std::find_if(timed.begin(), timed.end(), [](const Candidate& k) { return k.plan; });
  const auto best = std::find_if(timed.begin(), timed.end(),
                                 [](const Candidate& k) { return k.name != "aten" && k.name != "op_run"; });
  const auto lean = std::find_if(timed.begin(), timed.end(), [](const Candidate& k) {
    return k.config.holding == Holding::kPacked || k.config.holding == Holding::kLoop ||
           k.config.holding == Holding::kShared;
  });
  const auto pick = [&](std::vector<Candidate>::const_iterator k) {
    if (k == timed.end()) return Pick{};
    return Pick{k->name + " " + k->grid_kind + " " + std::to_string(k->grid) + "x" + std::to_string(k->block) +
                    " " + std::to_string(k->regs) + "r/" + std::to_string(k->blocks_per_sm) + "b",
                k->median_us, pct_of_peak(in.bytes, k->median_us)};
  };
  std::printf("\n## %s (%s), %.1f MiB, %d calls per round\n", label.c_str(), c.shape_class.c_str(),
              double(in.bytes) / (1 << 20), calls);
  std::printf("%-10s %5s %5s %4s %5s %7s %-6s %4s %4s %9s %6s %5s\n", "candidate", "lanes", "packs", "rows",
              "block", "grid", "by", "regs", "b/SM", "us", "x_aten", "%pk");
  for (const Candidate& k : timed) {
    std::printf("%-10s %5d %5d %4d %5u %7u %-6s %4d %4d %9.1f %6.2f %5.1f%s\n", k.name.c_str(), k.config.lanes,
                k.config.packs, k.config.rows, k.block, k.grid, k.grid_kind.c_str(), k.regs, k.blocks_per_sm,
                k.median_us, aten_us / k.median_us, pct_of_peak(in.bytes, k.median_us),
                k.plan ? "  <- plugin's plan" : "");
  }
  std::fflush(stdout);
  summary_.push_back({label, aten_us, find("op_run") != timed.end() ? find("op_run")->median_us : 0,
                      plan != timed.end() ? plan->median_us : 0, pick(best), pick(lean)});
}

void Sweep::print_summary() const {
  std::printf("\n# summary: us per call (medians); plan: the plugin's kernel and grid among the candidates "
              "(0: not among them); best: the fastest candidate, lean: the fastest holding its row packed "
              "(*h), in shared memory (sh, shP) or not at all (lv, l2), each with registers r / blocks per SM "
              "b; x: ATen us / its us\n");
  std::printf("%-26s %9s %9s %9s  %-34s %9s %6s %5s  %-34s %9s %6s %5s\n", "case", "aten", "op_run", "plan",
              "best candidate", "best", "x", "%pk", "lean candidate", "lean", "x", "%pk");
  const auto ratio = [](double aten_us, double us) { return us > 0 ? aten_us / us : 0; };
  for (const Summary& s : summary_) {
    std::printf("%-26s %9.1f %9.1f %9.1f  %-34s %9.1f %6.2f %5.1f  %-34s %9.1f %6.2f %5.1f\n", s.label.c_str(),
                s.aten_us, s.op_run_us, s.plan_us, s.best.text.c_str(), s.best.us, ratio(s.aten_us, s.best.us),
                s.best.pct, s.lean.text.c_str(), s.lean.us, ratio(s.aten_us, s.lean.us), s.lean.pct);
  }
}

// The case a filter of the form "OP DTYPE ROWSxN" names ("rms_norm bf16
// 65536x1024"), so that a shape none of op_cases() has can be swept too.
std::optional<OpCase> case_named(const std::string& filter) {
  std::istringstream words(filter);
  std::string op, dtype, shape, rest;
  long long rows = 0, n = 0;
  char times = 0;
  if (!(words >> op >> dtype >> shape) || (words >> rest)) return std::nullopt;
  std::istringstream dims(shape);
  if (!(dims >> rows >> times >> n) || times != 'x' || rows <= 0 || n <= 0 || dims.peek() != EOF) {
    return std::nullopt;
  }
  if (op != "rms_norm" && op != "layer_norm" && op != "softmax" && op != "geglu") return std::nullopt;
  for (at::ScalarType t : {at::kFloat, at::kHalf, at::kBFloat16}) {
    if (dtype == dtype_name(t)) return OpCase{op, "named shape", {rows, n}, t};
  }
  return std::nullopt;
}

}  // namespace

int run_sweep(CudaPlugin& plugin, const std::string& filter, const Peak& peak, const cudaDeviceProp& prop) {
  std::string group_blocks;
  for (int threads : kGroupBlockThreads) group_blocks += (group_blocks.empty() ? "" : ", ") + std::to_string(threads);
  std::printf("# sweep: candidate kernels (bench/cuda/sweep_configs.h, kernels/row_configs.h; _cs: "
              "streaming loads and stores; *h: the row held as f16/bf16; lv, l2: a block per row, no "
              "row held, three and two reads; sh: softmax's 16-bit row in shared memory, copied by the engine "
              "on sm_90 (the plugin's), shP: loaded by the threads, P packs each at once; geglu's pP: P pieces a thread at once), medians over %d "
              "rounds taking turns; groups of lanes (g*, w*) in blocks of %s threads; grid by: fill = SMs x %d / "
              "block (the planner's), occ = SMs x blocks per SM the registers allow, 2occ, all = a block per "
              "step of work; b/SM: occupancy\n",
              kSweepRounds, group_blocks.c_str(), kThreadsPerSm);
  std::vector<OpCase> cases;
  for (const OpCase& c : op_cases()) {
    const std::string line = c.op + " " + dtype_name(c.dtype) + " " + shape_text(c.shape) + " " + c.shape_class;
    if (line.find(filter) != std::string::npos) cases.push_back(c);
  }
  if (cases.empty()) {
    const std::optional<OpCase> named = case_named(filter);
    if (!named) {
      std::printf("# no case matches \"%s\" (nor is it \"OP f32|f16|bf16 ROWSxN\")\n", filter.c_str());
      return 1;
    }
    cases.push_back(*named);
  }
  Sweep sweep(plugin, peak, prop);
  for (const OpCase& c : cases) sweep.run_case(c);
  sweep.print_summary();
  std::printf("# %d candidates not matching ATen or failing\n", sweep.mismatches());
  return sweep.mismatches() == 0 ? 0 : 1;
}

}  // namespace omnirt::cuda_test
