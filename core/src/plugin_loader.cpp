#include "plugin_loader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string_view>

#include "backend_name.h"
#include "error.h"
#include "host_services.h"
#include "logging.h"
#include "plugin_text.h"
#include "shared_library.h"
#include "stopwatch.h"
#include "vtable_slots.h"

namespace omnirt {
namespace {

using Vtable = omnirt_backend_vtable;

/// Size of the ABI 1.0 vtable, the smallest a 1.x plugin can have: every
/// required slot lives in it. Frozen; later minors only append.
constexpr size_t kVtableSize_1_0 = offsetof(Vtable, op_run) + sizeof(Vtable::op_run);
/// Larger than any vtable will ever be: a bigger struct_size is garbage.
constexpr size_t kMaxVtableSize = 64 * 1024;
/// Capacity handed to is_available() for its reason: the longest message and its NUL.
constexpr size_t kReasonCapacity = OMNIRT_TEXT_MAX_MESSAGE + 1;

std::mutex& loader_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::string version_string(uint32_t version) {
  return fmt::format("{}.{}", OMNIRT_VERSION_MAJOR(version), OMNIRT_VERSION_MINOR(version));
}

// The detail a plugin gave with set_error during the call that just ended.
std::string plugin_reason(omnirt_status status) {
  const PluginError* detail = recorded_plugin_error();
  if (detail != nullptr && !detail->message.empty()) return detail->message;
  return fmt::format("{} without a message", omnirt_status_name(status));
}

// One load in progress. Each step either advances the record's stage or
// records why it stopped; run() is the single path through them.
class PluginLoad {
 public:
  PluginLoad(CandidateRecord* record, const std::map<std::string, std::string>& options,
             LoadObserver* observer)
      : record_(*record), options_(options), observer_(observer) {}

  std::unique_ptr<omnirt_backend> run() {
    const Stopwatch total;
    omnirt_status status = step(OMNIRT_STAGE_DLOPEN, &PluginLoad::open_library);
    if (status == OMNIRT_STATUS_OK) status = step(OMNIRT_STAGE_ENTRY_SYMBOL, &PluginLoad::find_entry);
    if (status == OMNIRT_STATUS_OK) status = step(OMNIRT_STAGE_NEGOTIATE, &PluginLoad::negotiate);
    if (status == OMNIRT_STATUS_OK) status = step(OMNIRT_STAGE_VALIDATE, &PluginLoad::validate_and_create);
    if (status == OMNIRT_STATUS_OK) step(OMNIRT_STAGE_AVAILABLE, &PluginLoad::ask_available);
    record_.load_time_ns = total.elapsed_ns();
    record_.loaded = backend_ != nullptr;
    log_outcome();
    return std::move(backend_);
  }

 private:
  using Step = omnirt_status (PluginLoad::*)();

  omnirt_status step(omnirt_load_stage stage, Step body) {
    if (observer_ != nullptr) observer_->starting(stage);
    const Stopwatch watch;
    const omnirt_status status = (this->*body)();
    record_.stage_time_ns[stage] = watch.elapsed_ns();
    if (status == OMNIRT_STATUS_OK) record_.stage = stage;
    return status;
  }

  omnirt_status stop(omnirt_status status, std::string reason) {
    record_.status = status;
    record_.reason = std::move(reason);
    return status;
  }

  omnirt_status open_library() {
    std::string error;
    library_ = SharedLibrary::open(record_.real_path, &error);
    if (!library_) return stop(OMNIRT_STATUS_INCOMPATIBLE, "dlopen failed: " + display_path(error));
    return OMNIRT_STATUS_OK;
  }

