#include "nccl_comm.h"

#include <cstring>
#include <thread>
#include <utility>

#include "cuda_device.h"
#include "cuda_status.h"
#include "omnirt_plugin_common/rendezvous.h"

namespace omnirt::cuda {
namespace {

using std::chrono::milliseconds;

ncclConfig_v21700 non_blocking_config() {
  ncclConfig_v21700 config;
  config.size = sizeof config;
  config.magic = kNcclConfigMagic;
  config.version = kNcclConfigVersion;
  config.blocking = 0;
  config.cgaClusterSize = kNcclConfigUndefInt;
  config.minCTAs = kNcclConfigUndefInt;
  config.maxCTAs = kNcclConfigUndefInt;
  config.netName = nullptr;
  return config;
}

// Polls NCCL until `handle` is no longer in progress or `deadline` passed;
// the last state seen. NCCL hands a non-blocking launch to a thread of its
// own, which ends it in 50-100 us on an H100 pair, so the first 200 us poll
// with a yield between asks; then sleeps grow to 2 ms, for connecting and
// finalizing, which wait for peers.
ncclResult_t settle(const NcclSymbols& api, ncclComm_t handle, NcclComm::Clock::time_point deadline) {
  ncclResult_t state = ncclInProgress;
  const NcclComm::Clock::time_point spin_until = NcclComm::Clock::now() + std::chrono::microseconds(200);
  for (auto pause = std::chrono::microseconds(20);;) {
    const ncclResult_t asked = api.ncclCommGetAsyncError(handle, &state);
    if (asked != ncclSuccess) return asked;
    const NcclComm::Clock::time_point now = NcclComm::Clock::now();
    if (state != ncclInProgress || now >= deadline) return state;
    if (now < spin_until) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::microseconds(2000));
    }
  }
}

}  // namespace

std::shared_ptr<NcclComm> NcclComm::create(NcclLibrary& nccl, const Symbols& cuda,
                                           const omnirt_comm_create_args& args) {
  const NcclSymbols& api = nccl.get();
  const plugin_common::Rendezvous rendezvous("cuda", args);
  rendezvous.arrive();
  std::vector<char> id(kNcclUniqueIdBytes);
  if (args.rank == 0) nccl.check(api.ncclGetUniqueId(reinterpret_cast<ncclUniqueId*>(id.data())), "ncclGetUniqueId");
  id = rendezvous.share_from(0, "nccl/unique_id", id);
  if (id.size() != kNcclUniqueIdBytes) {
    plugin::fail(OMNIRT_STATUS_INVALID_ARGUMENT,
                 "cuda: the store holds " + std::to_string(id.size()) + " bytes under '" +
                     rendezvous.key("nccl/unique_id") + "', not an NCCL unique id (key prefix reused?)");
  }
  ncclUniqueId unique_id;
  std::memcpy(unique_id.internal, id.data(), kNcclUniqueIdBytes);
  ncclComm_t handle = nullptr;
  {
    DeviceGuard guard(cuda, args.device);
    ncclConfig_v21700 config = non_blocking_config();
    const ncclResult_t result = api.ncclCommInitRankConfig(&handle, args.nranks, unique_id, args.rank, &config);
    if (result != ncclInProgress) nccl.check(result, "ncclCommInitRankConfig");
  }
  auto comm = std::make_shared<NcclComm>(nccl, cuda, handle, args.device, args.rank, args.nranks,
                                         rendezvous.timeout_ms());
  const ncclResult_t state = settle(api, handle, rendezvous.deadline());
  if (state == ncclInProgress) {
    comm->fail(OMNIRT_STATUS_TIMEOUT,
               "cuda: every rank reached the rendezvous, but NCCL did not connect rank " +
                   std::to_string(args.rank) + " to the others within " +
                   std::to_string(rendezvous.timeout_ms()) + " ms (a rank failed or left meanwhile)");
  } else if (state != ncclSuccess) {
    try {
      nccl.check(state, "ncclCommInitRankConfig", handle);
    } catch (const plugin::Error& e) {
      comm->fail(e.status(), e.what());
    }
  }
  comm->throw_if_failed();
  return comm;
}

