#include "hardware/gpu_spec.hpp"

#include <array>
#include <utility>

namespace engramsim {
namespace {

constexpr std::array<std::pair<Precision, const char*>, 5> kPrecisionNames{{
    {Precision::fp4, "fp4"},
    {Precision::fp8, "fp8"},
    {Precision::bf16, "bf16"},
    {Precision::fp16, "fp16"},
    {Precision::fp32, "fp32"},
}};

constexpr std::array<std::pair<HostLinkKind, const char*>, 5> kHostLinkNames{{
    {HostLinkKind::pcie_gen4_x16, "pcie_gen4_x16"},
    {HostLinkKind::pcie_gen5_x16, "pcie_gen5_x16"},
    {HostLinkKind::pcie_gen6_x16, "pcie_gen6_x16"},
    {HostLinkKind::nvlink_c2c, "nvlink_c2c"},
    {HostLinkKind::infinity_fabric, "infinity_fabric"},
}};

}  // namespace

std::optional<Precision> precision_from_string(const std::string& s) {
  for (const auto& [p, n] : kPrecisionNames)
    if (s == n) return p;
  return std::nullopt;
}

const char* to_string(Precision p) {
  for (const auto& [q, n] : kPrecisionNames)
    if (q == p) return n;
  return "?";
}

double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp4:
      return 0.5;
    case Precision::fp8:
      return 1.0;
    case Precision::bf16:
      return 2.0;
    case Precision::fp16:
      return 2.0;
    case Precision::fp32:
      return 4.0;
  }
  return 0.0;
}

std::optional<HostLinkKind> host_link_kind_from_string(const std::string& s) {
  for (const auto& [k, n] : kHostLinkNames)
    if (s == n) return k;
  return std::nullopt;
}

const char* to_string(HostLinkKind k) {
  for (const auto& [q, n] : kHostLinkNames)
    if (q == k) return n;
  return "?";
}

}  // namespace engramsim
