// Fuzz target: `engramsim merge DIR --shards 2` on a folder holding the input's sweep.json and
// one shard file. The input is the sweep.json text, a line "--", then the shard's results lines.
#include "planner/report_data.hpp"
#include "planner/results_file.hpp"
#include "planner/sweep_runner.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ScratchDir dir;
  const auto [manifest, shard] = fuzz::split_once(fuzz::as_text(data, size), "\n--\n");
  dir.write("sweep.json", manifest);
  dir.write(planner::shard_results_path(dir.path(), 0, 2).filename().string(), shard);
  fuzz::refusal_is_fine([&] {
    if (!planner::read_manifest(dir.path())) return;
    // The shard has no header (sweep_manifest.hpp): accepted as from another version, so that the
    // merge itself is what the input reaches.
    planner::merge_shard_results(planner::FolderLock(dir.path()), 2, /*accept_version_change=*/true);
    planner::load_results(dir.path());
  });
  return 0;
}
