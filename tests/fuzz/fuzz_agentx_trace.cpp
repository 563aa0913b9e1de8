// Fuzz target: an AgentX corpus (Weka trace v7 JSON lines, plain or gzip, told apart by content)
// through open_agentx_trace, read to its end as a replay reads it, every session tree whole.
#include "sim/workload/agentx_trace_reader.hpp"
#include "tests/fuzz/fuzz_support.hpp"

using namespace engramsim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fuzz::ScratchDir dir;
  const std::string path = dir.write("trace.jsonl", fuzz::as_text(data, size));
  fuzz::refusal_is_fine([&] {
    auto source = sim::open_agentx_trace(path);
    sim::AgenticSession s;
    while (source->next(s)) {
    }
    (void)source->describe();
  });
  return 0;
}
