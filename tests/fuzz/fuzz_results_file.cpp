// Fuzz target: a results.jsonl file as resume and merge read it: read, made canonical, rewritten,
// and read back as the report reads a sweep folder.
#include "planner/report_data.hpp"
#include "planner/results_file.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ScratchDir dir;
  const std::string path = dir.write("input.jsonl", fuzz::as_text(data, size));
  fuzz::refusal_is_fine([&] {
    planner::ReadResults r = planner::read_results_file(path);
    planner::write_canonical_file(planner::results_path(dir.path()), planner::canonicalize(std::move(r.lines)));
    planner::load_results(dir.path());
  });
  return 0;
}
