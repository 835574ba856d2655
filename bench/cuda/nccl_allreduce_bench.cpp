// all_reduce of f32 (sum), 8 B to 1 GiB, over the GPUs of the machine (one
// rank per GPU; on one GPU, one rank): through OmniRT's cuda backend (host ->
// plugin -> NCCL) against NCCL called directly, in the same run, on the same
// buffers and the same NCCL library (the one the plugin loaded), and NCCL on
// non-blocking communicators as the plugin makes them. Rounds alternate the
// three; the median round of each is compared: bus bandwidth ratio
// (OmniRT / NCCL) and the time OmniRT adds per call.
//
//   nccl_allreduce_bench [--ranks N] [--rounds R] [--max-mib M]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "nccl_library.h"  // NcclSymbols: the plugin's own NCCL declarations
#include "omnirt/host.h"

namespace {

using omnirt::cuda::ncclComm_t;
using omnirt::cuda::NcclSymbols;
using Clock = std::chrono::steady_clock;

struct Options {
  int ranks = 0;  // 0: every GPU
  int rounds = 9;
  size_t max_bytes = size_t{1} << 30;
};

[[noreturn]] void die(const std::string& what, const std::string& why) {
  std::fprintf(stderr, "nccl_allreduce_bench: %s: %s\n", what.c_str(), why.c_str());
  std::exit(2);
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(what, cudaGetErrorString(e));
}

void omnirt_ok(omnirt_status s, const char* what) {
  if (s != OMNIRT_STATUS_OK) die(what, omnirt_last_error()->message);
}

void nccl_ok(const NcclSymbols& nccl, omnirt::cuda::ncclResult_t r, const char* what) {
  if (r != omnirt::cuda::ncclSuccess) die(what, nccl.ncclGetErrorString(r));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string bytes_text(size_t bytes) {
  if (bytes >= (size_t{1} << 30)) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (size_t{1} << 20)) return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= 1024) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long value = std::strtol(argv[i + 1], nullptr, 10);
    if (flag == "--ranks") o.ranks = int(std::max(1L, value));
    else if (flag == "--rounds") o.rounds = int(std::max(1L, value));
    else if (flag == "--max-mib") o.max_bytes = size_t(std::max(1L, value)) << 20;
    else die("usage", std::string(argv[0]) + " [--ranks N] [--rounds R] [--max-mib M]");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  const char* paths[] = {OMNIRT_CUDA_PLUGIN_PATH};
  omnirt_host_options host_options{};
  host_options.struct_size = sizeof host_options;
  host_options.plugin_paths = paths;
  host_options.num_plugin_paths = 1;
  host_options.flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;
  omnirt_host* host = nullptr;
  omnirt_backend* cuda = nullptr;
  omnirt_ok(omnirt_host_create(&host_options, &host), "omnirt_host_create");
  omnirt_ok(omnirt_host_get_backend(host, "cuda", &cuda), "the cuda backend");
  int32_t gpus = 0;
  omnirt_ok(omnirt_get_device_count(cuda, &gpus), "omnirt_get_device_count");
  const int n = o.ranks > 0 ? std::min<int>(o.ranks, gpus) : gpus;

  // OmniRT's side: one local communicator and one stream per GPU.
  std::vector<int32_t> devices(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) devices[size_t(r)] = r;
  std::vector<omnirt_comm*> comms(static_cast<size_t>(n));
  omnirt_ok(omnirt_comm_create_local(cuda, devices.data(), size_t(n), comms.data()), "omnirt_comm_create_local");
  std::vector<omnirt_stream*> omnirt_streams(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) omnirt_ok(omnirt_stream_create(cuda, r, &omnirt_streams[size_t(r)]), "stream");

