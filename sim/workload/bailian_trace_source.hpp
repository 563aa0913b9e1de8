// Alibaba Qwen-Bailian traces: JSON lines with chat_id, parent_chat_id (-1 for a conversation's
// first turn), timestamp (seconds from the start), input_length, output_length, type, turn and
// hash_ids (chained prefix-block hashes, 16 tokens per block by default).
//
// The session of a request is the chat_id of its conversation's first turn (+1, so that 0 keeps
// meaning "none"), found by following parent_chat_id. The chat -> session table is capped at
// `kSessionTableCap` entries, oldest dropped first, so memory stays bounded on long traces; a turn
// whose parent was dropped starts a new session named after the parent. A chat_id seen again
// (within that table) is bad input, as are negative ids and a turn that names itself as parent.
#pragma once

#include <deque>
#include <unordered_map>

#include "sim/workload/line_reader.hpp"
#include "sim/workload/trace_source.hpp"

namespace engramsim::sim {

class BailianTraceSource final : public TraceSource {
 public:
  static constexpr std::size_t kSessionTableCap = 1u << 20;
  BailianTraceSource(const std::string& path, const TraceOptions& options);

 protected:
  bool read_row(Row& row, std::vector<std::uint64_t>& hashes) override;
  int value_column(std::string_view field) const override;

 private:
  struct Chat {
    std::uint64_t session = 0;
    int line = 0;  // where the chat_id was first seen
  };
  LineReader reader_;
  std::string_view line_;  // the row last read (valid until the next read)
  std::unordered_map<std::int64_t, Chat> session_of_chat_;
  std::deque<std::int64_t> table_order_;
};

}  // namespace engramsim::sim
