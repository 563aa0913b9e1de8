// Calendar timestamps as trace files write them, to integer nanoseconds since 1970-01-01 UTC.
// Accepted: "YYYY-MM-DD HH:MM:SS" or with 'T', an optional fraction of any length (digits beyond
// nanoseconds are truncated), and an optional zone "Z", "+HH:MM", "-HH:MM" or "+HHMM" (no zone =
// UTC). Covers both Azure LLM inference trace generations: 2023 ("2023-11-16 18:15:46.6805900")
// and 2024 ("2024-05-10 00:00:00.0000000+00:00").
#pragma once

#include <cstdint>
#include <string_view>

namespace engramsim::sim {

bool parse_timestamp_ns(std::string_view text, std::int64_t& ns_since_epoch);
// Days from 1970-01-01 to a proleptic Gregorian date (month 1..12, day 1..31).
std::int64_t days_from_civil(std::int64_t year, int month, int day);

}  // namespace engramsim::sim
