// libomnirt_cpu_gloo.so's one export: the omnirt_cpu_gloo_api table. Every
// entry converts what it throws into a status and a message.
#include <gloo/config.h>
#include <gloo/transport/tcp/device.h>

#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../gloo_api.h"
#include "gloo_comm.h"
#include "local_store.h"
#include "omnirt_plugin_common/rendezvous.h"
#include "sigpipe_blocked.h"

#define OMNIRT_GLOO_STR_(x) #x
#define OMNIRT_GLOO_STR(x) OMNIRT_GLOO_STR_(x)

namespace omnirt::cpu::gloo_lib {
namespace {

void write_message(char* message, size_t capacity, const std::string& text) {
  plugin::detail::copy_text(message, capacity, text);
}

template <class Body>
omnirt_status guarded(char* message, size_t capacity, Body&& body) noexcept {
  try {
    body();
    return OMNIRT_STATUS_OK;
  } catch (const plugin::Error& e) {
    write_message(message, capacity, e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    write_message(message, capacity, "cpu: out of host memory in gloo");
    return OMNIRT_STATUS_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    write_message(message, capacity, std::string("cpu: gloo: ") + e.what());
    return OMNIRT_STATUS_INTERNAL;
  } catch (...) {
    write_message(message, capacity, "cpu: unknown exception in gloo");
    return OMNIRT_STATUS_INTERNAL;
  }
}

// guarded() for the entries that touch gloo's sockets, with SIGPIPE blocked
// (sigpipe_blocked.h): a peer that died must fail the call, not end this
// process.
template <class Body>
omnirt_status guarded_io(char* message, size_t capacity, Body&& body) noexcept {
  const SigpipeBlocked sigpipe_blocked;
  return guarded(message, capacity, std::forward<Body>(body));
}

// One TCP device (one I/O thread) per address for every communicator of the
// process; made by the first communicator that needs it.
std::shared_ptr<gloo::transport::Device> device_for(const std::string& hostname) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<gloo::transport::Device>> devices;
  std::lock_guard<std::mutex> lock(mutex);
  std::weak_ptr<gloo::transport::Device>& cached = devices[hostname];
  if (auto device = cached.lock()) return device;
  gloo::transport::tcp::attr attr;
  attr.hostname = hostname;  // "": gloo resolves this machine's hostname
  auto device = gloo::transport::tcp::CreateDevice(attr);
  cached = device;
  return device;
}

GlooComm* comm_of(omnirt_cpu_gloo_comm* comm) { return static_cast<GlooComm*>(comm); }

omnirt_status comm_create(const omnirt_comm_create_args* args, const char* hostname,
                          omnirt_cpu_gloo_comm** comm, char* message, size_t capacity) {
  return guarded_io(message, capacity, [&] {
    *comm = new GlooComm(device_for(hostname), *args->store, args->key_prefix, args->rank,
                         args->nranks, plugin_common::comm_timeout_ms(*args));
  });
}

// The ranks meet in threads of their own: each blocks until all connected.
omnirt_status comm_create_local(int32_t nranks, omnirt_cpu_gloo_comm** comms, char* message,
                                size_t capacity) {
  return guarded_io(message, capacity, [&] {
    auto store = std::make_shared<LocalStore>();
    auto device = device_for("127.0.0.1");
    std::vector<std::unique_ptr<GlooComm>> made(static_cast<size_t>(nranks));
    std::vector<std::exception_ptr> errors(static_cast<size_t>(nranks));
    std::vector<std::thread> threads;
    for (int32_t rank = 0; rank < nranks; ++rank) {
      threads.emplace_back([&, rank] {
        try {
          made[size_t(rank)] = std::make_unique<GlooComm>(device, store->kv(), "", rank, nranks,
                                                          plugin_common::kDefaultCommTimeoutMs, store);
        } catch (...) {
          errors[size_t(rank)] = std::current_exception();
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
    for (const std::exception_ptr& error : errors) {
      if (error) std::rethrow_exception(error);
    }
    for (size_t i = 0; i < made.size(); ++i) comms[i] = made[i].release();
  });
}

void comm_destroy(omnirt_cpu_gloo_comm* comm) {
  const SigpipeBlocked sigpipe_blocked;  // closing its connections may write to a dead peer
  delete comm_of(comm);
}

omnirt_status run(omnirt_cpu_gloo_comm* comm, const omnirt_cpu_gloo_op* ops, size_t num_ops,
                  char* message, size_t capacity) {
  return guarded_io(message, capacity, [&] { comm_of(comm)->run(ops, num_ops); });
}

omnirt_status comm_error(omnirt_cpu_gloo_comm* comm, char* message, size_t capacity) {
  return guarded(message, capacity, [&] { comm_of(comm)->throw_if_failed(); });
}

const omnirt_cpu_gloo_api kApi = {
    sizeof(omnirt_cpu_gloo_api),
    OMNIRT_CPU_GLOO_API_VERSION,
    "gloo " OMNIRT_GLOO_STR(GLOO_VERSION_MAJOR) "." OMNIRT_GLOO_STR(GLOO_VERSION_MINOR) "." OMNIRT_GLOO_STR(
        GLOO_VERSION_PATCH) " (TCP)",
    &comm_create,
    &comm_create_local,
    &comm_destroy,
    &run,
    &comm_error,
};

}  // namespace
}  // namespace omnirt::cpu::gloo_lib

extern "C" OMNIRT_EXPORT const omnirt_cpu_gloo_api* omnirt_cpu_gloo_get(void) {
  return &omnirt::cpu::gloo_lib::kApi;
}
