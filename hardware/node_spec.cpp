#include "hardware/node_spec.hpp"

namespace engramsim {

std::optional<PriceTier> price_tier_from_string(const std::string& s) {
  if (s == "hyperscaler") return PriceTier::hyperscaler;
  if (s == "neocloud") return PriceTier::neocloud;
  if (s == "rental") return PriceTier::rental;
  return std::nullopt;
}

const char* to_string(PriceTier t) {
  switch (t) {
    case PriceTier::hyperscaler:
      return "hyperscaler";
    case PriceTier::neocloud:
      return "neocloud";
    case PriceTier::rental:
      return "rental";
  }
  return "?";
}

MoneyRate gpu_hour_price(const PriceTiers& p, PriceTier t) {
  switch (t) {
    case PriceTier::hyperscaler:
      return p.hyperscaler;
    case PriceTier::neocloud:
      return p.neocloud;
    case PriceTier::rental:
      return p.rental;
  }
  return p.hyperscaler;
}

}  // namespace engramsim
