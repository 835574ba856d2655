#include "collective_sim.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <tuple>

#include "omnirt_plugin_common/half_float.h"
#include "sim_enqueue.h"

namespace omnirt::sim {
namespace {

using omnirt::plugin_common::bf16_to_float;
using omnirt::plugin_common::float_to_bf16;
using omnirt::plugin_common::float_to_half;
using omnirt::plugin_common::half_to_float;

template <class T>
T combine(T a, T b, Reduction r) {
  switch (r) {
    case Reduction::kProd: return static_cast<T>(a * b);
    case Reduction::kMax: return a < b ? b : a;
    case Reduction::kMin: return b < a ? b : a;
    default: return static_cast<T>(a + b);
  }
}

template <class T>
void reduce_typed(void* into, const void* from, size_t count, Reduction r) {
  T* a = static_cast<T*>(into);
  const T* b = static_cast<const T*>(from);
  for (size_t i = 0; i < count; ++i) a[i] = combine(a[i], b[i], r);
}

template <float (*To)(uint16_t), uint16_t (*From)(float)>
void reduce_16(void* into, const void* from, size_t count, Reduction r) {
  auto* a = static_cast<uint16_t*>(into);
  const auto* b = static_cast<const uint16_t*>(from);
  for (size_t i = 0; i < count; ++i) a[i] = From(combine(To(a[i]), To(b[i]), r));
}

// into[i] = into[i] (r) from[i] for `count` elements.
void reduce(void* into, const void* from, size_t count, Element e, Reduction r) {
  switch (e) {
    case Element::kI8: return reduce_typed<int8_t>(into, from, count, r);
    case Element::kI16: return reduce_typed<int16_t>(into, from, count, r);
    case Element::kI32: return reduce_typed<int32_t>(into, from, count, r);
    case Element::kI64: return reduce_typed<int64_t>(into, from, count, r);
    case Element::kU8: return reduce_typed<uint8_t>(into, from, count, r);
    case Element::kU16: return reduce_typed<uint16_t>(into, from, count, r);
    case Element::kU32: return reduce_typed<uint32_t>(into, from, count, r);
    case Element::kU64: return reduce_typed<uint64_t>(into, from, count, r);
    case Element::kF16: return reduce_16<&half_to_float, &float_to_half>(into, from, count, r);
    case Element::kBF16: return reduce_16<&bf16_to_float, &float_to_bf16>(into, from, count, r);
    case Element::kF32: return reduce_typed<float>(into, from, count, r);
    case Element::kF64: return reduce_typed<double>(into, from, count, r);
  }
}

bool reduces(Kind k) { return k == Kind::kAllReduce || k == Kind::kReduceScatter; }

bool same_shape(const Part& a, const Part& b) {
  return a.kind == b.kind && a.count == b.count && a.element == b.element &&
         (!reduces(a.kind) || a.reduction == b.reduction) && (a.kind != Kind::kBroadcast || a.peer == b.peer);
}

using Bytes = std::vector<uint8_t>;

const uint8_t* bytes_of(const void* p) { return static_cast<const uint8_t*>(p); }

// Runs a collective whose parts all arrived and agree.
void execute(const std::vector<Part>& parts) {
  const Part& first = parts[0];
  const size_t n = parts.size();
  const size_t bytes = first.count * element_size(first.element);
  switch (first.kind) {
    case Kind::kAllReduce:
    case Kind::kReduceScatter: {
      const size_t total = first.kind == Kind::kAllReduce ? first.count : first.count * n;
      Bytes sum(bytes_of(first.send), bytes_of(first.send) + total * element_size(first.element));
      for (size_t r = 1; r < n; ++r) reduce(sum.data(), parts[r].send, total, first.element, first.reduction);
      for (size_t r = 0; r < n; ++r) {
        const size_t offset = first.kind == Kind::kAllReduce ? 0 : r * bytes;
        std::memcpy(parts[r].recv, sum.data() + offset, bytes);
      }
      return;
    }
    case Kind::kAllGather: {
      Bytes all(bytes * n);
      for (size_t r = 0; r < n; ++r) std::memcpy(all.data() + r * bytes, parts[r].send, bytes);
      for (size_t r = 0; r < n; ++r) std::memcpy(parts[r].recv, all.data(), all.size());
      return;
    }
    case Kind::kBroadcast: {
      const Bytes root(bytes_of(parts[size_t(first.peer)].send), bytes_of(parts[size_t(first.peer)].send) + bytes);
      for (size_t r = 0; r < n; ++r) std::memcpy(parts[r].recv, root.data(), bytes);
      return;
    }
    default:
      return;
  }
}

}  // namespace

std::chrono::milliseconds collective_timeout() {
  const char* value = std::getenv("OMNIRT_SIM_COLLECTIVE_TIMEOUT_MS");
  return std::chrono::milliseconds(value != nullptr ? std::strtol(value, nullptr, 10) : 10000);
}

Refusal check(const Part& part, int nranks) {
  const bool moves = part.count > 0;
  if (moves && ((part.kind != Kind::kRecv && part.send == nullptr) ||
                (part.kind != Kind::kSend && part.recv == nullptr))) {
    return Refusal::kNullPointer;
  }
  const bool names_a_rank = part.kind == Kind::kBroadcast || part.kind == Kind::kSend || part.kind == Kind::kRecv;
  if (names_a_rank && (part.peer < 0 || part.peer >= nranks)) return Refusal::kBadArgument;
  return Refusal::kNone;
}

size_t element_size(Element element) {
  switch (element) {
    case Element::kI8:
    case Element::kU8: return 1;
    case Element::kI16:
    case Element::kU16:
    case Element::kF16:
    case Element::kBF16: return 2;
    case Element::kI32:
    case Element::kU32:
    case Element::kF32: return 4;
    default: return 8;
  }
}

// The ranks of one group and their meetings.
class Group {
 public:
  explicit Group(int nranks) : nranks_(nranks) {}
  int nranks() const { return nranks_; }

