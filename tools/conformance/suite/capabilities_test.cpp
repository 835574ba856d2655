// Rule 7, honest capabilities: the capability record is consistent with
// itself, and every feature bit matches behaviour in both directions — an
// advertised feature's calls succeed, a cleared bit's calls return
// NOT_SUPPORTED. The groups per feature check the advertised ones in depth.
#include <vector>

#include "features.hpp"
#include "kit.hpp"
#include "module_wrap.hpp"
#include "probe.hpp"
#include "resources.hpp"

namespace omnirt::conformance {
namespace {

class Capabilities : public KitTest {
 protected:
  Capabilities() : KitTest(Needs::kBackend) {}
};

KIT_TEST(Capabilities, AreSelfConsistent, 7) {
  const omnirt_capabilities& c = caps();
  auto again = c;
  KIT_ASSERT_OK(omnirt_get_capabilities(backend(), &again));
  EXPECT_EQ(again.features, c.features) << "capabilities changed between two calls";
  EXPECT_EQ(again.dtypes, c.dtypes) << "capabilities changed between two calls";
  EXPECT_EQ(again.dl_device_type, c.dl_device_type);

  int32_t count = -1;
  KIT_ASSERT_OK(omnirt_get_device_count(backend(), &count));
  EXPECT_EQ(c.device_count, count)
      << "caps.device_count is " << c.device_count << " but get_device_count says " << count;
  if (!kit().info.available) {
    EXPECT_EQ(count, 0) << "an unavailable backend has no devices";
  }
  EXPECT_GT(c.dl_device_type, 0) << "dl_device_type must be a DLPack device type";
  ASSERT_NE(c.vendor, nullptr);
  EXPECT_STRNE(c.vendor, "") << "vendor tag is empty";

  if (OMNIRT_VERSION_MINOR(kit().info.abi_version) <= OMNIRT_ABI_VERSION_MINOR) {
    EXPECT_EQ(c.features & ~known_feature_bits(), 0u)
        << "feature bits its ABI version does not define: " << feature_names(c.features);
    EXPECT_EQ(c.dtypes >> OMNIRT_DTYPE_COUNT_1_0, 0u) << "dtype bits ABI 1.0 does not define";
  }
  for (const Feature& f : known_features()) {
    const uint64_t absent = prerequisites(f.bit) & ~c.features;
    if ((c.features & f.bit) != 0 && absent != 0) {
      ADD_FAILURE() << f.name << " is advertised but cannot be used without "
                    << feature_names(absent) << ", which is not";
    }
  }
  const bool modules = (c.features & OMNIRT_FEATURE_MODULES) != 0;
  EXPECT_EQ(modules, c.num_module_formats > 0)
      << "MODULES must be advertised exactly when module formats are listed";
  for (size_t i = 0; i < c.num_module_formats; ++i) {
    ASSERT_NE(c.module_formats, nullptr);
    ASSERT_NE(c.module_formats[i], nullptr);
    EXPECT_STRNE(c.module_formats[i], "") << "module format " << i << " is empty";
  }
  for (size_t i = 0; i < c.num_unavailable_module_formats; ++i) {
    ASSERT_NE(c.unavailable_module_formats, nullptr);
    const omnirt_module_format_unavailable& u = c.unavailable_module_formats[i];
    ASSERT_NE(u.format, nullptr) << "unavailable module format " << i;
    ASSERT_NE(u.reason, nullptr) << "unavailable module format " << i << " (" << u.format << ")";
    EXPECT_STRNE(u.reason, "") << "no reason why module format '" << u.format << "' cannot load";
    for (size_t j = 0; j < c.num_module_formats; ++j) {
      EXPECT_STRNE(u.format, c.module_formats[j]) << "a format both loadable and not";
    }
  }
}

// --- each feature's simplest use, made whether its bit is set or not -------

struct Call {
  const char* name;
  omnirt_status status;
  // What the call returns when the feature is advertised (a clear bit always
  // means NOT_SUPPORTED).
  omnirt_status when_advertised = OMNIRT_STATUS_OK;
  // What went wrong, when not the thread's last error.
  std::string detail = "";
  // What the call returns when the feature is not advertised.
  omnirt_status when_clear = OMNIRT_STATUS_NOT_SUPPORTED;
};
using Calls = std::vector<Call>;

constexpr size_t kSize = 256;

bool advertised(uint64_t feature) { return (kit().caps.features & feature) != 0; }

// The streams and events a feature's use needs from its prerequisites; NULL
// when those are absent (the host then refuses the call as INVALID_ARGUMENT,
// which fails a feature advertised without its prerequisites).
void make_stream(omnirt_backend* b, Stream* s) {
  if (advertised(OMNIRT_FEATURE_STREAMS)) omnirt_stream_create(b, 0, s->out());
}
void make_recorded_event(omnirt_backend* b, Stream* s, Event* e) {
  if (advertised(OMNIRT_FEATURE_EVENTS) && s->get() != nullptr &&
      omnirt_event_create(b, 0, e->out()) == OMNIRT_STATUS_OK) {
    omnirt_event_record(b, e->get(), s->get());
  }
}

Calls use_host_alloc(omnirt_backend* b) {
  PinnedMemory p(b);
  return {{"omnirt_malloc_host", omnirt_malloc_host(b, kSize, p.out())}};
}

Calls use_async_copy(omnirt_backend* b) {
  DeviceMemory d(b);
  omnirt_malloc(b, 0, kSize, d.out());
  Stream s(b);
  make_stream(b, &s);
  unsigned char host[kSize];
  Calls calls = {{"omnirt_memset_async", omnirt_memset_async(b, d.get(), 1, kSize, s.get())},
                 {"omnirt_memcpy_async", omnirt_memcpy_async(b, host, d.get(), kSize,
                                                             OMNIRT_MEMCPY_DEVICE_TO_HOST, s.get())}};
  if (s.get() != nullptr) omnirt_stream_synchronize(b, s.get());
  return calls;
}

Calls use_stream_ordered_alloc(omnirt_backend* b) {
  Stream s(b);
  make_stream(b, &s);
  void* p = nullptr;
  Calls calls = {{"omnirt_malloc_async", omnirt_malloc_async(b, kSize, s.get(), &p)}};
  if (calls[0].status == OMNIRT_STATUS_OK) {
    calls.push_back({"omnirt_free_async", omnirt_free_async(b, p, s.get())});
  }
  if (s.get() != nullptr) omnirt_stream_synchronize(b, s.get());
  return calls;
}

Calls use_streams(omnirt_backend* b) {
  Stream s(b);
  Calls calls = {{"omnirt_stream_create", omnirt_stream_create(b, 0, s.out())}};
  if (s.get() != nullptr) {
    calls.push_back({"omnirt_stream_synchronize", omnirt_stream_synchronize(b, s.get())});
    calls.push_back({"omnirt_stream_query", omnirt_stream_query(b, s.get())});
    calls.push_back({"omnirt_stream_destroy", s.reset()});
  }
  return calls;
}

Calls use_events(omnirt_backend* b) {
  Stream s(b);
  make_stream(b, &s);
  Event e(b);
  Calls calls = {{"omnirt_event_create", omnirt_event_create(b, 0, e.out())}};
  if (e.get() != nullptr && s.get() != nullptr) {
    calls.push_back({"omnirt_event_record", omnirt_event_record(b, e.get(), s.get())});
    calls.push_back({"omnirt_event_synchronize", omnirt_event_synchronize(b, e.get())});
    calls.push_back({"omnirt_event_query", omnirt_event_query(b, e.get())});
  }
  if (e.get() != nullptr) calls.push_back({"omnirt_event_destroy", e.reset()});
  return calls;
}

Calls use_event_timing(omnirt_backend* b) {
  Stream s(b);
  make_stream(b, &s);
  Event start(b), end(b);
  make_recorded_event(b, &s, &start);
  make_recorded_event(b, &s, &end);
  if (end.get() != nullptr) omnirt_event_synchronize(b, end.get());
  float ms = -1;
  return {{"omnirt_event_elapsed_time", omnirt_event_elapsed_time(b, start.get(), end.get(), &ms)}};
}

Calls use_stream_wait_event(omnirt_backend* b) {
  Stream s(b);
  make_stream(b, &s);
  Event e(b);
  make_recorded_event(b, &s, &e);
  Calls calls = {{"omnirt_stream_wait_event", omnirt_stream_wait_event(b, s.get(), e.get())}};
  if (s.get() != nullptr) omnirt_stream_synchronize(b, s.get());
  return calls;
}

Calls use_default_stream(omnirt_backend* b) {
  omnirt_stream* s = nullptr;
  Calls calls = {{"omnirt_stream_get_default", omnirt_stream_get_default(b, 0, &s)}};
  if (s != nullptr) calls.push_back({"omnirt_stream_synchronize", omnirt_stream_synchronize(b, s)});
  return calls;
}

Calls use_mem_info(omnirt_backend* b) {
  size_t free_bytes = 0, total_bytes = 0;
  return {{"omnirt_mem_get_info", omnirt_mem_get_info(b, 0, &free_bytes, &total_bytes)}};
}

Calls use_memory_stats(omnirt_backend* b) {
  omnirt_memory_stats stats{};
  stats.struct_size = sizeof stats;
  return {{"omnirt_get_memory_stats", omnirt_get_memory_stats(b, 0, &stats)},
          {"omnirt_reset_memory_stats", omnirt_reset_memory_stats(b, 0)}};
}

Calls use_graph_capture(omnirt_backend* b) {
  Stream s(b);
  make_stream(b, &s);
  Calls calls = {{"omnirt_stream_begin_capture", omnirt_stream_begin_capture(b, s.get())}};
  if (calls[0].status == OMNIRT_STATUS_OK) {
    Graph g(b);
    calls.push_back({"omnirt_stream_end_capture", omnirt_stream_end_capture(b, s.get(), g.out())});
    if (g.get() != nullptr) calls.push_back({"omnirt_graph_destroy", g.reset()});
  }
  return calls;
}

Calls use_named_ops(omnirt_backend* b) {
  const omnirt_op_set* sets = nullptr;
  size_t count = 0;
  return {{"omnirt_list_op_sets", omnirt_list_op_sets(b, &sets, &count)}};
}

// A corrupt module in a format the backend lists, at one tier: with the
// feature, the tier hands it to the plugin, which refuses it as
// INVALID_ARGUMENT; without it, the tier answers NOT_SUPPORTED.
Calls use_module_tier(omnirt_backend* b, const std::string& tier) {
  const omnirt_capabilities& caps = kit().caps;
  const char* format = caps.num_module_formats > 0 ? caps.module_formats[0] : "torchscript";
  Wrapped w;
  wrap(b, corrupt_module(format), nullptr, tier == "compile" ? 0 : OMNIRT_WRAP_DISABLE_COMPILE, &w);
  const WrapAttempt* a = w.attempt(tier);
  Call call{"omnirt_wrap_module", OMNIRT_STATUS_INTERNAL, OMNIRT_STATUS_INVALID_ARGUMENT};
  if (!w.problem.empty()) {
    call.detail = w.problem;
  } else if (a == nullptr) {
    call.detail = "the wrap_module policy never tried the " + tier + " tier";
  } else {
    call.status = a->status;
    call.detail = tier + " tier: " + a->reason;
  }
  return {call};
}
Calls use_modules(omnirt_backend* b) { return use_module_tier(b, "eager"); }
Calls use_compile(omnirt_backend* b) { return use_module_tier(b, "compile"); }

// Naming an output needs a module that returns a dict, which the kit cannot
// make for every format: an advertised feature must at least have its slot.
// With the bit clear the host never calls the slot, so there is nothing to see.
Calls use_output_names(omnirt_backend*) {
  const bool slot = shared_probe("raw")["output_name_slot"] == "1";
  const bool usable = advertised(OMNIRT_FEATURE_OUTPUT_NAMES) && slot;
  return {{"the output_name slot", usable ? OMNIRT_STATUS_OK : OMNIRT_STATUS_NOT_SUPPORTED,
           OMNIRT_STATUS_OK, usable ? "" : "the vtable has no output_name slot"}};
}

// Loading a real engine is format-specific (and slow): an advertised
// engine_prepare must be there and refuse a format no engine loads.
Calls use_engine_prepare(omnirt_backend*) {
  const ProbeResult& raw = shared_probe("raw");
  const bool usable = advertised(OMNIRT_FEATURE_ENGINE_PREPARE) && raw["engine_prepare_slot"] == "1";
  if (!usable) {
    return {{"the engine_prepare slot", OMNIRT_STATUS_NOT_SUPPORTED, OMNIRT_STATUS_OK,
             "the vtable has no engine_prepare slot"}};
  }
  const auto status = static_cast<omnirt_status>(std::stoi(raw["engine_prepare_unknown_format"]));
  if (status == OMNIRT_STATUS_NOT_SUPPORTED) return {{"engine_prepare", OMNIRT_STATUS_OK}};
  // Anything else, OK included, is wrong: reported as what it returned.
  return {{"engine_prepare of an unknown format", OMNIRT_STATUS_INTERNAL, OMNIRT_STATUS_OK,
           std::string("returned ") + omnirt_status_name(status) + ", not NOT_SUPPORTED"}};
}

Calls use_peer_copy(omnirt_backend* b) {
  DeviceMemory d0(b, 0), d1(b, 1);
  omnirt_malloc(b, 0, kSize, d0.out());
  omnirt_malloc(b, 1, kSize, d1.out());
  return {{"omnirt_memcpy (device 0 to device 1)",
           omnirt_memcpy(b, d1.get(), d0.get(), kSize, OMNIRT_MEMCPY_DEVICE_TO_DEVICE)}};
}

// A communicator of one rank made without a store, its all_reduce, its end.
// A backend whose collective library is not here (its bit clear) may answer
// UNAVAILABLE with the reason instead of NOT_SUPPORTED: it implements the
// feature, where the library is.
Calls use_collectives(omnirt_backend* b) {
  const int32_t device = 0;
  omnirt_comm* comm = nullptr;
  Calls calls = {{"omnirt_comm_create_local", omnirt_comm_create_local(b, &device, 1, &comm)}};
  if (!advertised(OMNIRT_FEATURE_COLLECTIVES) && calls[0].status == OMNIRT_STATUS_UNAVAILABLE) {
    calls[0].when_clear = OMNIRT_STATUS_UNAVAILABLE;
  }
  if (comm != nullptr) {
    DeviceMemory d(b);
    omnirt_malloc(b, 0, kSize, d.out());
    calls.push_back({"omnirt_all_reduce", omnirt_all_reduce(b, comm, d.get(), d.get(), kSize / sizeof(float),
                                                            OMNIRT_DTYPE_F32, OMNIRT_REDUCE_SUM, nullptr)});
    calls.push_back({"omnirt_comm_destroy", omnirt_comm_destroy(b, comm)});
  }
  return calls;
}

class Features : public KitTest, public ::testing::WithParamInterface<Feature> {};

KIT_TEST_P(Features, MatchBehaviour, 7) {
  const Feature& f = GetParam();
  Calls (*use)(omnirt_backend*) = nullptr;
  switch (f.bit) {
    case OMNIRT_FEATURE_HOST_ALLOC: use = use_host_alloc; break;
    case OMNIRT_FEATURE_ASYNC_COPY: use = use_async_copy; break;
    case OMNIRT_FEATURE_STREAM_ORDERED_ALLOC: use = use_stream_ordered_alloc; break;
    case OMNIRT_FEATURE_STREAMS: use = use_streams; break;
    case OMNIRT_FEATURE_EVENTS: use = use_events; break;
    case OMNIRT_FEATURE_EVENT_TIMING: use = use_event_timing; break;
    case OMNIRT_FEATURE_STREAM_WAIT_EVENT: use = use_stream_wait_event; break;
    case OMNIRT_FEATURE_MEM_INFO: use = use_mem_info; break;
    case OMNIRT_FEATURE_MEMORY_STATS: use = use_memory_stats; break;
    case OMNIRT_FEATURE_GRAPH_CAPTURE: use = use_graph_capture; break;
    case OMNIRT_FEATURE_MODULES: use = use_modules; break;
    case OMNIRT_FEATURE_COMPILE: use = use_compile; break;
    case OMNIRT_FEATURE_NAMED_OPS: use = use_named_ops; break;
    case OMNIRT_FEATURE_DEFAULT_STREAM: use = use_default_stream; break;
    case OMNIRT_FEATURE_OUTPUT_NAMES: use = use_output_names; break;
    case OMNIRT_FEATURE_COLLECTIVES: use = use_collectives; break;
    case OMNIRT_FEATURE_ENGINE_PREPARE: use = use_engine_prepare; break;
    case OMNIRT_FEATURE_PEER_COPY:
      if (kit().device_count < 2) GTEST_SKIP() << "PEER_COPY needs two devices to check";
      use = use_peer_copy;
      break;
    default:
      GTEST_FAIL() << "the kit has no check for " << f.name;
  }
  const bool set = advertised(f.bit);
  const uint64_t unreachable = prerequisites(f.bit) & ~kit().caps.features;
  if (!set && unreachable != 0) {
    GTEST_SKIP() << f.name << " cannot be called without " << feature_names(unreachable)
                 << ", which is not advertised either";
  }
  for (const Call& call : use(backend())) {
    const omnirt_status want = set ? call.when_advertised : call.when_clear;
    EXPECT_EQ(call.status, want)
        << f.name << (set ? " is advertised" : " is not advertised") << " but " << call.name
        << " returned "
        << (call.detail.empty() ? describe_failure(call.status)
                                : std::string(omnirt_status_name(call.status)) + " (" +
                                      call.detail + ")")
        << ", expected " << omnirt_status_name(want);
  }
}

INSTANTIATE_TEST_SUITE_P(, Features, ::testing::ValuesIn(known_features()),
                         [](const ::testing::TestParamInfo<Feature>& param) {
                           return std::string(param.param.name);
                         });

}  // namespace
}  // namespace omnirt::conformance
