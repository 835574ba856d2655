#include "vetting/vetting.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <charconv>
#include <optional>

#include "config.h"
#include "environment.h"
#include "error.h"
#include "logging.h"
#include "plugin_text.h"
#include "search_path.h"
#include "vetting/file_identity.h"
#include "vetting/verdict_cache.h"
#include "vetting/vet_spawn.h"

namespace omnirt::vetting {
namespace {

constexpr const char* kCreate = "omnirt_host_create";

std::optional<uint32_t> parse_time_limit(const std::string& text) {
  uint32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0 || value > kMaxVettingTimeLimitMs) {
    return std::nullopt;
  }
  return value;
}

// The home directory of the effective user from the password database: the
// fallback when HOME is unset or not absolute, and the only source in a
// setuid process (whose environment belongs to the invoking user).
std::string passwd_home() {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? static_cast<size_t>(size) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  if (getpwuid_r(geteuid(), &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr ||
      found->pw_dir == nullptr || found->pw_dir[0] != '/') {
    return {};
  }
  return found->pw_dir;
}

std::string default_cache_dir(const Environment& env) {
  if (!env.user_cache_home.empty()) return env.user_cache_home + "/omnirt";
  const std::string home = passwd_home();
  return home.empty() ? std::string() : home + "/.cache/omnirt";
}

// What else, besides the file, decides a verdict: this host build and the
// settings the child ran under. A change vets again.
std::string cache_context(const VetSettings& settings, const std::map<std::string, std::string>& options) {
  std::string context = fmt::format("omnirt {} abi {}.{} limit_ms {} options", omnirt_library_version(),
                                    OMNIRT_ABI_VERSION_MAJOR, OMNIRT_ABI_VERSION_MINOR, settings.time_limit_ms);
  for (const auto& [key, value] : options) context += fmt::format(" {}={}", key, value);
  return context;
}

void apply(const Verdict& verdict, bool cached, CandidateRecord* candidate) {
  candidate->vet_outcome = verdict.passed ? OMNIRT_VET_PASSED : OMNIRT_VET_REJECTED;
  candidate->vet_cached = cached;
  candidate->vet_time_ns = verdict.vet_time_ns;
  if (verdict.passed) return;
  candidate->stage = verdict.reached;
  candidate->status = verdict.status;
  candidate->reason = verdict.reason;
  logger().warn("rejected '{}' without loading it: {}", candidate->path_shown, verdict.reason);
}

}  // namespace

omnirt_status resolve_settings(const omnirt_host_options& options, const Environment& env,
                               const HostConfig& config, VetSettings* settings) {
  VetSettings s;
  s.mode = config.vetting.mode.value_or(OMNIRT_VETTING_NEW);
  s.time_limit_ms = config.vetting.time_limit_ms.value_or(kDefaultTimeLimitMs);
  s.cache_dir = config.vetting.cache_dir.value_or(default_cache_dir(env));
  if (env.vetting) {
    if (const auto mode = parse_vetting_mode(*env.vetting)) {
      s.mode = *mode;
    } else {
      logger().warn("ignoring OMNIRT_VETTING='{}': expected off, new or always", display_path(*env.vetting));
    }
  }
  if (env.vetting_time_limit_ms) {
    if (const auto limit = parse_time_limit(*env.vetting_time_limit_ms)) {
      s.time_limit_ms = *limit;
    } else {
      logger().warn("ignoring OMNIRT_VETTING_TIME_LIMIT_MS='{}': expected milliseconds in 1..{}",
                    display_path(*env.vetting_time_limit_ms), kMaxVettingTimeLimitMs);
    }
  }
  if (env.vetting_cache_dir && !env.vetting_cache_dir->empty()) s.cache_dir = *env.vetting_cache_dir;

  if (options.vetting < OMNIRT_VETTING_DEFAULT || options.vetting > OMNIRT_VETTING_ALWAYS) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: options->vetting is {}, not an omnirt_vetting", kCreate,
                options.vetting);
  }
  if (options.vetting != OMNIRT_VETTING_DEFAULT) s.mode = static_cast<omnirt_vetting>(options.vetting);
  if (options.vetting_time_limit_ms > kMaxVettingTimeLimitMs) {
    return fail(OMNIRT_STATUS_INVALID_ARGUMENT, {}, "{}: options->vetting_time_limit_ms is {}; at most {}",
                kCreate, options.vetting_time_limit_ms, kMaxVettingTimeLimitMs);
  }
  if (options.vetting_time_limit_ms != 0) s.time_limit_ms = options.vetting_time_limit_ms;
  if (options.vetting_cache_dir != nullptr && options.vetting_cache_dir[0] != '\0') {
    s.cache_dir = options.vetting_cache_dir;
  }
  s.empty_child_environment = env.secure;
  s.helper = installed_vet_helper();
  *settings = std::move(s);
  return OMNIRT_STATUS_OK;
}

void vet_candidates(const VetSettings& settings, const std::vector<CandidateRecord*>& candidates,
                    const std::map<std::string, std::map<std::string, std::string>>& backend_options) {
  if (settings.mode == OMNIRT_VETTING_OFF) return;
  const VerdictCache cache(settings.cache_dir);
  if (!cache.usable()) logger().warn("plugin vetting goes without a verdict cache: {}", cache.note());
  static const std::map<std::string, std::string> kNoOptions;

  std::vector<CandidateRecord*> to_vet;
  std::vector<VetJob> jobs;
  std::vector<VerdictKey> keys;
  for (CandidateRecord* candidate : candidates) {
    if (candidate->status != OMNIRT_STATUS_OK) continue;
    const auto found = backend_options.find(candidate->file_backend_name);
    const auto& options = found != backend_options.end() ? found->second : kNoOptions;
    // Member by member: gcc 12's -O3 warns (maybe-uninitialized, a false
    // positive) on the aggregate's default-initialized FileIdentity.
    VerdictKey key;
    key.real_path = candidate->real_path;
    if (!identify_file(candidate->real_path, &key.file)) continue;  // dlopen will say why
    key.context = cache_context(settings, options);
    if (settings.mode == OMNIRT_VETTING_NEW) {
      if (const std::optional<Verdict> verdict = cache.find(key)) {
        apply(*verdict, true, candidate);
        continue;
      }
    }
    to_vet.push_back(candidate);
    jobs.push_back(VetJob{candidate->real_path, candidate->file_backend_name, options});
    keys.push_back(std::move(key));
  }
  if (jobs.empty()) return;

  const std::vector<VetRun> runs =
      run_vetting_children(settings.helper, jobs, settings.time_limit_ms, settings.empty_child_environment);
  bool stored = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].vetted) {
      logger().warn("'{}' is loaded without vetting: {}", to_vet[i]->path_shown, runs[i].problem);
      continue;
    }
    apply(runs[i].verdict, false, to_vet[i]);
    stored = cache.store(keys[i], runs[i].verdict) || stored;
  }
  if (stored) cache.prune();
}

}  // namespace omnirt::vetting