  bool join(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    ++joined_;
    changed_.notify_all();
    return changed_.wait_for(lock, timeout, [&] { return joined_ >= nranks_; });
  }

  Failure meet(int rank, uint64_t sequence, const Part& part, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    Meeting& m = meetings_[sequence];
    if (m.parts.empty()) m.parts.resize(size_t(nranks_));
    if (m.finished) return Failure::kTimeout;  // the others gave up on us already
    m.parts[size_t(rank)] = part;
    if (++m.arrived == nranks_) {
      const bool agree = std::all_of(m.parts.begin(), m.parts.end(),
                                     [&](const Part& p) { return same_shape(p, m.parts[0]); });
      if (agree) execute(m.parts);
      m.failure = agree ? Failure::kNone : Failure::kMismatch;
      m.finished = true;
      changed_.notify_all();
    } else if (!changed_.wait_for(lock, timeout, [&] { return m.finished; })) {
      m.failure = Failure::kTimeout;
      m.finished = true;
      changed_.notify_all();
    }
    return m.failure;
  }

  using TransferKey = std::tuple<int, int, uint64_t>;  // source, destination, number

  // Posts a send or receive: the second of the pair to be posted copies the
  // data. The key to wait on with complete().
  TransferKey post(int rank, uint64_t sequence, const Part& part) {
    const bool sending = part.kind == Kind::kSend;
    const TransferKey key = sending ? TransferKey{rank, part.peer, sequence} : TransferKey{part.peer, rank, sequence};
    std::lock_guard<std::mutex> lock(mutex_);
    Transfer& t = transfers_[key];
    if (t.finished) return key;  // the other side gave up on us already
    if (!t.posted) {
      t.first = part;
      t.posted = true;
      return key;
    }
    const Part& send = sending ? part : t.first;
    const Part& recv = sending ? t.first : part;
    const size_t bytes = send.count * element_size(send.element);
    const bool agree = bytes == recv.count * element_size(recv.element);
    if (agree) std::memcpy(recv.recv, send.send, bytes);
    t.failure = agree ? Failure::kNone : Failure::kMismatch;
    t.finished = true;
    changed_.notify_all();
    return key;
  }

  // Waits until the transfer posted under `key` is done, up to `timeout`.
  Failure complete(const TransferKey& key, std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    Transfer& t = transfers_[key];
    if (!changed_.wait_for(lock, timeout, [&] { return t.finished; })) {
      t.failure = Failure::kTimeout;
      t.finished = true;
    }
    return t.failure;
  }

 private:
  struct Meeting {
    std::vector<Part> parts;
    int arrived = 0;
    bool finished = false;
    Failure failure = Failure::kNone;
  };
  struct Transfer {
    Part first{};
    bool posted = false;
    bool finished = false;
    Failure failure = Failure::kNone;
  };

