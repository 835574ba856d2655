#include "registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

#include "config.h"
#include "error.h"
#include "plugin_loader.h"
#include "plugin_text.h"

namespace omnirt {
namespace {

const std::map<std::string, std::string> kNoOptions;

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

Registry::~Registry() { unload_plugins(&backends_); }

std::optional<std::pair<omnirt_status, std::string>> Registry::refusal_by_config(const std::string& name) const {
  if (config_.allow.has_value() && !contains(*config_.allow, name)) {
    return std::pair(OMNIRT_STATUS_UNAVAILABLE,
                     fmt::format("'{}' is not in the allow list of '{}'", name, display_path(config_.path)));
  }
  if (contains(config_.deny, name)) {
    return std::pair(OMNIRT_STATUS_UNAVAILABLE,
                     fmt::format("'{}' is in the deny list of '{}'", name, display_path(config_.path)));
  }
  return std::nullopt;
}

std::optional<std::pair<omnirt_status, std::string>> Registry::refusal_by_backend(const std::string& name) const {
  for (const auto& backend : backends_) {
    if (backend->name == name) {
      return std::pair(OMNIRT_STATUS_ALREADY_EXISTS,
                       fmt::format("backend '{}' is already provided by '{}'", name, backend->path));
    }
  }
  return std::nullopt;
}

void Registry::load_all(std::vector<CandidateRecord> candidates, const vetting::VetSettings& vetting) {
  // The file name equals the backend name (checked again after load), so
  // refusals by name happen before any of the plugin's code runs, here or in
  // a vetting child.
  std::vector<CandidateRecord*> admitted;
  for (CandidateRecord& candidate : candidates) {
    if (candidate.status != OMNIRT_STATUS_OK) continue;
    if (auto refused = refusal_by_config(candidate.file_backend_name)) {
      candidate.status = refused->first;
      candidate.reason = std::move(refused->second);
      candidate.skipped = true;
    } else {
      admitted.push_back(&candidate);
    }
  }
  vetting::vet_candidates(vetting, admitted, config_.backend_options);
  for (CandidateRecord& candidate : candidates) consider(std::move(candidate));
  std::sort(backends_.begin(), backends_.end(), [](const auto& a, const auto& b) {
    return a->priority != b->priority ? a->priority > b->priority : a->name < b->name;
  });
}

void Registry::consider(CandidateRecord candidate) {
  if (candidate.status == OMNIRT_STATUS_OK) {
    if (auto refused = refusal_by_backend(candidate.file_backend_name)) {
      candidate.status = refused->first;
      candidate.reason = std::move(refused->second);
      candidate.skipped = true;
    } else {
      const auto options = config_.backend_options.find(candidate.file_backend_name);
      auto backend = load_plugin(&candidate, options != config_.backend_options.end() ? options->second
                                                                                      : kNoOptions);
      if (backend != nullptr) {
        const auto priority = config_.priorities.find(backend->name);
        backend->priority = priority != config_.priorities.end() ? priority->second : 0;
        backend->host = owner_;
        backends_.push_back(std::move(backend));
      }
    }
  }
  candidates_.push_back(std::move(candidate));
}

omnirt_status Registry::select(const char* name, omnirt_backend** out) const {
  *out = nullptr;
  if (name == nullptr || std::strcmp(name, "auto") == 0) return select_auto(out);
  return select_named(name, out);
}

omnirt_status Registry::select_auto(omnirt_backend** out) const {
  for (const auto& backend : backends_) {
    if (backend->available) {
      *out = backend.get();
      return OMNIRT_STATUS_OK;
    }
  }
  if (candidates_.empty()) {
    return fail(OMNIRT_STATUS_NOT_FOUND, {},
                "no backend plugin was found; run omnirt-probe --verbose to see where the host "
                "looked");
  }
  // Every candidate's fate, in search order: the one that matters may be a
  // plugin whose create refused a bad option, not one that loaded.
  std::vector<std::string> why;
  for (const CandidateRecord& c : candidates_) {
    const std::string path = display_path(c.path);
    const std::string& known = !c.backend_name.empty() ? c.backend_name : c.file_backend_name;
    const std::string& name = known.empty() ? path : known;
    if (c.loaded) {
      why.push_back(fmt::format("{}: unavailable: {}", name, c.reason));
    } else if (c.skipped) {
      why.push_back(fmt::format("{}: skipped ({}): {}", name, path, c.reason));
    } else {
      why.push_back(fmt::format("{}: rejected, reached stage {} ({}): {}", name,
                                omnirt_load_stage_name(c.stage), path, c.reason));
    }
  }
  return fail(backends_.empty() ? OMNIRT_STATUS_NOT_FOUND : OMNIRT_STATUS_UNAVAILABLE, {},
              "no backend is available here: {}; run omnirt-probe --verbose for details",
              fmt::join(why, "; "));
}

omnirt_status Registry::select_named(const char* name, omnirt_backend** out) const {
  for (const auto& backend : backends_) {
    if (backend->name != name) continue;
    if (!backend->available) {
      return fail(OMNIRT_STATUS_UNAVAILABLE, backend->name, "backend '{}' is not available here: {}",
                  name, backend->unavailable_reason);
    }
    *out = backend.get();
    return OMNIRT_STATUS_OK;
  }
  for (const CandidateRecord& candidate : candidates_) {
    if (candidate.backend_name == name || candidate.file_backend_name == name) {
      return fail(candidate.status, name, "backend '{}' was not loaded from '{}': {}", name, candidate.path_shown,
                  candidate.reason);
    }
  }
  std::vector<std::string_view> known;
  for (const auto& backend : backends_) known.push_back(backend->name);
  return fail(OMNIRT_STATUS_NOT_FOUND, {}, "no backend named '{}'; known backends: {}", name,
              known.empty() ? std::string("(none)") : fmt::format("{}", fmt::join(known, ", ")));
}

}  // namespace omnirt
