#include "hardware/node_spec.hpp"

namespace engramsim {

std::optional<PriceTier> price_tier_from_string(const std::string& s) { return kPriceTierNames.parse(s); }

const char* to_string(PriceTier t) { return kPriceTierNames.name(t); }

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
