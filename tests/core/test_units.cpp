#include <gtest/gtest.h>

#include "core/units.hpp"

using namespace engramsim;

TEST(Time, IntegerNanosecondsAndRounding) {
  EXPECT_EQ(Time::ns(1500).count_ns(), 1500);
  EXPECT_EQ(Time::us(70).count_ns(), 70000);
  EXPECT_EQ(Time::from_seconds(1.4e-9).count_ns(), 1);  // rounds to nearest
  EXPECT_EQ(Time::from_seconds(1.6e-9).count_ns(), 2);
  EXPECT_LT(Time::ns(1), Time::ns(2));
  EXPECT_EQ((Time::ms(1) + Time::us(1)).count_ns(), 1001000);
}

// A duration beyond the int64 nanosecond clock (about 292 years) or NaN throws instead of wrapping
// to a negative time: a bandwidth of 1 B/s for a 100 GB read must not come out as a short step.
TEST(Time, OutOfRangeDurationsThrow) {
  EXPECT_THROW(Time::from_seconds(1e10), TimeOutOfRange);
  EXPECT_THROW(Time::from_seconds(-1e10), TimeOutOfRange);
  EXPECT_THROW(Time::from_seconds(std::nan("")), TimeOutOfRange);
  EXPECT_THROW(Bytes(1e11) / Bandwidth(1.0), TimeOutOfRange);
  EXPECT_EQ(Time::from_seconds(9.1e9).count_ns(), static_cast<std::int64_t>(9.1e18));
}

TEST(Units, CrossUnitOperators) {
  // 1 GB over 100 GB/s = 10 ms.
  EXPECT_EQ((Bytes::gb(1) / Bandwidth::gb_per_s(100)).count_ns(), 10'000'000);
  // 2e12 FLOP at 1e15 FLOP/s = 2 ms.
  EXPECT_EQ((Flops(2e12) / FlopRate(1e15)).count_ns(), 2'000'000);
  // 50 GB/s for 1 ms = 50 MB.
  EXPECT_DOUBLE_EQ((Bandwidth::gb_per_s(50) * Time::ms(1)).value(), 50e6);
  // 3.6 USD/h for 1 s = 0.001 USD.
  EXPECT_DOUBLE_EQ((MoneyRate(3.6) * Time::from_seconds(1)).value(), 0.001);
  // A zero rate never completes.
  EXPECT_EQ(Bytes(1) / Bandwidth(0), Time::max());
}

TEST(Units, Rendering) {
  EXPECT_EQ(to_string(Bytes::gib(1.5)), "1.50 GiB");
  EXPECT_EQ(to_string(Time::ms(3.2)), "3.20 ms");
  EXPECT_EQ(to_string(Bandwidth::gb_per_s(8000)), "8.00 TB/s");
}
