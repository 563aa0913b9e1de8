#include "planner/sweep_manifest.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "core/error.hpp"
#include "core/json_text.hpp"
#include "core/paths.hpp"
#include "core/staged_file.hpp"
#include "planner/sweep_spec.hpp"

namespace engramsim::planner {
namespace fs = std::filesystem;
namespace {

// FNV-1a over the file's bytes, as the calibration samples hash is (hardware/calibration_profile.hpp),
// read in blocks so that a trace of any size is hashed in constant memory.
std::string content_hash(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot read " + path + " to hash it: " + std::strerror(errno));
  std::uint64_t h = 14695981039346656037ull;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int saved = errno;
      ::close(fd);
      throw std::runtime_error("cannot read " + path + " to hash it: " + std::strerror(saved));
    }
    if (n == 0) break;
    for (ssize_t i = 0; i < n; ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= 1099511628211ull;
    }
  }
  ::close(fd);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return std::string("fnv1a64:") + hex;
}

// Relative to the data root when under it, else absolute: the same file names itself the same way
// from any working folder and any checkout.
std::string manifest_path(const std::string& path) {
  std::error_code ec;
  const fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
  const fs::path root = fs::weakly_canonical(fs::path(data_root()), ec);
  const fs::path rel = abs.lexically_relative(root);
  if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
  return abs.generic_string();
}

const InputFile* find_input(const std::vector<InputFile>& v, const InputFile& like) {
  for (const auto& f : v)
    if (f.role == like.role && f.path == like.path) return &f;
  return nullptr;
}

std::string tool_text(const ToolIdentity& t) { return "engramsim " + t.version + " (commit " + t.commit + ")"; }

// The files named in `recorded` that are gone from, or changed in, `now`, then those only `now` reads.
void input_differences(const SweepManifest& recorded, const SweepManifest& now, std::vector<std::string>& out) {
  for (const auto& r : recorded.inputs) {
    const InputFile* n = find_input(now.inputs, r);
    if (n == nullptr)
      out.push_back(r.role + " " + r.path + " was read for this folder's results and is not read now");
    else if (n->hash != r.hash)
      out.push_back(r.role + " " + r.path + " changed since this folder's results were computed (" + r.hash +
                    " then, " + n->hash + " now)");
  }
  for (const auto& n : now.inputs)
    if (find_input(recorded.inputs, n) == nullptr)
      out.push_back(n.role + " " + n.path + " is read now and was not for this folder's results");
}

}  // namespace

nlohmann::json SweepManifest::to_json() const {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& f : inputs) files.push_back({{"role", f.role}, {"path", f.path}, {"hash", f.hash}});
  return {{"total_points", total_points},
          {"axes", axes},
          {"fingerprint", fingerprint},
          {"inputs", files},
          {"tool", {{"version", tool.version}, {"commit", tool.commit}}}};
}

SweepManifest SweepManifest::from_json(const nlohmann::json& j) {
  SweepManifest m;
  m.total_points = j.at("total_points").get<std::size_t>();
  if (m.total_points > kMaxSweepPoints)
    throw std::runtime_error("total_points " + std::to_string(m.total_points) + " is above the limit of " +
                             std::to_string(kMaxSweepPoints) + " points a sweep may have");
  m.axes = j.at("axes").get<std::vector<std::string>>();
  m.fingerprint = j.value("fingerprint", "");
  if (j.contains("inputs"))
    for (const auto& f : j.at("inputs"))
      m.inputs.push_back(
          {f.at("role").get<std::string>(), f.at("path").get<std::string>(), f.at("hash").get<std::string>()});
  if (j.contains("tool"))
    m.tool = {j.at("tool").at("version").get<std::string>(), j.at("tool").at("commit").get<std::string>()};
  return m;
}

std::optional<SweepManifest> read_manifest_file(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  try {
    return SweepManifest::from_json(nlohmann::json::parse(in));
  } catch (const std::exception& e) {
    throw ConfigError({p.string(), 0, 0}, "", std::string("not a sweep manifest (") + e.what() + ")");
  }
}

void write_manifest_file(const fs::path& file, const SweepManifest& m) {
  write_file_staged(file, json_text(m.to_json()) + "\n");
}

std::optional<SweepManifest> read_manifest(const fs::path& dir) { return read_manifest_file(dir / "sweep.json"); }

void write_manifest(const fs::path& dir, const SweepManifest& m) { write_manifest_file(dir / "sweep.json", m); }

fs::path shard_header_path(const fs::path& results_file) {
  fs::path p = results_file;
  return p.replace_extension(".json");
}

std::vector<std::string> manifest_differences(const SweepManifest& recorded, const SweepManifest& now,
                                              bool accept_version_change) {
  std::vector<std::string> out;
  if (recorded.total_points != now.total_points || recorded.axes != now.axes || recorded.fingerprint != now.fingerprint)
    out.push_back(
        "the scenario or the command's settings differ (its text after --set, its sweep axes, the evaluation "
        "settings or the --calibration profiles)");
  // Written by an engramsim that recorded no tool (and no inputs), read by one that does.
  if (recorded.tool == ToolIdentity{} && !(now.tool == ToolIdentity{})) {
    if (!accept_version_change)
      out.push_back(
          "this folder's results were computed by an engramsim that recorded neither the files it read nor its "
          "version, so they cannot be checked; pass --accept-version-change to accept them knowingly");
    return out;
  }
  input_differences(recorded, now, out);
  if (recorded.tool != now.tool && !accept_version_change)
    out.push_back("this folder's results were computed by " + tool_text(recorded.tool) + " and this is " +
                  tool_text(now.tool) + "; pass --accept-version-change to mix results of the two knowingly");
  return out;
}

InputFile hash_input_file(const std::string& role, const std::string& path) {
  return {role, manifest_path(path), content_hash(path)};
}

}  // namespace engramsim::planner
