// Strong unit types for engramsim.
//
// Time is an integer count of nanoseconds (exact, totally ordered, the simulator clock).
// Bytes, Bandwidth (bytes/s), Flops, FlopRate (FLOP/s) and MoneyRate (USD/h) are doubles wrapped
// in distinct types so that a size can never be passed where a rate is expected. The only
// cross-unit operators are the physically meaningful ones:
//   Bytes / Bandwidth -> Time,  Flops / FlopRate -> Time,  Bandwidth * Time -> Bytes,
//   MoneyRate * Time -> Money (USD).
// No LLM knowledge lives here.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace engramsim {

// A duration the nanosecond clock cannot hold (beyond about +-292 years, or not a number): always
// the result of an input no real system has (a bandwidth of bytes per second, a billion-token
// context). The CLI reports it as bad input.
class TimeOutOfRange : public std::range_error {
 public:
  explicit TimeOutOfRange(double seconds)
      : std::range_error("a duration of " + std::to_string(seconds) +
                         " s is beyond the simulator's clock (+-292 years): an input value (a rate, a size, a "
                         "token count) is far outside what real hardware or workloads reach") {}
};

class Time {
 public:
  constexpr Time() = default;
  static constexpr Time ns(std::int64_t v) { return Time(v); }
  static constexpr Time us(double v) { return from_seconds(v * 1e-6); }
  static constexpr Time ms(double v) { return from_seconds(v * 1e-3); }
  // Rounds to the nearest nanosecond; throws TimeOutOfRange beyond the int64 clock (or on NaN)
  // instead of wrapping to a negative or meaningless time.
  static constexpr Time from_seconds(double s) {
    if (!(s > -9.2e9 && s < 9.2e9)) throw TimeOutOfRange(s);
    return Time(static_cast<std::int64_t>(s * 1e9 + (s >= 0 ? 0.5 : -0.5)));
  }
  static constexpr Time max() { return Time(std::numeric_limits<std::int64_t>::max()); }
  static constexpr Time zero() { return Time(0); }

  constexpr std::int64_t count_ns() const { return ns_; }
  constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }
  constexpr double millis() const { return static_cast<double>(ns_) * 1e-6; }
  constexpr double micros() const { return static_cast<double>(ns_) * 1e-3; }

  constexpr Time operator+(Time o) const { return Time(ns_ + o.ns_); }
  constexpr Time operator-(Time o) const { return Time(ns_ - o.ns_); }
  constexpr Time& operator+=(Time o) {
    ns_ += o.ns_;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ns_ -= o.ns_;
    return *this;
  }
  constexpr Time operator*(std::int64_t k) const { return Time(ns_ * k); }
  constexpr double operator/(Time o) const { return static_cast<double>(ns_) / static_cast<double>(o.ns_); }
  constexpr auto operator<=>(const Time&) const = default;

 private:
  constexpr explicit Time(std::int64_t v) : ns_(v) {}
  std::int64_t ns_ = 0;
};

// CRTP base for double-valued quantities of one dimension.
template <class Derived>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : v_(v) {}
  constexpr double value() const { return v_; }
  constexpr Derived operator+(Derived o) const { return Derived(v_ + o.value()); }
  constexpr Derived operator-(Derived o) const { return Derived(v_ - o.value()); }
  constexpr Derived operator*(double k) const { return Derived(v_ * k); }
  constexpr Derived operator/(double k) const { return Derived(v_ / k); }
  constexpr double operator/(Derived o) const { return v_ / o.value(); }
  constexpr Derived& operator+=(Derived o) {
    v_ += o.value();
    return self();
  }
  constexpr Derived& operator-=(Derived o) {
    v_ -= o.value();
    return self();
  }
  constexpr auto operator<=>(const Quantity&) const = default;

 private:
  constexpr Derived& self() { return static_cast<Derived&>(*this); }
  double v_ = 0.0;
};

template <class D>
constexpr D operator*(double k, const Quantity<D>& q) {
  return D(k * q.value());
}

// A size in bytes (may be fractional in expectations, e.g. bytes per token).
class Bytes : public Quantity<Bytes> {
 public:
  using Quantity::Quantity;
  static constexpr Bytes kib(double v) { return Bytes(v * 1024.0); }
  static constexpr Bytes mib(double v) { return Bytes(v * 1024.0 * 1024.0); }
  static constexpr Bytes gib(double v) { return Bytes(v * 1024.0 * 1024.0 * 1024.0); }
  static constexpr Bytes gb(double v) { return Bytes(v * 1e9); }
  constexpr double gib() const { return value() / (1024.0 * 1024.0 * 1024.0); }
};

// Bytes per second.
class Bandwidth : public Quantity<Bandwidth> {
 public:
  using Quantity::Quantity;
  static constexpr Bandwidth gb_per_s(double v) { return Bandwidth(v * 1e9); }
  constexpr double gb_per_s() const { return value() * 1e-9; }
};

// Floating-point operations.
class Flops : public Quantity<Flops> {
 public:
  using Quantity::Quantity;
};

// Floating-point operations per second.
class FlopRate : public Quantity<FlopRate> {
 public:
  using Quantity::Quantity;
  static constexpr FlopRate tflops(double v) { return FlopRate(v * 1e12); }
  constexpr double tflops() const { return value() * 1e-12; }
};

// US dollars.
class Money : public Quantity<Money> {
 public:
  using Quantity::Quantity;
};

// US dollars per hour (e.g. a GPU-hour price).
class MoneyRate : public Quantity<MoneyRate> {
 public:
  using Quantity::Quantity;
};

// US dollars per byte of capacity (DRAM, SSD), amortised per hour of use when multiplied by a rate.
class MoneyPerByte : public Quantity<MoneyPerByte> {
 public:
  using Quantity::Quantity;
  static constexpr MoneyPerByte per_gb(double usd) { return MoneyPerByte(usd / 1e9); }
};

// Transfer/compute times. Non-positive rates give Time::max() (an impossible operation never
// completes rather than silently taking zero time).
inline Time operator/(Bytes b, Bandwidth bw) {
  if (!(bw.value() > 0.0)) return Time::max();
  return Time::from_seconds(b.value() / bw.value());
}
inline Time operator/(Flops f, FlopRate r) {
  if (!(r.value() > 0.0)) return Time::max();
  return Time::from_seconds(f.value() / r.value());
}
inline Bytes operator*(Bandwidth bw, Time t) { return Bytes(bw.value() * t.seconds()); }
inline Bytes operator*(Time t, Bandwidth bw) { return bw * t; }
inline Money operator*(MoneyRate r, Time t) { return Money(r.value() * t.seconds() / 3600.0); }
inline Bandwidth operator/(Bytes b, Time t) { return Bandwidth(b.value() / t.seconds()); }

// Human-readable renderings ("1.50 GiB", "3.20 ms", "8.00 TB/s").
std::string to_string(Time t);
std::string to_string(Bytes b);
std::string to_string(Bandwidth bw);
std::string to_string(FlopRate r);
std::string to_string(MoneyRate r);

}  // namespace engramsim