std::vector<std::shared_ptr<NcclComm>> NcclComm::create_local(NcclLibrary& nccl, const Symbols& cuda,
                                                              const int32_t* devices, size_t count) {
  const NcclSymbols& api = nccl.get();
  ncclUniqueId unique_id;
  nccl.check(api.ncclGetUniqueId(&unique_id), "ncclGetUniqueId");
  const int nranks = static_cast<int>(count);
  std::vector<ncclComm_t> handles(count, nullptr);
  nccl.check(api.ncclGroupStart(), "ncclGroupStart");
  ncclResult_t first_error = ncclSuccess;
  for (int rank = 0; rank < nranks; ++rank) {
    DeviceGuard guard(cuda, devices[rank]);  // NCCL takes each rank's device from the current one
    ncclConfig_v21700 config = non_blocking_config();
    const ncclResult_t result =
        api.ncclCommInitRankConfig(&handles[size_t(rank)], nranks, unique_id, rank, &config);
    if (result != ncclSuccess && result != ncclInProgress && first_error == ncclSuccess) first_error = result;
  }
  const ncclResult_t ended = api.ncclGroupEnd();
  std::vector<std::shared_ptr<NcclComm>> comms;
  for (int rank = 0; rank < nranks; ++rank) {
    if (handles[size_t(rank)] == nullptr) continue;
    comms.push_back(std::make_shared<NcclComm>(nccl, cuda, handles[size_t(rank)], devices[rank], rank,
                                               nranks, plugin_common::kDefaultCommTimeoutMs));
  }
  try {
    if (first_error != ncclSuccess) nccl.check(first_error, "ncclCommInitRankConfig");
    if (ended != ncclSuccess && ended != ncclInProgress) nccl.check(ended, "ncclGroupEnd");
    if (comms.size() != count) plugin::fail(OMNIRT_STATUS_INTERNAL, "cuda: NCCL made no communicator for some rank");
    for (const auto& comm : comms) {
      const ncclComm_t handle = comm->pin();
      try {
        comm->wait_ready(handle, "ncclCommInitRankConfig");
      } catch (...) {
        comm->unpin();
        throw;
      }
      comm->unpin();
    }
  } catch (const plugin::Error& e) {
    for (const auto& comm : comms) comm->fail(e.status(), e.what());  // aborted, not flushed
    throw;
  }
  return comms;
}

NcclComm::NcclComm(NcclLibrary& nccl, const Symbols& cuda, ncclComm_t handle, int device, int rank,
                   int nranks, uint32_t timeout_ms)
    : nccl_(nccl),
      cuda_(cuda),
      device_(device),
      rank_(rank),
      nranks_(nranks),
      timeout_ms_(timeout_ms),
      handle_(handle) {}

NcclComm::~NcclComm() {
  try {
    close();
  } catch (...) {  // a leftover whose work did not finish: aborted all the same
  }
  for (const Marker& marker : markers_) cuda_.cudaEventDestroy(marker.event);
  for (cudaEvent_t event : spare_events_) cuda_.cudaEventDestroy(event);
}

void NcclComm::close() {
  std::unique_lock<std::mutex> lock(mutex_);
  // Pins end with a call, a watchdog look, a group's end; one that outlives
  // the time limit is a group never ended, whose work is not waited for.
  unpinned_.wait_for(lock, milliseconds(timeout_ms_), [&] { return pins_ == 0; });
  if (handle_ == nullptr) return;  // aborted after a failure, or closed
  const NcclSymbols& api = nccl_.get();
  DeviceGuard guard(cuda_, device_);
  // Finalize flushes what was enqueued; a flush that does not end in time (a
  // peer gone) is aborted instead.
  ncclResult_t state = api.ncclCommFinalize(handle_);
  if (state == ncclSuccess || state == ncclInProgress) {
    state = settle(api, handle_, Clock::now() + milliseconds(timeout_ms_));
  }
  const ncclComm_t handle = std::exchange(handle_, nullptr);
  if (failure_ == OMNIRT_STATUS_OK) {
    failure_ = OMNIRT_STATUS_INVALID_ARGUMENT;
    failure_message_ = "cuda: the communicator was destroyed";
  }
  if (state == ncclSuccess) {
    nccl_.check(api.ncclCommDestroy(handle), "ncclCommDestroy");
    return;
  }
  api.ncclCommAbort(handle);
  plugin::fail(state == ncclInProgress ? OMNIRT_STATUS_TIMEOUT : nccl_code(state).status,
               "cuda: the communicator of rank " + std::to_string(rank_) +
                   " was destroyed, but its last work did not finish within " +
                   std::to_string(timeout_ms_) + " ms and was aborted");
}

ncclComm_t NcclComm::pin() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_ != OMNIRT_STATUS_OK) throw plugin::Error(failure_, failure_message_);
  ++pins_;
  return handle_;
}

void NcclComm::unpin() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (--pins_ > 0) return;
  abort_unpinned_locked();
  unpinned_.notify_all();
}

void NcclComm::throw_if_failed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_ != OMNIRT_STATUS_OK) throw plugin::Error(failure_, failure_message_);
}

