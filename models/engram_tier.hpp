// Where the Engram embedding tables live during serving.
//
// hbm:  on the GPUs, split across the replica's ranks (they cost HBM, gathers are local).
// dram: pinned host memory, gathered over the host link (PCIe / NVLink-C2C) by the GPU.
// ssd:  NVMe files, read page by page (optionally through a DRAM row/page cache).
#pragma once

#include <optional>
#include <string>

namespace engramsim {

enum class EngramTier { hbm, dram, ssd };

inline const char* to_string(EngramTier t) {
  switch (t) {
    case EngramTier::hbm:
      return "hbm";
    case EngramTier::dram:
      return "dram";
    case EngramTier::ssd:
      return "ssd";
  }
  return "?";
}

inline std::optional<EngramTier> engram_tier_from_string(const std::string& s) {
  if (s == "hbm") return EngramTier::hbm;
  if (s == "dram") return EngramTier::dram;
  if (s == "ssd") return EngramTier::ssd;
  return std::nullopt;
}

}  // namespace engramsim
