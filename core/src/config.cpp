#include "config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string_view>

#include "backend_name.h"
#include "logging.h"

namespace omnirt {
namespace {

// A problem at a place in the file. Thrown inside this file only; load_config
// turns it into a status and a message.
struct ConfigError {
  YAML::Mark mark;
  std::string message;
};

[[noreturn]] void reject(const YAML::Node& node, std::string message) {
  throw ConfigError{node.Mark(), std::move(message)};
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Map: return "a map";
    default: return "nothing";
  }
}

void expect_map(const YAML::Node& node, std::string_view what) {
  if (!node.IsMap()) reject(node, fmt::format("'{}' must be a map, got {}", what, describe(node)));
}

void expect_known_keys(const YAML::Node& map, std::initializer_list<std::string_view> known,
                       std::string_view where) {
  for (const auto& entry : map) {
    const std::string key = entry.first.Scalar();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      reject(entry.first, fmt::format("unknown key '{}'{} (expected one of: {})", key, where,
                                      fmt::join(known, ", ")));
    }
  }
}

std::string expect_string(const YAML::Node& node, std::string_view what) {
  if (!node.IsScalar()) reject(node, fmt::format("'{}' must be a string, got {}", what, describe(node)));
  return node.Scalar();
}

std::string expect_backend_name(const YAML::Node& node, std::string_view what) {
  std::string name = expect_string(node, what);
  if (!is_valid_backend_name(name)) {
    reject(node, fmt::format("'{}' in '{}' is not a valid backend name ([a-z0-9_]{{1,32}})", name,
                             what));
  }
  return name;
}

std::vector<std::string> expect_backend_names(const YAML::Node& node, std::string_view what) {
  if (!node.IsSequence()) {
    reject(node, fmt::format("'{}' must be a list of backend names, got {}", what, describe(node)));
  }
  std::vector<std::string> names;
  for (const auto& item : node) names.push_back(expect_backend_name(item, what));
  return names;
}

int32_t expect_int32(const YAML::Node& node, std::string_view what) {
  int32_t value = 0;
  if (!node.IsScalar() || !YAML::convert<int32_t>::decode(node, value)) {
    reject(node, fmt::format("'{}' must be a 32-bit integer, got {}", what, describe(node)));
  }
  return value;
}

bool expect_bool(const YAML::Node& node, std::string_view what) {
  bool value = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
    reject(node, fmt::format("'{}' must be true or false, got {}", what, describe(node)));
  }
  return value;
}

std::vector<std::string> parse_plugin_dirs(const YAML::Node& node, const std::filesystem::path& base) {
  if (!node.IsSequence()) {
    reject(node, fmt::format("'plugin_dirs' must be a list of directories, got {}", describe(node)));
  }
  std::vector<std::string> dirs;
  for (const auto& item : node) {
    const std::filesystem::path dir = expect_string(item, "plugin_dirs");
    dirs.push_back(dir.is_absolute() ? dir.string() : (base / dir).lexically_normal().string());
  }
  return dirs;
}

std::map<std::string, int32_t> parse_priorities(const YAML::Node& node) {
  expect_map(node, "priorities");
  std::map<std::string, int32_t> priorities;
  for (const auto& entry : node) {
    const std::string name = expect_backend_name(entry.first, "priorities");
    priorities[name] = expect_int32(entry.second, "priorities." + name);
  }
  return priorities;
}

omnirt_log_level parse_level(const YAML::Node& node) {
  const std::string word = expect_string(node, "log_level");
  const auto level = parse_log_level(word);
  if (!level) {
    reject(node, fmt::format("'log_level' must be one of trace, debug, info, warn, error, off; got '{}'",
                             word));
  }
  return *level;
}

std::map<std::string, std::map<std::string, std::string>> parse_backends(const YAML::Node& node) {
  expect_map(node, "backends");
  std::map<std::string, std::map<std::string, std::string>> all;
  for (const auto& entry : node) {
    const std::string name = expect_backend_name(entry.first, "backends");
    const std::string where = "backends." + name;
    expect_map(entry.second, where);
    expect_known_keys(entry.second, {"options"}, " in '" + where + "'");
    std::map<std::string, std::string>& options = all[name];
    if (const YAML::Node opts = entry.second["options"]) {
      expect_map(opts, where + ".options");
      for (const auto& option : opts) {
        const std::string key = expect_string(option.first, where + ".options");
        options[key] = expect_string(option.second, where + ".options." + key);
      }
    }
  }
  return all;
}

std::vector<omnirt_tier> parse_tiers(const YAML::Node& node, const std::string& what) {
  if (!node.IsSequence() || node.size() == 0) {
    reject(node, fmt::format("'{}' must be a non-empty list of tiers (compile, override, eager), got {}",
                             what, describe(node)));
  }
  std::vector<omnirt_tier> tiers;
  for (const auto& item : node) {
    const std::string word = expect_string(item, what);
    omnirt_tier tier;
    if (word == "compile") {
      tier = OMNIRT_TIER_COMPILE;
    } else if (word == "override") {
      tier = OMNIRT_TIER_OVERRIDE;
    } else if (word == "eager") {
      tier = OMNIRT_TIER_EAGER;
    } else {
      reject(item, fmt::format("'{}' lists unknown tier '{}' (expected compile, override or eager)",
                               what, word));
    }
    if (std::find(tiers.begin(), tiers.end(), tier) != tiers.end()) {
      reject(item, fmt::format("'{}' lists tier '{}' twice", what, word));
    }
    tiers.push_back(tier);
  }
  return tiers;
}

