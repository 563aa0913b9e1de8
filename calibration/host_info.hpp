// Facts about the host that go into a profile's provenance and size the benchmarks.
// All readers are best effort: a fact that cannot be read comes back empty or 0, never throws.
#pragma once

#include <cstdint>
#include <string>

namespace engramsim::calibration {

std::string host_name();
std::string cpu_model_name();
int online_cpus();
std::uint64_t last_level_cache_bytes();  // largest data/unified cache of cpu0; 0 if unknown
std::uint64_t physical_memory_bytes();
std::string utc_timestamp();                           // "2026-11-20T10:11:12Z"
std::string transparent_hugepage_policy();             // "always [madvise] never" -> "madvise"
std::string filesystem_type(const std::string& path);  // "ext4", "tmpfs", ... or "0x..." or ""

}  // namespace engramsim::calibration