void NcclComm::wait_ready(ncclComm_t pinned, const char* what) {
  const ncclResult_t state = settle(nccl_.get(), pinned, Clock::now() + milliseconds(timeout_ms_));
  if (state == ncclInProgress) {
    // NCCL connects ranks when they are made and on their first collective
    // of a kind: a call that never ends is a peer that never came. The
    // communicator cannot be used again; its abort follows the last pin.
    const std::string message = std::string("cuda: ") + what + " on rank " + std::to_string(rank_) + " of " +
                                std::to_string(nranks_) + " did not finish within " + std::to_string(timeout_ms_) +
                                " ms: a rank did not join it (NCCL connects the ranks when they are made and on "
                                "their first collective of a kind, and does not tell which rank is missing); the "
                                "communicator is aborted";
    fail(OMNIRT_STATUS_TIMEOUT, message);
    plugin::fail(OMNIRT_STATUS_TIMEOUT, message);
  }
  nccl_.check(state, what, pinned);
}

void NcclComm::note(cudaStream_t stream, const plugin_common::Collective& c, uint64_t sequence) {
  std::lock_guard<std::mutex> lock(noted_mutex_);
  for (const Noted& n : noted_) {
    if (n.stream == stream) return;  // its marker will follow this work too
  }
  noted_.push_back({stream, Clock::now(), c, sequence});
}

void NcclComm::inspect() {
  ncclComm_t handle = nullptr;
  try {
    handle = pin();
  } catch (const plugin::Error&) {
    return;  // failed already: aborted, or aborting when its last pin goes
  }
  ncclResult_t state = ncclSuccess;
  const ncclResult_t asked = nccl_.get().ncclCommGetAsyncError(handle, &state);
  unpin();
  if (asked == ncclSuccess && state != ncclSuccess && state != ncclInProgress) {
    const plugin_common::VendorCode code = nccl_code(state);
    return fail(code.status, std::string("cuda: NCCL reported ") + code.name + " on rank " +
                                 std::to_string(rank_) + ": " + nccl_.get().ncclGetErrorString(state) +
                                 " (a peer failed or left; NCCL does not tell which rank)");
  }
  DeviceGuard guard(cuda_, device_);
  place_markers();
  check_markers();
}

void NcclComm::place_markers() {
  std::vector<Noted> noted;
  {
    std::lock_guard<std::mutex> lock(noted_mutex_);
    noted.swap(noted_);
  }
  std::lock_guard<std::mutex> lock(markers_mutex_);
  for (const Noted& n : noted) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cuda_.cudaStreamIsCapturing(n.stream, &capture) != cudaSuccess ||
        capture != cudaStreamCaptureStatusNone) {
      cuda_.cudaGetLastError();
      continue;
    }
    cudaEvent_t event = nullptr;
    if (!spare_events_.empty()) {
      event = spare_events_.back();
      spare_events_.pop_back();
    } else if (cuda_.cudaEventCreateWithFlags(&event, cudaEventDisableTiming) != cudaSuccess) {
      cuda_.cudaGetLastError();
      continue;
    }
    if (cuda_.cudaEventRecord(event, n.stream) != cudaSuccess) {  // the stream is gone: nothing to wait for
      cuda_.cudaGetLastError();
      spare_events_.push_back(event);
      continue;
    }
    markers_.push_back({event, n.since + milliseconds(timeout_ms_),
                        n.first.describe() + " #" + std::to_string(n.sequence)});
  }
}

void NcclComm::check_markers() {
  std::string late;
  {
    std::lock_guard<std::mutex> lock(markers_mutex_);
    while (!markers_.empty()) {
      const Marker& oldest = markers_.front();
      const cudaError_t reached = cuda_.cudaEventQuery(oldest.event);
      if (reached == cudaErrorNotReady) {
        if (Clock::now() >= oldest.deadline) late = oldest.what;
        break;
      }
      if (reached != cudaSuccess) cuda_.cudaGetLastError();  // the stream failed: its own caller hears of it
      spare_events_.push_back(oldest.event);
      markers_.pop_front();
    }
  }
  if (!late.empty()) {
    fail(OMNIRT_STATUS_TIMEOUT, "cuda: " + late + " (or work after it) on rank " + std::to_string(rank_) +
                                    " of " + std::to_string(nranks_) + " did not complete within " +
                                    std::to_string(timeout_ms_) +
                                    " ms: a rank did not join it, or joined with another count or "
                                    "dtype (NCCL does not tell which rank); the communicator is aborted");
  }
}

void NcclComm::fail(omnirt_status status, const std::string& message) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (failure_ == OMNIRT_STATUS_OK) {
    failure_ = status;
    failure_message_ = message;
  }
  abort_unpinned_locked();
}

void NcclComm::abort_unpinned_locked() {
  if (pins_ > 0 || failure_ == OMNIRT_STATUS_OK || handle_ == nullptr) return;
  DeviceGuard guard(cuda_, device_);
  nccl_.get().ncclCommAbort(std::exchange(handle_, nullptr));  // ends the kernels waiting for the missing rank
}

}  // namespace omnirt::cuda
