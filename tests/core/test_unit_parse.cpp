#include <gtest/gtest.h>

#include <cmath>

#include "core/unit_parse.hpp"

using namespace engramsim;

TEST(UnitParse, SizesSiAndIec) {
  EXPECT_DOUBLE_EQ(parse_bytes("141GB").value(), 141e9);
  EXPECT_DOUBLE_EQ(parse_bytes("288GiB").value(), 288.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(parse_bytes("264B").value(), 264.0);
  EXPECT_DOUBLE_EQ(parse_bytes("4KiB").value(), 4096.0);
  EXPECT_DOUBLE_EQ(parse_bytes("3.84 TB").value(), 3.84e12);
  EXPECT_DOUBLE_EQ(parse_bytes("0B").value(), 0.0);
}

TEST(UnitParse, Bandwidths) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("8TB/s").value(), 8e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth("900GB/s").value(), 900e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("64GiB/s").value(), 64.0 * 1024 * 1024 * 1024);
  EXPECT_THROW(parse_bandwidth("900GB"), UnitParseError);
  EXPECT_THROW(parse_bandwidth("900GB/h"), UnitParseError);
}

TEST(UnitParse, FlopRatesTimesMoney) {
  EXPECT_DOUBLE_EQ(parse_flop_rate("2.25PFLOPS").value(), 2.25e15);
  EXPECT_DOUBLE_EQ(parse_flop_rate("989TFLOPS").value(), 989e12);
  EXPECT_EQ(parse_time("70us").count_ns(), 70000);
  EXPECT_EQ(parse_time("1.5ms").count_ns(), 1500000);
  EXPECT_EQ(parse_time("2s").count_ns(), 2000000000);
  EXPECT_EQ(parse_time("1ns").count_ns(), 1);
  EXPECT_DOUBLE_EQ(parse_money_rate("1.41USD/h").value(), 1.41);
  EXPECT_DOUBLE_EQ(parse_money_per_byte("5USD/GB").value(), 5e-9);
}

TEST(UnitParse, RejectsBareNumbersUnknownUnitsNegativesNonFinite) {
  EXPECT_THROW(parse_bytes("141"), UnitParseError);
  EXPECT_THROW(parse_bytes("141XB"), UnitParseError);
  EXPECT_THROW(parse_bytes("-1GB"), UnitParseError);
  EXPECT_THROW(parse_bytes("nanGB"), UnitParseError);
  EXPECT_THROW(parse_bytes("infGB"), UnitParseError);
  EXPECT_THROW(parse_bytes("1e999GB"), UnitParseError);
  EXPECT_THROW(parse_bytes(""), UnitParseError);
  EXPECT_THROW(parse_bytes("GB"), UnitParseError);
  EXPECT_THROW(parse_time("70"), UnitParseError);
  EXPECT_THROW(parse_time("70 parsecs"), UnitParseError);
  EXPECT_THROW(parse_flop_rate("2.25PB/s"), UnitParseError);
  EXPECT_THROW(parse_money_rate("1.41EUR/h"), UnitParseError);
  try {
    parse_bytes("141");
    FAIL();
  } catch (const UnitParseError& e) {
    EXPECT_NE(std::string(e.what()).find("bare number"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("a size like"), std::string::npos);
  }
}
