#include "core/number_text.hpp"

#include <cstdio>

namespace engramsim {

std::string printf_number(double v, const char* spec) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

std::string round_trip_number(double v) { return printf_number(v, "%.17g"); }

}  // namespace engramsim
