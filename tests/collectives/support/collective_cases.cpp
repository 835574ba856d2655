#include "collective_cases.h"

#include "collective_values.h"

namespace omnirt_test {
namespace {

std::string failed(const std::string& what, omnirt_status status) {
  return what + ": " + omnirt_status_name(status) + ": " + omnirt_last_error()->message;
}

// Device memory of the case's device, freed at scope exit.
class Buffer {
 public:
  Buffer(const RankContext& c, size_t bytes) : c_(c) {
    status_ = omnirt_malloc(c.backend, c.device, bytes, &data_);
  }
  ~Buffer() { omnirt_free(c_.backend, c_.device, data_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  omnirt_status status() const { return status_; }
  void* data() const { return data_; }

 private:
  const RankContext& c_;
  void* data_ = nullptr;
  omnirt_status status_;
};

std::string upload(const RankContext& c, void* device, const std::vector<uint8_t>& host) {
  const omnirt_status s =
      omnirt_memcpy(c.backend, device, host.data(), host.size(), OMNIRT_MEMCPY_HOST_TO_DEVICE);
  return s == OMNIRT_STATUS_OK ? "" : failed("omnirt_memcpy to the device", s);
}

std::string download(const RankContext& c, std::vector<uint8_t>* host, const void* device) {
  if (c.stream != nullptr) {
    const omnirt_status s = omnirt_stream_synchronize(c.backend, c.stream);
    if (s != OMNIRT_STATUS_OK) return failed("omnirt_stream_synchronize", s);
  }
  const omnirt_status s =
      omnirt_memcpy(c.backend, host->data(), device, host->size(), OMNIRT_MEMCPY_DEVICE_TO_HOST);
  return s == OMNIRT_STATUS_OK ? "" : failed("omnirt_memcpy from the device", s);
}

std::string name(const std::string& collective, int32_t dtype, size_t count, int32_t op = -1) {
  return collective + " of " + std::to_string(count) + " x " + dtype_name(dtype) +
         (op >= 0 ? " (" + reduce_op_name(op) + ")" : "");
}

#define OMNIRT_CASE_CHECK(expr)              \
  do {                                       \
    std::string why_ = (expr);               \
    if (!why_.empty()) return what + ": " + why_; \
  } while (0)

}  // namespace

std::string check_all_reduce(const RankContext& c, int32_t dtype, int32_t op, size_t count,
                             bool in_place) {
  const std::string what = name(in_place ? "in-place all_reduce" : "all_reduce", dtype, count, op);
  const size_t bytes = count * dtype_size(dtype);
  Buffer send(c, bytes), recv(c, bytes);
  if (send.status() != OMNIRT_STATUS_OK || recv.status() != OMNIRT_STATUS_OK) return what + ": omnirt_malloc failed";
  const std::vector<uint8_t> input = make_input(dtype, op, c.rank, count);
  OMNIRT_CASE_CHECK(upload(c, send.data(), input));
  void* out = in_place ? send.data() : recv.data();
  const omnirt_status s = omnirt_all_reduce(c.backend, c.comm, send.data(), out, count, dtype, op, c.stream);
  if (s != OMNIRT_STATUS_OK) return failed(what, s);
  std::vector<uint8_t> result(bytes);
  OMNIRT_CASE_CHECK(download(c, &result, out));
  OMNIRT_CASE_CHECK(check_elements(dtype, result.data(), count,
                                   [&](size_t i) { return reduced_value(dtype, op, c.nranks, i); },
                                   "output"));
  if (!in_place) {  // the input is only read
    OMNIRT_CASE_CHECK(download(c, &result, send.data()));
    if (result != input) return what + ": the send buffer changed";
  }
  return "";
}

std::string check_reduce_scatter(const RankContext& c, int32_t dtype, int32_t op, size_t count) {
  const std::string what = name("reduce_scatter", dtype, count, op);
  const size_t element = dtype_size(dtype);
  const size_t total = count * size_t(c.nranks);
  Buffer send(c, total * element), recv(c, count * element);
  if (send.status() != OMNIRT_STATUS_OK || recv.status() != OMNIRT_STATUS_OK) return what + ": omnirt_malloc failed";
  OMNIRT_CASE_CHECK(upload(c, send.data(), make_input(dtype, op, c.rank, total)));
  const omnirt_status s =
      omnirt_reduce_scatter(c.backend, c.comm, send.data(), recv.data(), count, dtype, op, c.stream);
  if (s != OMNIRT_STATUS_OK) return failed(what, s);
  std::vector<uint8_t> result(count * element);
  OMNIRT_CASE_CHECK(download(c, &result, recv.data()));
  const size_t first = size_t(c.rank) * count;
  return check_elements(dtype, result.data(), count,
                        [&](size_t i) { return reduced_value(dtype, op, c.nranks, first + i); }, what);
}

std::string check_all_gather(const RankContext& c, int32_t dtype, size_t count) {
  const std::string what = name("all_gather", dtype, count);
  const size_t element = dtype_size(dtype);
  Buffer send(c, count * element), recv(c, count * size_t(c.nranks) * element);
  if (send.status() != OMNIRT_STATUS_OK || recv.status() != OMNIRT_STATUS_OK) return what + ": omnirt_malloc failed";
  OMNIRT_CASE_CHECK(upload(c, send.data(), make_input(dtype, -1, c.rank, count)));
  const omnirt_status s = omnirt_all_gather(c.backend, c.comm, send.data(), recv.data(), count, dtype, c.stream);
  if (s != OMNIRT_STATUS_OK) return failed(what, s);
  std::vector<uint8_t> result(count * size_t(c.nranks) * element);
  OMNIRT_CASE_CHECK(download(c, &result, recv.data()));
  return check_elements(dtype, result.data(), count * size_t(c.nranks),
                        [&](size_t i) { return input_value(dtype, -1, int(i / count), i % count); }, what);
}

std::string check_broadcast(const RankContext& c, int32_t dtype, size_t count, int root) {
  const std::string what = name("broadcast from rank " + std::to_string(root), dtype, count);
  const size_t bytes = count * dtype_size(dtype);
  Buffer send(c, bytes), recv(c, bytes);
  if (send.status() != OMNIRT_STATUS_OK || recv.status() != OMNIRT_STATUS_OK) return what + ": omnirt_malloc failed";
  if (c.rank == root) OMNIRT_CASE_CHECK(upload(c, send.data(), make_input(dtype, -1, root, count)));
  // Only the root's send buffer is read: the others pass none.
  const void* source = c.rank == root ? send.data() : nullptr;
  const omnirt_status s =
      omnirt_broadcast(c.backend, c.comm, source, recv.data(), count, dtype, root, c.stream);
  if (s != OMNIRT_STATUS_OK) return failed(what, s);
  std::vector<uint8_t> result(bytes);
  OMNIRT_CASE_CHECK(download(c, &result, recv.data()));
  return check_elements(dtype, result.data(), count,
                        [&](size_t i) { return input_value(dtype, -1, root, i); }, what);
}

std::string check_send_recv_ring(const RankContext& c, int32_t dtype, size_t count) {
  const std::string what = name("send/recv ring", dtype, count);
  const size_t bytes = count * dtype_size(dtype);
  Buffer outgoing(c, bytes), incoming(c, bytes);
  if (outgoing.status() != OMNIRT_STATUS_OK || incoming.status() != OMNIRT_STATUS_OK) return what + ": omnirt_malloc failed";
  OMNIRT_CASE_CHECK(upload(c, outgoing.data(), make_input(dtype, -1, c.rank, count)));
  const int next = (c.rank + 1) % c.nranks;
  const int previous = (c.rank + c.nranks - 1) % c.nranks;
  omnirt_status s = omnirt_group_start(c.backend);
  if (s != OMNIRT_STATUS_OK) return failed("omnirt_group_start", s);
  // Each call's failure is described before the next call replaces the last error.
  s = omnirt_send(c.backend, c.comm, outgoing.data(), count, dtype, next, c.stream);
  std::string why = s == OMNIRT_STATUS_OK ? "" : failed(what + ": omnirt_send", s);
  s = omnirt_recv(c.backend, c.comm, incoming.data(), count, dtype, previous, c.stream);
  if (why.empty() && s != OMNIRT_STATUS_OK) why = failed(what + ": omnirt_recv", s);
  s = omnirt_group_end(c.backend);
  if (why.empty() && s != OMNIRT_STATUS_OK) why = failed(what + ": omnirt_group_end", s);
  if (!why.empty()) return why;
  std::vector<uint8_t> result(bytes);
  OMNIRT_CASE_CHECK(download(c, &result, incoming.data()));
  return check_elements(dtype, result.data(), count,
                        [&](size_t i) { return input_value(dtype, -1, previous, i); }, what);
}

namespace {

// "" when the backend refuses to reduce `dtype` with `op` as NOT_SUPPORTED.
std::string check_refused(const RankContext& c, int32_t dtype, int32_t op) {
  const std::string what = name("all_reduce and reduce_scatter", dtype, 1, op);
  const size_t bytes = dtype_size(dtype) * size_t(c.nranks);
  Buffer send(c, bytes), recv(c, bytes);
  if (send.status() != OMNIRT_STATUS_OK || recv.status() != OMNIRT_STATUS_OK) return what + ": omnirt_malloc failed";
  const omnirt_status reduced = omnirt_all_reduce(c.backend, c.comm, send.data(), recv.data(), 1, dtype, op, c.stream);
  const omnirt_status scattered =
      omnirt_reduce_scatter(c.backend, c.comm, send.data(), recv.data(), 1, dtype, op, c.stream);
  if (reduced != OMNIRT_STATUS_NOT_SUPPORTED || scattered != OMNIRT_STATUS_NOT_SUPPORTED) {
    return what + ": answered " + omnirt_status_name(reduced) + " and " + omnirt_status_name(scattered) +
           ", not NOT_SUPPORTED";
  }
  return "";
}

}  // namespace

std::string check_every_collective(const RankContext& c, const std::vector<size_t>& counts,
                                   const Reducible& reducible) {
  for (size_t count : counts) {
    for (int32_t dtype : all_dtypes()) {
      for (int32_t op : reductions_of(dtype)) {
        if (reducible && !reducible(dtype, op)) {
          std::string why = check_refused(c, dtype, op);
          if (!why.empty()) return why;
          continue;
        }
        for (const std::string& why : {check_all_reduce(c, dtype, op, count),
                                       check_reduce_scatter(c, dtype, op, count)}) {
          if (!why.empty()) return why;
        }
      }
      const bool sums = !reducible || reducible(dtype, OMNIRT_REDUCE_SUM);
      for (const std::string& why :
           {sums ? check_all_reduce(c, dtype, OMNIRT_REDUCE_SUM, count, /*in_place=*/true) : std::string(),
            check_all_gather(c, dtype, count), check_broadcast(c, dtype, count, int(count % size_t(c.nranks))),
            c.nranks > 1 ? check_send_recv_ring(c, dtype, count) : std::string()}) {
        if (!why.empty()) return why;
      }
    }
  }
  return "";
}

}  // namespace omnirt_test
