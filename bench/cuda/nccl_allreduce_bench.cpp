// all_reduce of f32 (sum), 8 B to 1 GiB, over the GPUs of the machine (one
// rank per GPU; on one GPU, one rank): through OmniRT's cuda backend (host ->
// plugin -> NCCL) against NCCL called directly, in the same run, on the same
// buffers and the same NCCL library (the one the plugin loaded), and NCCL on
// non-blocking communicators as the plugin makes them. Rounds alternate the
// three; the median round of each is compared: bus bandwidth ratio
// (OmniRT / NCCL) and the time OmniRT adds per call.
//
// By default one process drives every rank (OmniRT's comm_create_local; one
// thread, each call a group over the devices). --processes 1 runs one process
// per rank instead, on the GPU of its number (OmniRT's comm_create meeting
// through a file store; NCCL's unique ids shared through files beside it).
//
//   nccl_allreduce_bench [--ranks N] [--rounds R] [--max-mib M] [--processes 1]
#include <cuda_runtime_api.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cuda_host.h"
#include "forked_ranks.h"
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
  bool processes = false;  // one process per rank
};

// The ranks this process drives: `devices.size()` of `nranks`, numbered from
// `first_rank`; `dir` is where processes meet (empty: one process).
struct Layout {
  std::vector<int> devices;
  int nranks = 1;
  int first_rank = 0;
  std::string dir;
};

// Ends the rank's run (omnirt_bench::reported prints it).
[[noreturn]] void die(const std::string& what, const std::string& why) {
  throw std::runtime_error("nccl_allreduce_bench: " + what + ": " + why);
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
    else if (flag == "--processes") o.processes = value != 0;
    else {
      std::fprintf(stderr, "usage: %s [--ranks N] [--rounds R] [--max-mib M] [--processes 1]\n", argv[0]);
      std::exit(2);
    }
  }
  return o;
}

// Rank 0 writes `bytes` under `name` in `dir`; the others wait for them.
void share_from_rank0(const Layout& l, const std::string& name, void* bytes, size_t size) {
  const std::filesystem::path file = std::filesystem::path(l.dir) / name;
  if (l.first_rank == 0) {
    const std::filesystem::path partial = file.string() + ".partial";
    std::ofstream(partial, std::ios::binary).write(static_cast<const char*>(bytes), std::streamsize(size));
    std::filesystem::rename(partial, file);  // whole or absent
    return;
  }
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(file)) {
    if (Clock::now() > deadline) die("waiting for " + file.string(), "rank 0 never wrote it");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::ifstream(file, std::ios::binary).read(static_cast<char*>(bytes), std::streamsize(size));
}

