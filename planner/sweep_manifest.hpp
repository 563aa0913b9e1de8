// DIR/sweep.json and the shard headers DIR/results.shard-i-of-N.json: what the results beside them
// were computed from, so that results computed two ways are never mixed (issue 47).
//
// A manifest holds the sweep's shape (point count, axes), a fingerprint of the scenario as
// expanded and the command's evaluation settings, the content hash of every file the scenario
// reads (model card, GPU/node/engine presets, trace, lengths, price file, calibration profiles),
// and the engramsim version and commit that computed them. The parts are kept apart, not folded
// into one hash, so that a mismatch can say what differs: "model card models/cards/x.yaml changed
// since this folder's results were computed".
//
// JSON (keys sorted):
//   {"axes": [...], "fingerprint": "<16 hex>", "inputs": [{"hash": "fnv1a64:<16 hex>",
//    "path": "...", "role": "model card"}, ...], "tool": {"commit": "1a2b3c4", "version": "0.1.0"},
//    "total_points": N}
// Paths under the data root are written relative to it, so moving a checkout changes nothing. A
// manifest of an engramsim that kept neither inputs nor tool reads with both empty; it matches one
// that records a tool only with accept_version_change (its inputs cannot be checked).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace engramsim::planner {

// One file a sweep's points read.
struct InputFile {
  std::string role;  // "model card", "node preset", "GPU preset", "engine preset", "trace", ...
  std::string path;  // relative to the data root when under it, else absolute
  std::string hash;  // "fnv1a64:<16 hex>" of its bytes
  bool operator==(const InputFile&) const = default;
};

// The engramsim that computed the results.
struct ToolIdentity {
  std::string version;  // "0.1.0"
  std::string commit;   // "1a2b3c4", "1a2b3c4-dirty" or "unknown"
  bool operator==(const ToolIdentity&) const = default;
};

struct SweepManifest {
  std::size_t total_points = 0;
  std::vector<std::string> axes;
  std::string fingerprint;        // the scenario as expanded and the evaluation settings (16 hex)
  std::vector<InputFile> inputs;  // sorted by role, then path
  ToolIdentity tool;              // empty in a manifest written before tools were recorded

  nlohmann::json to_json() const;
  static SweepManifest from_json(const nlohmann::json& j);
  bool operator==(const SweepManifest&) const = default;
};

// DIR/sweep.json.
std::optional<SweepManifest> read_manifest(const std::filesystem::path& dir);
void write_manifest(const std::filesystem::path& dir, const SweepManifest& m);

// The header of a shard's results file: DIR/results.shard-i-of-N.json beside
// DIR/results.shard-i-of-N.jsonl (the results format itself has no room for one).
std::filesystem::path shard_header_path(const std::filesystem::path& results_file);
std::optional<SweepManifest> read_manifest_file(const std::filesystem::path& file);
void write_manifest_file(const std::filesystem::path& file, const SweepManifest& m);

// What differs between the manifest results were computed under (`recorded`) and `now`, one
// phrase per difference naming it ("model card X changed since ..."); empty when results computed
// under both may be mixed. A different tool version or commit alone is accepted when
// `accept_version_change`; nothing else is.
std::vector<std::string> manifest_differences(const SweepManifest& recorded, const SweepManifest& now,
                                              bool accept_version_change);

// The input as a manifest records it: `path` shown relative to the data root when under it, and
// the hash of its bytes (read in blocks; throws std::runtime_error naming the file and errno).
InputFile hash_input_file(const std::string& role, const std::string& path);

}  // namespace engramsim::planner