  omnirt_status find_entry() {
    std::string error;
    entry_ = reinterpret_cast<omnirt_backend_entry_fn>(library_.symbol(OMNIRT_BACKEND_ENTRY_SYMBOL, &error));
    if (entry_ == nullptr) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE, fmt::format("not an OmniRT plugin: no symbol '{}' ({})",
                                                          OMNIRT_BACKEND_ENTRY_SYMBOL, display_path(error)));
    }
    if (auto where = library_.outside_own_code(reinterpret_cast<const void*>(entry_))) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE, fmt::format("the symbol '{}' resolves {}, not into the plugin",
                                                          OMNIRT_BACKEND_ENTRY_SYMBOL, display_path(*where)));
    }
    return OMNIRT_STATUS_OK;
  }

  omnirt_status negotiate() {
    const omnirt_backend_entry_args args{sizeof(omnirt_backend_entry_args),
                                         OMNIRT_MAKE_VERSION(OMNIRT_ABI_VERSION_MAJOR, 0),
                                         OMNIRT_ABI_VERSION, host_services()};
    clear_plugin_error();
    try {
      plugin_vtable_ = entry_(&args);
    } catch (...) {
      return stop(OMNIRT_STATUS_INTERNAL,
                  "an exception escaped the entry point (plugins must return a status, PLUGIN_RULES 8)");
    }
    if (plugin_vtable_ == nullptr) {
      const PluginError* detail = recorded_plugin_error();
      const omnirt_status status = detail != nullptr && detail->status != OMNIRT_STATUS_OK
                                       ? detail->status
                                       : OMNIRT_STATUS_INCOMPATIBLE;
      return stop(status, "the entry point refused to load: " + plugin_reason(status));
    }
    record_.plugin_abi_version = plugin_vtable_->abi_version;
    if (OMNIRT_VERSION_MAJOR(plugin_vtable_->abi_version) != OMNIRT_ABI_VERSION_MAJOR) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE,
                  fmt::format("the plugin implements ABI {}; this host speaks ABI {}.x (up to {})",
                              version_string(plugin_vtable_->abi_version), OMNIRT_ABI_VERSION_MAJOR,
                              version_string(OMNIRT_ABI_VERSION)));
    }
    return OMNIRT_STATUS_OK;
  }

  omnirt_status validate_and_create() {
    OMNIRT_RETURN_IF_ERROR(validate());
    OMNIRT_RETURN_IF_ERROR(create());
    return read_capabilities();
  }

  omnirt_status validate() {
    const size_t size = plugin_vtable_->struct_size;
    if (size == 0) return stop(OMNIRT_STATUS_INCOMPATIBLE, "vtable struct_size is 0 (the plugin did not set it)");
    if (size < kVtableSize_1_0) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE,
                  fmt::format("vtable struct_size {} is smaller than the ABI 1.0 vtable ({} bytes)", size,
                              kVtableSize_1_0));
    }
    if (size > kMaxVtableSize) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE,
                  fmt::format("vtable struct_size {} is implausible (more than {} bytes)", size, kMaxVtableSize));
    }
    // Copy what both sides know into a zeroed full-size vtable: slots of an
    // older minor's shorter vtable read as NULL, a newer minor's extra slots
    // are never seen. A plugin of ABI 1.0 has no 1.1 slots, whatever its
    // struct_size claims: what lies there is not a slot.
    const size_t known = OMNIRT_VERSION_MINOR(plugin_vtable_->abi_version) == 0
                             ? kVtableSize_1_0
                             : std::min(size, sizeof vtable_);
    std::memset(&vtable_, 0, sizeof vtable_);
    std::memcpy(&vtable_, plugin_vtable_, known);

    const std::vector<std::string_view> missing = missing_required_slots(vtable_);
    if (!missing.empty()) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE,
                  fmt::format("required slot{} NULL: {}", missing.size() == 1 ? " is" : "s are",
                              fmt::join(missing, ", ")));
    }
    OMNIRT_RETURN_IF_ERROR(check_slot_origins());
    if (vtable_.name == nullptr) return stop(OMNIRT_STATUS_INCOMPATIBLE, "vtable name is NULL");
    const PluginText name = read_plugin_text(vtable_.name, OMNIRT_TEXT_MAX_NAME);
    if (!name.clean() || !is_valid_backend_name(name.text)) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE,
                  fmt::format("vtable name '{}'{} is not a valid backend name ([a-z0-9_]{{1,32}})", name.text,
                              name.cut ? "..." : ""));
    }
    record_.backend_name = name.text;
    if (name.text != record_.file_backend_name) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE,
                  fmt::format("vtable name '{}' does not match the file name (expected '{}')", name.text,
                              record_.file_backend_name));
    }
    if (vtable_.plugin_version == nullptr) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE, "vtable plugin_version is NULL");
    }
    const PluginText version = read_plugin_text(vtable_.plugin_version, OMNIRT_TEXT_MAX_VERSION);
    if (!version.clean()) {
      return stop(OMNIRT_STATUS_INCOMPATIBLE,
                  fmt::format("vtable plugin_version '{}'{} is not UTF-8 text of at most {} bytes (PLUGIN_RULES 13)",
                              version.text, version.cut ? "..." : "", OMNIRT_TEXT_MAX_VERSION));
    }
    plugin_version_ = version.text;
    return OMNIRT_STATUS_OK;
  }

  // Every slot the plugin filled must point into its own code: anything else
  // (another library's function, data, a stray value) would be called as code.
  omnirt_status check_slot_origins() {
    for (const slots::Slot& slot : slots::kVtableSlots) {
      const void* address = slot_address(vtable_, slot);
      if (address == nullptr) continue;
      if (auto where = library_.outside_own_code(address)) {
        return stop(OMNIRT_STATUS_INCOMPATIBLE, fmt::format("vtable slot '{}' points {}, not into the plugin's code",
                                                            slot.name, display_path(*where)));
      }
    }
    return OMNIRT_STATUS_OK;
  }

  omnirt_status create() {
    auto backend = std::make_unique<omnirt_backend>(std::move(library_), vtable_);
    backend->name = record_.backend_name;
    backend->plugin_version = plugin_version_;
    backend->path = record_.path_shown;
    backend->abi_version = plugin_vtable_->abi_version;
    backend->plugin_vtable_size = plugin_vtable_->struct_size;

    std::vector<const char*> keys;
    std::vector<const char*> values;
    for (const auto& [key, value] : options_) {
      keys.push_back(key.c_str());
      values.push_back(value.c_str());
    }
    const omnirt_backend_create_args args{sizeof(omnirt_backend_create_args), keys.data(), values.data(),
                                          keys.size()};
    omnirt_backend_state* state = nullptr;
    omnirt_status status;
    clear_plugin_error();
    try {
      status = vtable_.create(&args, &state);
    } catch (...) {
      return stop(OMNIRT_STATUS_INTERNAL,
                  "an exception escaped create (plugins must return a status, PLUGIN_RULES 8)");
    }
    if (status != OMNIRT_STATUS_OK) return stop(status, "create failed: " + plugin_reason(status));
    if (state == nullptr) return stop(OMNIRT_STATUS_INTERNAL, "create returned OK but no state");
    backend->state = state;
    backend_ = std::move(backend);
    return OMNIRT_STATUS_OK;
  }

  // The capabilities, asked once: the features decide which optional slots
  // the host will ever call; the text is repaired and kept by the host.
  omnirt_status read_capabilities() {
    omnirt_capabilities caps{};
    caps.struct_size = sizeof caps;
    omnirt_status status;
    clear_plugin_error();
    try {
      status = backend_->vtable.get_capabilities(backend_->state, &caps);
    } catch (...) {
      return refuse_backend(OMNIRT_STATUS_INTERNAL,
                            "an exception escaped get_capabilities (plugins must return a status, PLUGIN_RULES 8)");
    }
    if (status != OMNIRT_STATUS_OK) {
      return refuse_backend(status, "get_capabilities failed: " + plugin_reason(status));
    }
    const size_t formats = caps.module_formats != nullptr ? caps.num_module_formats : 0;
    if (formats > OMNIRT_MAX_PLUGIN_LIST) {
      return refuse_backend(OMNIRT_STATUS_INCOMPATIBLE,
                            fmt::format("capabilities list {} module formats (more than {})", formats,
                                        OMNIRT_MAX_PLUGIN_LIST));
    }
    omnirt_backend& backend = *backend_;
    backend.features = caps.features & features_known_to(backend.abi_version);
    backend.vendor = read_plugin_text(caps.vendor, OMNIRT_TEXT_MAX_TAG).text;
    for (size_t i = 0; i < formats; ++i) {
      backend.module_formats.push_back(read_plugin_text(caps.module_formats[i], OMNIRT_TEXT_MAX_TAG).text);
    }
    for (const std::string& format : backend.module_formats) backend.module_format_list.push_back(format.c_str());
    OMNIRT_RETURN_IF_ERROR(read_unavailable_formats(caps));
    clear_unadvertised_slots(&backend.vtable, backend.features);
    return OMNIRT_STATUS_OK;
  }

  // The formats the plugin knows of but cannot load here, and why (ABI 1.1:
  // what a 1.0 plugin left in those fields is not an answer).
  omnirt_status read_unavailable_formats(const omnirt_capabilities& caps) {
    omnirt_backend& backend = *backend_;
    if (OMNIRT_VERSION_MINOR(backend.abi_version) == 0 || caps.unavailable_module_formats == nullptr) {
      return OMNIRT_STATUS_OK;
    }
    if (caps.num_unavailable_module_formats > OMNIRT_MAX_PLUGIN_LIST) {
      return refuse_backend(OMNIRT_STATUS_INCOMPATIBLE,
                            fmt::format("capabilities list {} unavailable module formats (more than {})",
                                        caps.num_unavailable_module_formats, OMNIRT_MAX_PLUGIN_LIST));
    }
    for (size_t i = 0; i < caps.num_unavailable_module_formats; ++i) {
      const omnirt_module_format_unavailable& u = caps.unavailable_module_formats[i];
      if (u.format == nullptr || u.reason == nullptr) continue;
      backend.unavailable_formats.emplace_back(read_plugin_text(u.format, OMNIRT_TEXT_MAX_TAG).text,
                                               read_plugin_text(u.reason, OMNIRT_TEXT_MAX_MESSAGE).text);
    }
    for (const auto& [format, reason] : backend.unavailable_formats) {
      backend.unavailable_format_list.push_back(omnirt_module_format_unavailable{format.c_str(), reason.c_str()});
    }
    return OMNIRT_STATUS_OK;
  }

  // A created backend the plugin's own answers disqualify: destroyed and unloaded.
  omnirt_status refuse_backend(omnirt_status status, std::string reason) {
    backend_.reset();
    return stop(status, std::move(reason));
  }

  omnirt_status ask_available() {
    char reason[kReasonCapacity] = {};
    int32_t available = 0;
    omnirt_status status;
    clear_plugin_error();
    try {
      status = backend_->vtable.is_available(backend_->state, &available, reason, sizeof reason);
    } catch (...) {
      return unavailable(OMNIRT_STATUS_INTERNAL,
                         "an exception escaped is_available (plugins must return a status, PLUGIN_RULES 8)");
    }
    if (status != OMNIRT_STATUS_OK) {
      return unavailable(OMNIRT_STATUS_UNAVAILABLE, fmt::format("is_available failed with {}: {}",
                                                                omnirt_status_name(status),
                                                                plugin_reason(status)));
    }
    if (available == 0) {
      const PluginText text = read_buffer_text(reason, sizeof reason, OMNIRT_TEXT_MAX_MESSAGE);
      return unavailable(OMNIRT_STATUS_UNAVAILABLE,
                         !text.text.empty() ? text.text : "is_available said no without a reason");
    }
    backend_->available = true;
    return OMNIRT_STATUS_OK;
  }

  // A loaded backend that cannot run here: kept (so omnirt-probe can describe
  // it) but refused by routed calls.
  omnirt_status unavailable(omnirt_status status, std::string reason) {
    backend_->unavailable_reason = reason;
    return stop(status, std::move(reason));
  }

  void log_outcome() const {
    const double ms = static_cast<double>(record_.load_time_ns) / 1e6;
    if (record_.loaded) {
      logger().info("loaded backend '{}' {} (ABI {}) from '{}' in {:.3f} ms{}", record_.backend_name,
                    backend_ ? backend_->plugin_version : "", version_string(record_.plugin_abi_version),
                    record_.path_shown, ms, record_.status == OMNIRT_STATUS_OK ? std::string() : ": " + record_.reason);
    } else {
      logger().info("rejected '{}' (reached stage {}): {}: {}", record_.path_shown, omnirt_load_stage_name(record_.stage),
                    omnirt_status_name(record_.status), record_.reason);
    }
    const auto& t = record_.stage_time_ns;
    logger().debug("'{}' stage times (us): dlopen {} entry {} negotiate {} validate+create {} available {}",
                   record_.path_shown, t[1] / 1000, t[2] / 1000, t[3] / 1000, t[4] / 1000, t[5] / 1000);
  }

  CandidateRecord& record_;
  const std::map<std::string, std::string>& options_;
  LoadObserver* observer_;
  SharedLibrary library_;
  omnirt_backend_entry_fn entry_ = nullptr;
  const Vtable* plugin_vtable_ = nullptr;
  Vtable vtable_{};
  std::string plugin_version_;
  std::unique_ptr<omnirt_backend> backend_;
};

}  // namespace

std::unique_ptr<omnirt_backend> load_plugin(CandidateRecord* candidate,
                                            const std::map<std::string, std::string>& options,
                                            LoadObserver* observer) {
  const std::lock_guard<std::mutex> lock(loader_mutex());
  return PluginLoad(candidate, options, observer).run();
}

void unload_plugins(std::vector<std::unique_ptr<omnirt_backend>>* backends) noexcept {
  const std::lock_guard<std::mutex> lock(loader_mutex());
  backends->clear();
}

}  // namespace omnirt
