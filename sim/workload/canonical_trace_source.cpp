#include "sim/workload/canonical_trace_source.hpp"

namespace engramsim::sim {

CanonicalTraceSource::CanonicalTraceSource(const std::string& path, const TraceOptions& options)
    : TraceSource(path, "canonical", 512, options),
      csv_(path),
      cols_(csv_, "arrival_s", "input_tokens", "output_tokens"),
      c_session_(csv_.find_column("session")),
      c_hashes_(csv_.find_column("hash_ids")) {}

bool CanonicalTraceSource::read_row(Row& row, std::vector<std::uint64_t>& hashes) {
  if (!csv_.next_row()) return false;
  cols_.locate(csv_, row);
  row.t_ns = cols_.seconds_ns(csv_);
  cols_.read_tokens(csv_, row);
  if (c_session_ >= 0 && !csv_.field(c_session_).empty()) {
    const std::int64_t s = csv_.integer(c_session_);
    if (s < 0) csv_.fail_field(c_session_, "must be >= 0");
    row.session = static_cast<std::uint64_t>(s);
  }
  if (c_hashes_ >= 0) {
    row.hashes_at = csv_.ref(c_hashes_);
    std::string_view f = csv_.field(c_hashes_);
    if (!f.empty() && f.front() == '[') f.remove_prefix(1);
    if (!f.empty() && f.back() == ']') f.remove_suffix(1);
    std::size_t i = 0;
    while (i < f.size()) {
      while (i < f.size() && (f[i] == ' ' || f[i] == ';' || f[i] == '|' || f[i] == ',')) ++i;
      std::size_t j = i;
      while (j < f.size() && f[j] != ' ' && f[j] != ';' && f[j] != '|' && f[j] != ',') ++j;
      if (j > i) {
        std::int64_t h = 0;
        if (!parse_int64(f.substr(i, j - i), h) || h < 0) {
          csv_.fail_field(c_hashes_, "not a hash id: '" + std::string(f.substr(i, j - i)) + "'");
        }
        hashes.push_back(static_cast<std::uint64_t>(h));
      }
      i = j;
    }
  }
  return true;
}

}  // namespace engramsim::sim
