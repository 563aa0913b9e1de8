#include "hardware/gpu_spec.hpp"

namespace engramsim {

std::optional<Precision> precision_from_string(const std::string& s) { return kPrecisionNames.parse(s); }

const char* to_string(Precision p) { return kPrecisionNames.name(p); }

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

std::optional<HostLinkKind> host_link_kind_from_string(const std::string& s) { return kHostLinkNames.parse(s); }

const char* to_string(HostLinkKind k) { return kHostLinkNames.name(k); }

}  // namespace engramsim