  // NCCL's side: the library the plugin loaded ("NCCL 2.x.y (<path>)").
  char library[1024] = "";
  omnirt_ok(omnirt_collectives_library(cuda, library, sizeof library), "omnirt_collectives_library");
  const std::string text = library;
  const std::string path = text.substr(text.find('(') + 1, text.rfind(')') - text.find('(') - 1);
  std::string why;
  omnirt::plugin_common::DynamicLibrary nccl_library = omnirt::plugin_common::DynamicLibrary::open(path, &why);
  if (!nccl_library) die("dlopen " + path, why);
  omnirt::plugin_common::SymbolResolver resolver(nccl_library);
  NcclSymbols nccl;
  nccl.resolve(resolver);
  // Blocking communicators (NCCL's default, what a user calls directly), and
  // non-blocking ones as the plugin makes them (so that its watchdog can
  // abort them): the difference is NCCL's own cost of non-blocking mode.
  auto make_direct = [&](int blocking) {
    std::vector<ncclComm_t> made(static_cast<size_t>(n));
    omnirt::cuda::ncclUniqueId id;
    nccl_ok(nccl, nccl.ncclGetUniqueId(&id), "ncclGetUniqueId");
    nccl_ok(nccl, nccl.ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < n; ++r) {
      cuda_ok(cudaSetDevice(r), "cudaSetDevice");
      omnirt::cuda::ncclConfig_v21700 config{sizeof config, omnirt::cuda::kNcclConfigMagic,
                                             omnirt::cuda::kNcclConfigVersion, blocking,
                                             omnirt::cuda::kNcclConfigUndefInt, omnirt::cuda::kNcclConfigUndefInt,
                                             omnirt::cuda::kNcclConfigUndefInt, nullptr};
      const auto r_init = nccl.ncclCommInitRankConfig(&made[size_t(r)], n, id, r, &config);
      if (r_init != omnirt::cuda::ncclInProgress) nccl_ok(nccl, r_init, "ncclCommInitRankConfig");
    }
    const auto ended = nccl.ncclGroupEnd();
    if (ended != omnirt::cuda::ncclInProgress) nccl_ok(nccl, ended, "ncclGroupEnd");
    return made;
  };
  // A non-blocking communicator's calls may return ncclInProgress: NCCL's
  // documented way to finish them is to poll its asynchronous error.
  auto settle = [&](const std::vector<ncclComm_t>& made) {
    for (ncclComm_t comm : made) {
      omnirt::cuda::ncclResult_t state = omnirt::cuda::ncclInProgress;
      while (state == omnirt::cuda::ncclInProgress) nccl_ok(nccl, nccl.ncclCommGetAsyncError(comm, &state), "ncclCommGetAsyncError");
      nccl_ok(nccl, state, "a non-blocking communicator");
    }
  };
  const std::vector<ncclComm_t> direct = make_direct(1);
  const std::vector<ncclComm_t> non_blocking = make_direct(0);
  settle(non_blocking);
  std::vector<cudaStream_t> streams(static_cast<size_t>(n));
  std::vector<void*> send(static_cast<size_t>(n)), recv(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    cuda_ok(cudaSetDevice(r), "cudaSetDevice");
    cuda_ok(cudaStreamCreateWithFlags(&streams[size_t(r)], cudaStreamNonBlocking), "cudaStreamCreate");
    cuda_ok(cudaMalloc(&send[size_t(r)], o.max_bytes), "cudaMalloc");
    cuda_ok(cudaMalloc(&recv[size_t(r)], o.max_bytes), "cudaMalloc");
    cuda_ok(cudaMemset(send[size_t(r)], 0, o.max_bytes), "cudaMemset");
  }

