// Mooncake traces (kvcache-ai/Mooncake FAST25-release/traces): JSON lines with timestamp
// (milliseconds from the start), input_length, output_length and hash_ids (chained prefix-block
// hashes, 512 tokens per block). Plain or gzip-compressed.
#pragma once

#include "sim/workload/line_reader.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

class MooncakeTraceSource final : public TraceSource {
 public:
  MooncakeTraceSource(const std::string& path, const TraceOptions& options);

 protected:
  bool read_row(Row& row, std::vector<std::uint64_t>& hashes) override;
  int value_column(std::string_view field) const override;

 private:
  LineReader reader_;
  std::string_view line_;  // the row last read (valid until the next read)
};

}  // namespace engramsim::sim
