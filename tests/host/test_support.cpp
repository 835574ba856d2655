#include "test_support.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace omnirt_test {

HostPtr make_host(const std::vector<std::string>& paths, omnirt_status* status, uint32_t flags,
                  const char* config_path) {
  std::vector<const char*> raw;
  for (const std::string& path : paths) raw.push_back(path.c_str());
  omnirt_host_options options{};
  options.struct_size = sizeof options;
  options.config_path = config_path;
  options.plugin_paths = raw.data();
  options.num_plugin_paths = raw.size();
  options.flags = flags;
  omnirt_host* host = nullptr;
  *status = omnirt_host_create(&options, &host);
  return HostPtr(host);
}

HostPtr make_host(const std::vector<std::string>& paths, uint32_t flags, const char* config_path) {
  omnirt_status status = OMNIRT_STATUS_INTERNAL;
  HostPtr host = make_host(paths, &status, flags, config_path);
  EXPECT_EQ(status, OMNIRT_STATUS_OK) << last_message();
  return host;
}

HostPtr make_vetting_host(const std::vector<std::string>& paths, const Vetting& vetting, uint32_t flags) {
  std::vector<const char*> raw;
  for (const std::string& path : paths) raw.push_back(path.c_str());
  omnirt_host_options options{};
  options.struct_size = sizeof options;
  options.plugin_paths = raw.data();
  options.num_plugin_paths = raw.size();
  options.flags = flags;
  options.vetting = vetting.mode;
  options.vetting_cache_dir = vetting.cache_dir.empty() ? nullptr : vetting.cache_dir.c_str();
  options.vetting_time_limit_ms = vetting.time_limit_ms;
  omnirt_host* host = nullptr;
  EXPECT_EQ(omnirt_host_create(&options, &host), OMNIRT_STATUS_OK) << last_message();
  return HostPtr(host);
}

std::vector<omnirt_candidate> candidates(const omnirt_host* host) {
  std::vector<omnirt_candidate> all(omnirt_host_candidate_count(host));
  for (size_t i = 0; i < all.size(); ++i) {
    all[i].struct_size = sizeof(omnirt_candidate);
    EXPECT_EQ(omnirt_host_get_candidate(host, i, &all[i]), OMNIRT_STATUS_OK);
  }
  return all;
}

std::optional<omnirt_candidate> candidate_at(const omnirt_host* host, const std::string& path) {
  for (const omnirt_candidate& candidate : candidates(host)) {
    if (path == candidate.path) return candidate;
  }
  return std::nullopt;
}

std::vector<omnirt_search_dir> search_dirs(const omnirt_host* host) {
  std::vector<omnirt_search_dir> all(omnirt_host_search_dir_count(host));
  for (size_t i = 0; i < all.size(); ++i) {
    all[i].struct_size = sizeof(omnirt_search_dir);
    EXPECT_EQ(omnirt_host_get_search_dir(host, i, &all[i]), OMNIRT_STATUS_OK);
  }
  return all;
}

omnirt_backend_info info_of(const omnirt_backend* backend) {
  omnirt_backend_info info{};
  info.struct_size = sizeof info;
  EXPECT_EQ(omnirt_backend_get_info(backend, &info), OMNIRT_STATUS_OK);
  return info;
}

omnirt_backend* backend_named(omnirt_host* host, const char* name) {
  for (size_t i = 0; i < omnirt_host_backend_count(host); ++i) {
    omnirt_backend* backend = nullptr;
    EXPECT_EQ(omnirt_host_backend_at(host, i, &backend), OMNIRT_STATUS_OK);
    if (std::string(info_of(backend).name) == name) return backend;
  }
  return nullptr;
}

std::string last_message() { return omnirt_last_error()->message; }

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "omnirt-host-test-XXXXXX").string();
  const char* made = mkdtemp(pattern.data());
  if (made == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = made;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path);
}

void copy_file(const std::string& from, const std::string& to) {
  std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
}

ScopedEnv::ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
  if (const char* old = std::getenv(name)) saved_ = old;
  if (value) {
    setenv(name, value->c_str(), 1);
  } else {
    unsetenv(name);
  }
}

ScopedEnv::~ScopedEnv() {
  if (saved_) {
    setenv(name_.c_str(), saved_->c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

}  // namespace omnirt_test
