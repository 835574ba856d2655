// Two processes all-reduce a tensor through OmniRT: each joins a
// communicator of the selected backend, meeting the other through the host's
// file store, puts its tensor in device memory and sums it with the other's.
//
//   allreduce_example STORE_DIR [BACKEND]
//       runs both ranks: starts this program twice with --rank
//   allreduce_example STORE_DIR BACKEND --rank R --nranks N
//       runs rank R of N (start one per process, on one machine or several
//       sharing STORE_DIR)
//
// Rank r's tensor is 2x3 of (r + 1) * (1, 2, 3, 4, 5, 6); the sum over two
// ranks is 3 * (1, ..., 6). Device: rank r uses device r % device_count.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "omnirt/cpp/host.hpp"

namespace {

void check(omnirt_status status, const std::string& what) {
  if (status != OMNIRT_STATUS_OK) {
    throw std::runtime_error(what + " failed: " + omnirt_status_name(status) + ": " +
                             omnirt::last_error().message);
  }
}

int run_rank(const std::string& store_dir, const std::string& backend_name, int rank, int nranks) {
  omnirt::Host host;
  omnirt::Backend backend;
  check(host.create(), "omnirt_host_create");
  check(host.backend(backend_name.c_str(), &backend), "selecting backend " + backend_name);
  int32_t devices = 0;
  check(backend.device_count(&devices), "omnirt_get_device_count");
  const int32_t device = rank % devices;

  // The store outlives the communicator: declared first, destroyed last.
  omnirt::FileStore store;
  check(store.create(store_dir.c_str()), "omnirt_file_store_create");
  omnirt::Communicator comm;
  check(backend.create_communicator(store, nranks, rank, device, &comm, /*timeout_ms=*/30000, "example/"),
        "omnirt_comm_create");

  // A 2x3 float tensor in the device's memory.
  std::vector<float> tensor(6);
  for (size_t i = 0; i < tensor.size(); ++i) tensor[i] = float(rank + 1) * float(i + 1);
  omnirt::DeviceBuffer buffer;
  const size_t bytes = tensor.size() * sizeof(float);
  check(backend.malloc(device, bytes, &buffer), "omnirt_malloc");
  check(backend.memcpy(buffer.data(), tensor.data(), bytes, OMNIRT_MEMCPY_HOST_TO_DEVICE), "copy to the device");

  // In place, on the device's default stream; the copy back waits for it.
  float* data = static_cast<float*>(buffer.data());
  check(comm.all_reduce(data, data, tensor.size(), OMNIRT_REDUCE_SUM), "omnirt_all_reduce");
  check(backend.memcpy(tensor.data(), buffer.data(), bytes, OMNIRT_MEMCPY_DEVICE_TO_HOST), "copy to the host");

  char library[256] = "";
  check(backend.collectives_library(library, sizeof library), "omnirt_collectives_library");
  std::printf("rank %d of %d (%s device %d, %s): sum = [[%g, %g, %g], [%g, %g, %g]]\n", rank, nranks,
              backend_name.c_str(), device, library, tensor[0], tensor[1], tensor[2], tensor[3], tensor[4],
              tensor[5]);
  return 0;
}

// Starts this program once per rank and waits for all of them.
int run_all(const char* self, const std::string& store_dir, const std::string& backend_name, int nranks) {
  std::vector<pid_t> children;
  for (int rank = 0; rank < nranks; ++rank) {
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      const std::string r = std::to_string(rank), n = std::to_string(nranks);
      execl(self, self, store_dir.c_str(), backend_name.c_str(), "--rank", r.c_str(), "--nranks", n.c_str(),
            static_cast<char*>(nullptr));
      _exit(127);
    }
    children.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s STORE_DIR [BACKEND] [--rank R --nranks N]\n", argv[0]);
    return 2;
  }
  const std::string store_dir = argv[1];
  const std::string backend_name = argc > 2 ? argv[2] : "cpu";
  try {
    if (argc == 7 && std::string(argv[3]) == "--rank" && std::string(argv[5]) == "--nranks") {
      return run_rank(store_dir, backend_name, std::atoi(argv[4]), std::atoi(argv[6]));
    }
    return run_all(argv[0], store_dir, backend_name, 2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allreduce_example: %s\n", e.what());
    return 1;
  }
}