WrapModuleConfig parse_wrap_module(const YAML::Node& node) {
  expect_map(node, "wrap_module");
  expect_known_keys(node, {"compile", "policies"}, " in 'wrap_module'");
  WrapModuleConfig wrap;
  if (const YAML::Node compile = node["compile"]) wrap.compile = expect_bool(compile, "wrap_module.compile");
  if (const YAML::Node policies = node["policies"]) {
    expect_map(policies, "wrap_module.policies");
    for (const auto& entry : policies) {
      const std::string tag = expect_string(entry.first, "wrap_module.policies");
      wrap.policies[tag] = parse_tiers(entry.second, "wrap_module.policies." + tag);
    }
  }
  return wrap;
}

omnirt_vetting parse_vetting(const YAML::Node& node) {
  const std::string word = expect_string(node, "vetting");
  const auto mode = parse_vetting_mode(word);
  if (!mode) reject(node, fmt::format("'vetting' must be one of off, new, always; got '{}'", word));
  return *mode;
}

uint32_t parse_time_limit(const YAML::Node& node) {
  uint32_t value = 0;
  if (!node.IsScalar() || !YAML::convert<uint32_t>::decode(node, value) || value == 0 ||
      value > kMaxVettingTimeLimitMs) {
    reject(node, fmt::format("'vetting_time_limit_ms' must be a number of milliseconds in 1..{}, got {}",
                             kMaxVettingTimeLimitMs, describe(node)));
  }
  return value;
}

std::string parse_directory(const YAML::Node& node, std::string_view what, const std::filesystem::path& base) {
  const std::filesystem::path dir = expect_string(node, what);
  if (dir.empty()) reject(node, fmt::format("'{}' must not be empty", what));
  return dir.is_absolute() ? dir.string() : (base / dir).lexically_normal().string();
}

void parse_document(const YAML::Node& root, const std::filesystem::path& base, HostConfig* config) {
  if (root.IsNull()) return;  // an empty file is an empty configuration
  if (!root.IsMap()) reject(root, fmt::format("the configuration must be a map, got {}", describe(root)));
  expect_known_keys(root,
                    {"plugin_dirs", "allow", "deny", "priorities", "log_level", "backends", "wrap_module",
                     "vetting", "vetting_cache_dir", "vetting_time_limit_ms"},
                    "");
  if (const YAML::Node n = root["plugin_dirs"]) config->plugin_dirs = parse_plugin_dirs(n, base);
  if (const YAML::Node n = root["allow"]) config->allow = expect_backend_names(n, "allow");
  if (const YAML::Node n = root["deny"]) config->deny = expect_backend_names(n, "deny");
  if (const YAML::Node n = root["priorities"]) config->priorities = parse_priorities(n);
  if (const YAML::Node n = root["log_level"]) config->log_level = parse_level(n);
  if (const YAML::Node n = root["backends"]) config->backend_options = parse_backends(n);
  if (const YAML::Node n = root["wrap_module"]) config->wrap_module = parse_wrap_module(n);
  if (const YAML::Node n = root["vetting"]) config->vetting.mode = parse_vetting(n);
  if (const YAML::Node n = root["vetting_cache_dir"]) {
    config->vetting.cache_dir = parse_directory(n, "vetting_cache_dir", base);
  }
  if (const YAML::Node n = root["vetting_time_limit_ms"]) config->vetting.time_limit_ms = parse_time_limit(n);
}

std::string located(const std::string& path, const YAML::Mark& mark, const std::string& message) {
  if (mark.is_null()) return fmt::format("{}: {}", path, message);
  return fmt::format("{}:{}:{}: {}", path, mark.line + 1, mark.column + 1, message);
}

}  // namespace

std::optional<omnirt_vetting> parse_vetting_mode(std::string_view word) noexcept {
  if (word == "off") return OMNIRT_VETTING_OFF;
  if (word == "new") return OMNIRT_VETTING_NEW;
  if (word == "always") return OMNIRT_VETTING_ALWAYS;
  return std::nullopt;
}

omnirt_status load_config(const std::string& path, HostConfig* config, std::string* error) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    *error = fmt::format("{}: cannot read configuration: {}", path,
                         ec ? ec.message() : std::string("not a regular file"));
    return OMNIRT_STATUS_INVALID_ARGUMENT;
  }
  std::ifstream file(path);
  if (!file.is_open()) {
    *error = fmt::format("{}: cannot read configuration: {}", path, std::strerror(errno));
    return OMNIRT_STATUS_INVALID_ARGUMENT;
  }
  std::stringstream text;
  text << file.rdbuf();
  return parse_config(text.str(), path, config, error);
}

omnirt_status parse_config(const std::string& text, const std::string& path, HostConfig* config,
                           std::string* error) {
  HostConfig parsed;
  parsed.path = path;
  try {
    const std::filesystem::path base = std::filesystem::absolute(path).parent_path();
    parse_document(YAML::Load(text), base, &parsed);
  } catch (const YAML::Exception& e) {
    *error = located(path, e.mark, "invalid YAML: " + e.msg);
    return OMNIRT_STATUS_INVALID_ARGUMENT;
  } catch (const ConfigError& e) {
    *error = located(path, e.mark, e.message);
    return OMNIRT_STATUS_INVALID_ARGUMENT;
  }
  *config = std::move(parsed);
  return OMNIRT_STATUS_OK;
}

}  // namespace omnirt
