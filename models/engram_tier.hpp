// Where the Engram embedding tables live during serving.
//
// hbm:  on the GPUs, split across the replica's ranks (they cost HBM, gathers are local).
// dram: pinned host memory, gathered over the host link (PCIe / NVLink-C2C) by the GPU.
// ssd:  NVMe files, read page by page (optionally through a DRAM row/page cache).
#pragma once

#include <optional>
#include <string>

#include "core/enum_names.hpp"

namespace engramsim {

enum class EngramTier { hbm, dram, ssd };
inline constexpr EnumNames<EngramTier, 3> kEngramTierNames{{{
    {EngramTier::hbm, "hbm"},
    {EngramTier::dram, "dram"},
    {EngramTier::ssd, "ssd"},
}}};

inline const char* to_string(EngramTier t) { return kEngramTierNames.name(t); }

inline std::optional<EngramTier> engram_tier_from_string(const std::string& s) { return kEngramTierNames.parse(s); }

}  // namespace engramsim
