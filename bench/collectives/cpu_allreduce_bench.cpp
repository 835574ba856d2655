// all_reduce of f32 (sum) across processes on the loopback, 1 KiB to 64 MiB:
// through OmniRT's cpu backend (libomnirt -> plugin -> libomnirt_cpu_gloo)
// against gloo called directly, in the same processes and the same run.
// Rounds alternate the two (gloo first in even rounds, OmniRT first in odd
// ones) so that drift on a shared machine hits both; each round of OmniRT is
// compared with the round of gloo next to it, and the
// median of those comparisons is reported: bus bandwidth ratio (OmniRT /
// gloo) and the per-call time OmniRT adds. With --ranks 1 no byte crosses
// a socket: what remains is each path's own cost per call, so the time
// OmniRT adds is measured without the loopback's wake-ups (tens to thousands
// of microseconds on a loaded 2-core machine) drowning it. --control 1 is the
// A/A run: a second gloo context of its own (device, connections) takes
// OmniRT's place, so its ratios show how far two equal paths differ here —
// the resolution of the comparison.
//
//   omnirt_bench_cpu_allreduce [--ranks N] [--rounds R] [--max-mib M] [--control 1]
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "omnirt/cpp/host.hpp"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  int ranks = 2;
  int rounds = 31;
  size_t max_bytes = size_t{64} << 20;
  bool control = false;  // a second direct gloo context in OmniRT's place
};

// What one rank needs for both paths.
struct Rank {
  int rank = 0;
  int nranks = 2;
  std::shared_ptr<gloo::Context> gloo;
  std::shared_ptr<gloo::Context> control;  // with --control 1
  omnirt::Host host;
  omnirt::Backend backend;
  omnirt_kv_store* store = nullptr;
  omnirt_comm* comm = nullptr;
  uint32_t tag = 0;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "rank: %s: %s\n", what.c_str(), omnirt_last_error()->message);
  std::exit(2);
}

// A gloo context of its own (TCP device, connections) meeting under `store_dir`.
std::shared_ptr<gloo::Context> gloo_context(const Rank& r, const std::string& store_dir) {
  gloo::rendezvous::FileStore store(store_dir);
  gloo::transport::tcp::attr attr;
  attr.hostname = "127.0.0.1";
  auto context = std::make_shared<gloo::rendezvous::Context>(r.rank, r.nranks);
  auto device = gloo::transport::tcp::CreateDevice(attr);
  context->connectFullMesh(store, device);
  return context;
}

void open(Rank& r, const std::string& dir, bool control) {
  r.gloo = gloo_context(r, dir + "/gloo");
  if (control) r.control = gloo_context(r, dir + "/control");

  if (r.host.create({OMNIRT_BENCH_CPU_PLUGIN}, OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR,
                    (dir + "/cpu.yaml").c_str()) != OMNIRT_STATUS_OK ||
      r.host.backend("cpu", &r.backend) != OMNIRT_STATUS_OK) {
    die("cannot open the cpu backend");
  }
  if (omnirt_file_store_create((dir + "/omnirt").c_str(), &r.store) != OMNIRT_STATUS_OK) die("file store");
  omnirt_comm_create_args args{};
  args.struct_size = sizeof args;
  args.nranks = r.nranks;
  args.rank = r.rank;
  args.store = r.store;
  args.key_prefix = "";
  if (omnirt_comm_create(r.backend.get(), &args, &r.comm) != OMNIRT_STATUS_OK) die("omnirt_comm_create");
}

