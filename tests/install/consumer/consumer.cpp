// An embedder in a few lines: make a host over one plugin directory, pick a
// backend by name, move bytes through it.
//   omnirt_consumer <plugin-dir> <backend>
// Prints "ok <backend> <plugin version>" and exits 0, or the error and exits 1.
#include <omnirt/host.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

int report_failure(const char* call) {
  const omnirt_error_info* error = omnirt_last_error();
  std::fprintf(stderr, "%s failed: %s: %s\n", call, omnirt_status_name(error->status),
               error->message);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <plugin-dir> <backend>\n", argv[0]);
    return 2;
  }
  if (OMNIRT_VERSION_MAJOR(omnirt_abi_version()) != OMNIRT_ABI_VERSION_MAJOR) {
    std::fprintf(stderr, "libomnirt speaks ABI major %u, headers %u\n",
                 unsigned(OMNIRT_VERSION_MAJOR(omnirt_abi_version())), OMNIRT_ABI_VERSION_MAJOR);
    return 1;
  }

  const char* paths[] = {argv[1]};
  omnirt_host_options options{};
  options.struct_size = sizeof options;
  options.plugin_paths = paths;
  options.num_plugin_paths = 1;
  options.flags = OMNIRT_HOST_IGNORE_ENVIRONMENT | OMNIRT_HOST_SKIP_INSTALLED_DIR;
  omnirt_host* host = nullptr;
  if (omnirt_host_create(&options, &host) != OMNIRT_STATUS_OK) return report_failure("omnirt_host_create");

  int rc = 1;
  omnirt_backend* backend = nullptr;
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  const size_t n = 4096;
  std::vector<unsigned char> in(n), out(n, 0);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<unsigned char>(i * 13);
  void* device = nullptr;

  if (omnirt_host_get_backend(host, argv[2], &backend) != OMNIRT_STATUS_OK) {
    rc = report_failure("omnirt_host_get_backend");
  } else if (omnirt_backend_get_info(backend, &info) != OMNIRT_STATUS_OK) {
    rc = report_failure("omnirt_backend_get_info");
  } else if (omnirt_malloc(backend, 0, n, &device) != OMNIRT_STATUS_OK) {
    rc = report_failure("omnirt_malloc");
  } else if (omnirt_memcpy(backend, device, in.data(), n, OMNIRT_MEMCPY_HOST_TO_DEVICE) != OMNIRT_STATUS_OK ||
             omnirt_memcpy(backend, out.data(), device, n, OMNIRT_MEMCPY_DEVICE_TO_HOST) != OMNIRT_STATUS_OK) {
    rc = report_failure("omnirt_memcpy");
  } else if (out != in) {
    std::fprintf(stderr, "bytes came back changed\n");
  } else {
    std::printf("ok %s %s\n", info.name, info.plugin_version);
    rc = 0;
  }
  if (device != nullptr && omnirt_free(backend, 0, device) != OMNIRT_STATUS_OK) rc = report_failure("omnirt_free");
  omnirt_host_destroy(host);
  return rc;
}