  const int nranks_;
  std::mutex mutex_;
  std::condition_variable changed_;
  int joined_ = 0;
  std::map<uint64_t, Meeting> meetings_;
  std::map<std::tuple<int, int, uint64_t>, Transfer> transfers_;
};

namespace {

// Groups by id, alive while a rank holds them.
std::mutex& registry_mutex() {
  static std::mutex m;
  return m;
}
std::map<uint64_t, std::weak_ptr<Group>>& registry() {
  static std::map<uint64_t, std::weak_ptr<Group>> groups;
  return groups;
}

}  // namespace

uint64_t Rank::new_group_id() {
  static std::mt19937_64 random{std::random_device{}()};
  std::lock_guard<std::mutex> lock(registry_mutex());
  return random() | 1;  // never 0
}

std::shared_ptr<Rank> Rank::join(uint64_t id, int rank, int nranks, std::chrono::milliseconds timeout) {
  std::shared_ptr<Group> group;
  {
    std::lock_guard<std::mutex> lock(registry_mutex());
    std::weak_ptr<Group>& entry = registry()[id];
    group = entry.lock();
    if (group == nullptr) {
      group = std::make_shared<Group>(nranks);
      entry = group;
    }
  }
  if (group->nranks() != nranks || rank < 0 || rank >= nranks || !group->join(timeout)) return nullptr;
  return std::make_shared<Rank>(group, rank);
}

std::vector<std::shared_ptr<Rank>> Rank::make_all(int n) {
  auto group = std::make_shared<Group>(n);
  std::vector<std::shared_ptr<Rank>> ranks;
  for (int rank = 0; rank < n; ++rank) ranks.push_back(std::make_shared<Rank>(group, rank));
  return ranks;
}

Rank::Rank(std::shared_ptr<Group> group, int rank)
    : group_(std::move(group)),
      rank_(rank),
      timeout_(collective_timeout()),
      next_send_(new std::atomic<uint64_t>[size_t(group_->nranks())]()),
      next_recv_(new std::atomic<uint64_t>[size_t(group_->nranks())]()) {}

int Rank::nranks() const { return group_->nranks(); }

Rank::Work Rank::issue(const Part& part) {
  const bool p2p = part.kind == Kind::kSend || part.kind == Kind::kRecv;
  uint64_t sequence = 0;
  if (part.kind == Kind::kSend) {
    sequence = next_send_[size_t(part.peer)].fetch_add(1);
  } else if (part.kind == Kind::kRecv) {
    sequence = next_recv_[size_t(part.peer)].fetch_add(1);
  } else {
    sequence = next_collective_.fetch_add(1);
  }
  // The work holds the rank: a stream may run it after the communicator's
  // handle was destroyed.
  auto self = shared_from_this();
  auto report = [self](Failure failure) {
    Failure none = Failure::kNone;
    if (failure != Failure::kNone) self->error_.compare_exchange_strong(none, failure);
  };
  if (!p2p) {
    return {[self, part, sequence, report] { report(self->group_->meet(self->rank_, sequence, part, self->timeout_)); },
            [] {}};
  }
  auto key = std::make_shared<Group::TransferKey>();
  return {[self, part, sequence, key] { *key = self->group_->post(self->rank_, sequence, part); },
          [self, key, report] { report(self->group_->complete(*key, self->timeout_)); }};
}

namespace {

// One stream task for `works`: every start, then every finish.
bool enqueue(int device, void* stream, std::vector<Rank::Work> works) {
  auto* boxed = new std::vector<Rank::Work>(std::move(works));
  auto run = [](void* arg) {
    auto* held = static_cast<std::vector<Rank::Work>*>(arg);
    for (Rank::Work& w : *held) w.start();
    for (Rank::Work& w : *held) w.finish();
    delete held;
  };
  if (omnirt_sim_enqueue(device, stream, run, boxed) == 0) return true;
  delete boxed;
  return false;
}

// The calling thread's open group: plain pointers and ints, no destructors
// (see acl_sim.cpp).
struct Held {
  int device;  // whose default stream NULL was when the call was made
  void* stream;
  Rank::Work work;
};
thread_local int t_group_depth = 0;
thread_local std::vector<Held>* t_held = nullptr;

}  // namespace

bool launch(void* stream, Rank::Work work) {
  const int device = omnirt_sim_current_device();
  if (t_group_depth > 0) {
    t_held->push_back({device, stream, std::move(work)});
    return true;
  }
  return enqueue(device, stream, {std::move(work)});
}

void group_start() {
  if (t_group_depth++ == 0) t_held = new std::vector<Held>();
}

bool group_end() {
  if (t_group_depth == 0) return false;
  if (--t_group_depth > 0) return true;
  std::unique_ptr<std::vector<Held>> held(t_held);
  t_held = nullptr;
  // One task per stream, its calls in the order they were made.
  bool launched = true;
  while (!held->empty()) {
    const int device = held->front().device;
    void* stream = held->front().stream;
    std::vector<Rank::Work> works;
    for (auto it = held->begin(); it != held->end();) {
      if (it->stream != stream || (stream == nullptr && it->device != device)) {
        ++it;
        continue;
      }
      works.push_back(std::move(it->work));
      it = held->erase(it);
    }
    launched = enqueue(device, stream, std::move(works)) && launched;
  }
  return launched;
}

}  // namespace omnirt::sim