void gloo_all_reduce(Rank& r, const std::shared_ptr<gloo::Context>& context, float* send, float* recv,
                     size_t count) {
  gloo::AllreduceOptions options(context);
  options.setInput(send, count);
  options.setOutput(recv, count);
  options.setReduceFunction(static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
  options.setTag(r.tag++);
  gloo::allreduce(options);
}

void omnirt_all_reduce(Rank& r, float* send, float* recv, size_t count) {
  if (::omnirt_all_reduce(r.backend.get(), r.comm, send, recv, count, OMNIRT_DTYPE_F32, OMNIRT_REDUCE_SUM,
                          nullptr) != OMNIRT_STATUS_OK) {
    die("omnirt_all_reduce");
  }
}

// Seconds per call of `iterations` calls, after one call that lines the ranks up.
template <class Call>
double seconds_per_call(int iterations, Call&& call) {
  call();
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < iterations; ++i) call();
  return std::chrono::duration<double>(Clock::now() - start).count() / iterations;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

std::string bytes_text(size_t bytes) {
  if (bytes >= (size_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

// Runs both paths over every size; rank 0 prints the table.
int run_rank(int rank, const Options& o, const std::string& dir) {
  Rank r;
  r.rank = rank;
  r.nranks = o.ranks;
  open(r, dir, o.control);
  std::vector<float> send(o.max_bytes / sizeof(float), 1.0f), recv(send.size());
  // Bus bandwidth; one rank moves each byte once (a copy).
  const double bus_factor = o.ranks > 1 ? 2.0 * (o.ranks - 1) / o.ranks : 1.0;
  bool ok = true;
  if (rank == 0) {
    std::printf("all_reduce f32 sum, %d process(es) on the loopback, %d alternating rounds, medians%s\n", o.ranks,
                o.rounds, o.control ? "; A/A control: 'omnirt' is a second gloo context" : "");
    std::printf("%9s %12s %12s %12s %12s %9s %10s\n", "size", "gloo us", "omnirt us", "gloo GB/s",
                "omnirt GB/s", "bw ratio", "extra us");
  }
  for (size_t bytes = 1024; bytes <= o.max_bytes; bytes *= 4) {
    const size_t count = bytes / sizeof(float);
    // Short rounds (about 32 MiB each way) keep each pair close in time.
    const int iterations = int(std::clamp<size_t>((size_t{32} << 20) / bytes, 4, 200));
    std::vector<double> direct, routed;
    for (int round = 0; round < o.rounds; ++round) {
      auto time_direct = [&] {
        direct.push_back(
            seconds_per_call(iterations, [&] { gloo_all_reduce(r, r.gloo, send.data(), recv.data(), count); }));
      };
      auto time_routed = [&] {
        routed.push_back(seconds_per_call(iterations, [&] {
          if (o.control) {
            gloo_all_reduce(r, r.control, send.data(), recv.data(), count);
          } else {
            omnirt_all_reduce(r, send.data(), recv.data(), count);
          }
        }));
      };
      // Which goes first alternates too, so that neither always follows the other.
      if (round % 2 == 0) {
        time_direct();
        time_routed();
      } else {
        time_routed();
        time_direct();
      }
    }
    if (recv[0] != float(o.ranks)) die("wrong result");
    if (rank != 0) continue;
    std::vector<double> ratios, extras;
    for (int round = 0; round < o.rounds; ++round) {
      ratios.push_back(direct[size_t(round)] / routed[size_t(round)]);  // bus bandwidth: the same bytes in each
      extras.push_back((routed[size_t(round)] - direct[size_t(round)]) * 1e6);
    }
    const double g = median(direct), m = median(routed);
    const double ratio = median(ratios), extra_us = median(extras);
    // Targets: >= 95% of gloo's bus bandwidth, and small messages within 2 us
    // of it. One rank judges only the latter: its copies are no bus.
    const bool small_ok = bytes <= 64 * 1024 && extra_us <= 2.0;
    const bool pass = o.ranks == 1 ? small_ok || bytes > 64 * 1024 : ratio >= 0.95 || small_ok;
    ok = ok && pass;
    std::printf("%9s %12.2f %12.2f %12.3f %12.3f %9.3f %10.2f%s\n", bytes_text(bytes).c_str(), g * 1e6, m * 1e6,
                bus_factor * bytes / g / 1e9, bus_factor * bytes / m / 1e9, ratio, extra_us, pass ? "" : "  BELOW TARGET");
  }
  omnirt_comm_destroy(r.backend.get(), r.comm);
  omnirt_file_store_destroy(r.store);
  if (rank == 0) std::printf("%s\n", ok ? "every size meets the target" : "some sizes miss the target");
  return ok ? 0 : 1;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (flag == "--ranks") o.ranks = int(std::max(1L, value));
    else if (flag == "--rounds") o.rounds = int(std::max(1L, value));
    else if (flag == "--max-mib") o.max_bytes = size_t(std::max(1L, value)) << 20;
    else if (flag == "--control") o.control = value != 0;
    else {
      std::fprintf(stderr, "usage: %s [--ranks N] [--rounds R] [--max-mib M] [--control 1]\n", argv[0]);
      std::exit(2);
    }
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  char pattern[] = "/tmp/omnirt-allreduce-bench-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return 2;
  const std::string dir = pattern;
  std::filesystem::create_directories(dir + "/gloo");
  std::filesystem::create_directories(dir + "/control");
  std::ofstream(dir + "/cpu.yaml") << "backends:\n  cpu:\n    options:\n      gloo_hostname: \"127.0.0.1\"\n";
  std::vector<pid_t> children;
  for (int rank = 1; rank < options.ranks; ++rank) {
    const pid_t pid = fork();
    if (pid == 0) _exit(run_rank(rank, options, dir));
    children.push_back(pid);
  }
  int result = run_rank(0, options, dir);
  for (pid_t child : children) {
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) result = 2;
  }
  std::filesystem::remove_all(dir);
  return result;
}