  auto nccl_calls = [&](const std::vector<ncclComm_t>& with, size_t count) {
    nccl.ncclGroupStart();
    for (int r = 0; r < n; ++r) {
      nccl.ncclAllReduce(send[size_t(r)], recv[size_t(r)], count, omnirt::cuda::ncclFloat32, omnirt::cuda::ncclSum,
                         with[size_t(r)], streams[size_t(r)]);
    }
    nccl.ncclGroupEnd();
  };
  auto direct_call = [&](size_t count) { nccl_calls(direct, count); };
  auto non_blocking_call = [&](size_t count) {
    nccl_calls(non_blocking, count);
    settle(non_blocking);
  };
  auto omnirt_call = [&](size_t count) {
    omnirt_group_start(cuda);
    for (int r = 0; r < n; ++r) {
      omnirt_all_reduce(cuda, comms[size_t(r)], send[size_t(r)], recv[size_t(r)], count, OMNIRT_DTYPE_F32,
                        OMNIRT_REDUCE_SUM, omnirt_streams[size_t(r)]);
    }
    omnirt_ok(omnirt_group_end(cuda), "omnirt_group_end");
  };
  auto synchronize = [&] {
    for (int r = 0; r < n; ++r) {
      cuda_ok(cudaSetDevice(r), "cudaSetDevice");
      cuda_ok(cudaStreamSynchronize(streams[size_t(r)]), "cudaStreamSynchronize");
      omnirt_ok(omnirt_stream_synchronize(cuda, omnirt_streams[size_t(r)]), "omnirt_stream_synchronize");
    }
  };
  // Seconds per call of `iterations` calls, each side waited for.
  auto time = [&](auto&& call, size_t count, int iterations) {
    call(count);
    synchronize();
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < iterations; ++i) call(count);
    synchronize();
    return std::chrono::duration<double>(Clock::now() - start).count() / iterations;
  };

  // Bus bandwidth as nccl-tests reports it; one rank moves its bytes once.
  const double bus_factor = n > 1 ? 2.0 * (n - 1) / n : 1.0;
  std::printf("all_reduce f32 sum, %d rank(s) on %d GPU(s), %s; median of %d alternating rounds\n", n, gpus, library,
              o.rounds);
  std::printf("nccl: NCCL called directly on blocking communicators (the baseline); nccl-nb: on non-blocking ones,\n"
              "as the plugin makes them (nccl-nb - nccl is NCCL's own cost of that mode)\n");
  std::printf("%9s %11s %11s %11s %11s %11s %9s %9s\n", "size", "nccl us", "nccl-nb us", "omnirt us", "nccl GB/s",
              "omnirt GB/s", "bw ratio", "extra us");
  bool ok = true;
  for (size_t bytes = 8; bytes <= o.max_bytes; bytes *= 4) {
    const size_t count = bytes / sizeof(float);
    const int iterations = int(std::clamp<size_t>((size_t{8} << 30) / bytes, 5, 2000));
    std::vector<double> d, nb, m;
    for (int round = 0; round < o.rounds; ++round) {
      d.push_back(time(direct_call, count, iterations));
      nb.push_back(time(non_blocking_call, count, iterations));
      m.push_back(time(omnirt_call, count, iterations));
    }
    const double td = median(d), tnb = median(nb), tm = median(m), ratio = td / tm;
    ok = ok && ratio >= 0.95;
    std::printf("%9s %11.2f %11.2f %11.2f %11.2f %11.2f %9.3f %9.2f%s\n", bytes_text(bytes).c_str(), td * 1e6,
                tnb * 1e6, tm * 1e6, bus_factor * double(bytes) / td / 1e9, bus_factor * double(bytes) / tm / 1e9,
                ratio, (tm - td) * 1e6, ratio >= 0.95 ? "" : "  BELOW 95%");
  }
  std::printf("%s\n", ok ? "every size meets 95% of NCCL's bus bandwidth" : "some sizes miss 95% of NCCL's bus bandwidth");
  for (int r = 0; r < n; ++r) {
    omnirt_comm_destroy(cuda, comms[size_t(r)]);
    omnirt_stream_destroy(cuda, omnirt_streams[size_t(r)]);
    nccl.ncclCommDestroy(direct[size_t(r)]);
    nccl.ncclCommDestroy(non_blocking[size_t(r)]);
    cudaFree(send[size_t(r)]);
    cudaFree(recv[size_t(r)]);
    cudaStreamDestroy(streams[size_t(r)]);
  }
  omnirt_host_destroy(host);
  return ok ? 0 : 1;
}
