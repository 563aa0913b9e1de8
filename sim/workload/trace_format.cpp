#include "sim/workload/trace_format.hpp"

#include "core/error.hpp"
#include "sim/workload/bailian_trace_source.hpp"
#include "sim/workload/burstgpt_trace_source.hpp"
#include "sim/workload/canonical_trace_source.hpp"
#include "sim/workload/line_reader.hpp"
#include "sim/workload/mooncake_trace_source.hpp"
#include "sim/workload/three_column_trace_source.hpp"

namespace engramsim::sim {

std::vector<std::string> trace_format_names() {
  return {"auto", "canonical", "azure", "mooncake", "vidur", "burstgpt", "bailian"};
}

std::string detect_trace_format(const std::string& path) {
  LineReader r(path);
  std::string_view line;
  do {
    if (!r.next(line)) r.fail_at(1, "empty trace: cannot detect its format");
  } while (line.find_first_not_of(" \t") == std::string_view::npos);
  const auto has = [&](std::string_view key) { return line.find(key) != std::string_view::npos; };
  if (line.find_first_not_of(" \t") != std::string_view::npos && line[line.find_first_not_of(" \t")] == '{') {
    if (has("\"chat_id\"")) return "bailian";
    if (has("\"input_length\"")) return "mooncake";
  } else {
    if (has("TIMESTAMP") && has("ContextTokens")) return "azure";
    if (has("arrived_at")) return "vidur";
    if (has("Request tokens")) return "burstgpt";
    if (has("arrival_s")) return "canonical";
  }
  r.fail("cannot detect the trace format from the first line; name it (" +
         std::string("canonical, azure, mooncake, vidur, burstgpt, bailian)"));
}

std::unique_ptr<RequestSource> open_trace(const std::string& path, const std::string& format,
                                          const TraceOptions& options) {
  const std::string f = format == "auto" ? detect_trace_format(path) : format;
  if (f == "canonical") return std::make_unique<CanonicalTraceSource>(path, options);
  if (f == "azure") return std::make_unique<ThreeColumnTraceSource>(path, kAzureFormat, options);
  if (f == "mooncake") return std::make_unique<MooncakeTraceSource>(path, options);
  if (f == "vidur") return std::make_unique<ThreeColumnTraceSource>(path, kVidurFormat, options);
  if (f == "burstgpt") return std::make_unique<BurstGptTraceSource>(path, options);
  if (f == "bailian") return std::make_unique<BailianTraceSource>(path, options);
  throw ConfigError(
      {}, "workload.format",
      "unknown trace format '" + format + "' (known: auto, canonical, azure, mooncake, vidur, burstgpt, bailian)");
}

}  // namespace engramsim::sim