// The benchmark over the ranks of `l`; rank 0 prints. Exit status: 0 when
// every size meets 95% of NCCL's bus bandwidth.
int run(const Options& o, Layout l) {
  omnirt_host* host = nullptr;
  omnirt_backend* cuda = nullptr;
  omnirt_ok(omnirt::cuda_test::create_cuda_host(&host), "omnirt_host_create");
  omnirt_ok(omnirt_host_get_backend(host, "cuda", &cuda), "the cuda backend");
  int32_t gpus = 0;
  omnirt_ok(omnirt_get_device_count(cuda, &gpus), "omnirt_get_device_count");
  if (l.devices.empty()) {  // one process: every GPU, or --ranks of them
    l.nranks = o.ranks > 0 ? std::min<int>(o.ranks, gpus) : gpus;
    for (int r = 0; r < l.nranks; ++r) l.devices.push_back(r);
  } else if (l.devices[0] >= gpus) {
    die("rank " + std::to_string(l.first_rank), "no GPU " + std::to_string(l.devices[0]) + " here");
  }
  const int n = int(l.devices.size());  // ranks driven here
  const bool printer = l.first_rank == 0;

  // OmniRT's side: one communicator and one stream per rank driven here.
  std::vector<omnirt_comm*> comms(static_cast<size_t>(n));
  omnirt_kv_store* store = nullptr;
  if (l.dir.empty()) {
    omnirt_ok(omnirt_comm_create_local(cuda, l.devices.data(), size_t(n), comms.data()), "omnirt_comm_create_local");
  } else {
    omnirt_ok(omnirt_file_store_create((l.dir + "/omnirt").c_str(), &store), "omnirt_file_store_create");
    omnirt_comm_create_args args{};
    args.struct_size = sizeof args;
    args.nranks = l.nranks;
    args.rank = l.first_rank;
    args.device = l.devices[0];
    args.store = store;
    args.key_prefix = "";
    omnirt_ok(omnirt_comm_create(cuda, &args, &comms[0]), "omnirt_comm_create");
  }
  std::vector<omnirt_stream*> omnirt_streams(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r) {
    omnirt_ok(omnirt_stream_create(cuda, l.devices[size_t(r)], &omnirt_streams[size_t(r)]), "stream");
  }

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
    if (printer) nccl_ok(nccl, nccl.ncclGetUniqueId(&id), "ncclGetUniqueId");
    if (!l.dir.empty()) share_from_rank0(l, "nccl-id-" + std::to_string(blocking), &id, sizeof id);
    nccl_ok(nccl, nccl.ncclGroupStart(), "ncclGroupStart");
    for (int r = 0; r < n; ++r) {
      cuda_ok(cudaSetDevice(l.devices[size_t(r)]), "cudaSetDevice");
      omnirt::cuda::ncclConfig_v21700 config{sizeof config, omnirt::cuda::kNcclConfigMagic,
                                             omnirt::cuda::kNcclConfigVersion, blocking,
                                             omnirt::cuda::kNcclConfigUndefInt, omnirt::cuda::kNcclConfigUndefInt,
                                             omnirt::cuda::kNcclConfigUndefInt, nullptr};
      const auto r_init = nccl.ncclCommInitRankConfig(&made[size_t(r)], l.nranks, id, l.first_rank + r, &config);
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
    cuda_ok(cudaSetDevice(l.devices[size_t(r)]), "cudaSetDevice");
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
      cuda_ok(cudaSetDevice(l.devices[size_t(r)]), "cudaSetDevice");
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
  const double bus_factor = l.nranks > 1 ? 2.0 * (l.nranks - 1) / l.nranks : 1.0;
  if (printer) {
    std::printf("all_reduce f32 sum, %d rank(s) on %d GPU(s), %s, %s; median of %d alternating rounds\n", l.nranks,
                gpus, l.dir.empty() ? "one process driving them all" : "one process per rank", library, o.rounds);
    std::printf("nccl: NCCL called directly on blocking communicators (the baseline); nccl-nb: on non-blocking ones,\n"
                "as the plugin makes them (nccl-nb - nccl is NCCL's own cost of that mode)\n");
    std::printf("%9s %11s %11s %11s %11s %11s %9s %9s\n", "size", "nccl us", "nccl-nb us", "omnirt us", "nccl GB/s",
                "omnirt GB/s", "bw ratio", "extra us");
  }
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
    if (printer) {
      std::printf("%9s %11.2f %11.2f %11.2f %11.2f %11.2f %9.3f %9.2f%s\n", bytes_text(bytes).c_str(), td * 1e6,
                  tnb * 1e6, tm * 1e6, bus_factor * double(bytes) / td / 1e9, bus_factor * double(bytes) / tm / 1e9,
                  ratio, (tm - td) * 1e6, ratio >= 0.95 ? "" : "  BELOW 95%");
    }
  }
  if (printer) {
    std::printf("%s\n",
                ok ? "every size meets 95% of NCCL's bus bandwidth" : "some sizes miss 95% of NCCL's bus bandwidth");
  }
  for (int r = 0; r < n; ++r) {
    omnirt_comm_destroy(cuda, comms[size_t(r)]);
    omnirt_stream_destroy(cuda, omnirt_streams[size_t(r)]);
    nccl.ncclCommDestroy(direct[size_t(r)]);
    nccl.ncclCommDestroy(non_blocking[size_t(r)]);
    cudaFree(send[size_t(r)]);
    cudaFree(recv[size_t(r)]);
    cudaStreamDestroy(streams[size_t(r)]);
  }
  if (store != nullptr) omnirt_file_store_destroy(store);
  omnirt_host_destroy(host);
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each row as it is measured, also into a file
  auto rank_main = [&](int) { return run(o, Layout{}); };
  if (!o.processes) return omnirt_bench::reported(rank_main, 0);
  // One process per rank, forked before any CUDA call (a child cannot use a
  // CUDA context its parent made).
  const int nranks = o.ranks > 0 ? o.ranks : 2;
  char pattern[] = "/tmp/omnirt-nccl-bench-XXXXXX";
  if (mkdtemp(pattern) == nullptr) {
    std::perror("nccl_allreduce_bench: mkdtemp");
    return 2;
  }
  const std::string dir = pattern;
  std::filesystem::create_directories(dir + "/omnirt");
  const int result =
      omnirt_bench::run_forked_ranks(nranks, [&](int rank) { return run(o, Layout{{rank}, nranks, rank, dir}); });
  std::filesystem::remove_all(dir);
  return result;
}
