// Fuzz target: one trace format through open_trace, read to its end. Built once per format with
// ENGRAMSIM_FUZZ_TRACE_FORMAT set to its name ("auto": the format is detected from the first line)
// and ENGRAMSIM_FUZZ_TRACE_FILE to the file name (the reader opens plain and gzip files alike).
#include "sim/workload/trace_format.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ScratchDir dir;
  const std::string path = dir.write(ENGRAMSIM_FUZZ_TRACE_FILE, fuzz::as_text(data, size));
  fuzz::refusal_is_fine([&] {
    auto source = sim::open_trace(path, ENGRAMSIM_FUZZ_TRACE_FORMAT);
    sim::Request r;
    while (source->next(r)) {
    }
  });
  return 0;
}
