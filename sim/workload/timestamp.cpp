#include "sim/workload/timestamp.hpp"

namespace engramsim::sim {
namespace {
bool digits(std::string_view s, std::size_t pos, std::size_t n, int& out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  out = v;
  return true;
}
}  // namespace

// Shifting the year to start in March puts the leap day last, so each 400-year era has a fixed
// day count and the day of the era follows from the year of the era and the day of the year.
std::int64_t days_from_civil(std::int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;                          // [0, 399]
  const std::int64_t mp = (m + 9) % 12;                            // March = 0
  const std::int64_t doy = (153 * mp + 2) / 5 + d - 1;             // [0, 365]
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;  // [0, 146096]
  return era * 146097 + doe - 719468;
}

bool parse_timestamp_ns(std::string_view s, std::int64_t& out) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  int year = 0, month = 0, day = 0, hh = 0, mm = 0, ss = 0;
  if (!digits(s, 0, 4, year) || s.size() < 19 || s[4] != '-' || !digits(s, 5, 2, month) || s[7] != '-' ||
      !digits(s, 8, 2, day) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, hh) || s[13] != ':' ||
      !digits(s, 14, 2, mm) || s[16] != ':' || !digits(s, 17, 2, ss)) {
    return false;
  }
  // A real calendar date (no 31 February) between 1900 and 2200, where nanoseconds since 1970 fit
  // in int64; no leap second (60), which a trace's clock would not write.
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year < 1900 || year > 2200 || month < 1 || month > 12 || hh > 23 || mm > 59 || ss > 59) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (day < 1 || day > kDays[month - 1] + (month == 2 && leap ? 1 : 0)) return false;
  std::size_t pos = 19;
  std::int64_t frac_ns = 0;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    int nd = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      if (nd < 9) {
        frac_ns = frac_ns * 10 + (s[pos] - '0');
        ++nd;
      }
      ++pos;
    }
    if (nd == 0) return false;
    for (; nd < 9; ++nd) frac_ns *= 10;
  }
  std::int64_t offset_s = 0;
  if (pos < s.size()) {
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
      pos = s.size();
    } else if (s[pos] == '+' || s[pos] == '-') {
      const int sign = s[pos] == '-' ? -1 : 1;
      int oh = 0, om = 0;
      if (!digits(s, pos + 1, 2, oh)) return false;
      std::size_t p = pos + 3;
      if (p < s.size() && s[p] == ':') ++p;
      if (!digits(s, p, 2, om) || p + 2 != s.size() || oh > 23 || om > 59) return false;
      offset_s = sign * (oh * 3600 + om * 60);
      pos = s.size();
    } else {
      return false;
    }
  }
  const std::int64_t secs = days_from_civil(year, month, day) * 86400 + hh * 3600 + mm * 60 + ss - offset_s;
  out = secs * 1'000'000'000 + frac_ns;
  return true;
}

}  // namespace engramsim::sim
