// FieldTable: one declaration reads a map with located errors, writes JSON, prints the docs table.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "core/field_table.hpp"

namespace engramsim {
namespace {

struct Limits {
  std::int32_t seqs = 256;
  double share = 0.9;
  bool cache = false;
  Bytes pool;
  std::string name = "a";
};

FieldTable<Limits> limits_schema() {
  FieldTable<Limits> t("limits");
  t.integer(
       "seqs", [](auto& l) -> auto& { return l.seqs; }, 1, 1000, "sequences")
      .number(
          "share", [](auto& l) -> auto& { return l.share; }, 0.001, 1.0, "share of HBM")
      .boolean(
          "cache", [](auto& l) -> auto& { return l.cache; }, "prefix cache")
      .bytes(
          "pool", [](auto& l) -> auto& { return l.pool; }, Bytes(0.0), Bytes(1e12), "size, 0 to 1 TB",
          "must be at most 1 TB", "host pool")
      .default_words("0 (no pool)")
      .custom({"name", "`a` \\| `b`", "`a`", "which"},
              [](const ConfigNode& m, Limits& l) {
                l.name = m.one_of("name", {"a", "b"});
              })
      .required();
  return t;
}

std::string error_of(const std::string& yaml) {
  Limits l;
  try {
    const ConfigNode n = ConfigNode::load_string(yaml, "limits.yaml");
    limits_schema().read(n, l);
    n.finish();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(FieldTable, ReadsPresentKeysAndKeepsDefaults) {
  Limits l;
  const ConfigNode n = ConfigNode::load_string("{seqs: 12, pool: 2GiB, name: b}", "x.yaml");
  limits_schema().read(n, l);
  n.finish();
  EXPECT_EQ(l.seqs, 12);
  EXPECT_DOUBLE_EQ(l.share, 0.9);
  EXPECT_FALSE(l.cache);
  EXPECT_DOUBLE_EQ(l.pool.value(), 2.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(l.name, "b");
}

TEST(FieldTable, ErrorsAreLocatedAndNameTheField) {
  EXPECT_EQ(error_of("name: a\nseqs: 0\n"), "limits.yaml:2:7: seqs: value 0 out of range [1, 1000]");
  EXPECT_NE(error_of("name: a\npool: 2TB\n").find("limits.yaml:2:7: pool: must be at most 1 TB"), std::string::npos);
  EXPECT_NE(error_of("seqs: 3\n").find("name: missing required field"), std::string::npos);
  EXPECT_NE(error_of("name: c\n").find("limits.yaml:1:7: name:"), std::string::npos);
  // A typo of a table key is caught by finish() with the key the table asked for.
  EXPECT_NE(error_of("name: a\nshare_: 0.5\n").find("did you mean 'share'"), std::string::npos);
}

TEST(FieldTable, WritesWrittenFieldsOnly) {
  Limits l;
  l.seqs = 7;
  const nlohmann::json j = limits_schema().write(l);
  EXPECT_EQ(j.at("seqs"), 7);
  EXPECT_EQ(j.at("cache"), false);
  EXPECT_FALSE(j.contains("name"));  // a custom key without a writer
}

TEST(FieldTable, DocsDeriveTypeAndDefault) {
  EXPECT_EQ(limits_schema().markdown(),
            "| key | type | default | meaning |\n|---|---|---|---|\n"
            "| `seqs` | integer in [1, 1000] | 256 | sequences |\n"
            "| `share` | number in [0.001, 1] | 0.9 | share of HBM |\n"
            "| `cache` | bool | false | prefix cache |\n"
            "| `pool` | size, 0 to 1 TB | 0 (no pool) | host pool |\n"
            "| `name` | `a` \\| `b` | required | which |\n");
}

TEST(FieldTable, WordsAndFlagNames) {
  EXPECT_EQ(flag_name("max_num_seqs"), "--max-num-seqs");
  EXPECT_EQ(integer_type_words(1, 2147483647), "integer >= 1");
  EXPECT_EQ(integer_type_words(0, 64), "integer in [0, 64]");
  EXPECT_EQ(number_type_words(0.0, 1.0, true), "number in (0, 1]");
  EXPECT_EQ(number_words(1e-6), "1e-06");
  EXPECT_EQ(number_words(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(number_words(100.0), "100");
  EXPECT_EQ(time_words(Time::us(750)), "750us");
  EXPECT_EQ(time_words(Time::from_seconds(1.0)), "1s");
  EXPECT_EQ(time_words(Time::zero()), "0");
  EXPECT_EQ(time_words(Time::ns(1500)), "1.5us");
}

TEST(FieldTable, AKeyDeclaredTwiceIsAProgrammingError) {
  FieldTable<Limits> t("limits");
  t.integer(
      "seqs", [](auto& l) -> auto& { return l.seqs; }, 1, 10, "");
  EXPECT_THROW(t.integer(
                   "seqs", [](auto& l) -> auto& { return l.seqs; }, 1, 10, ""),
               std::logic_error);
  EXPECT_THROW(FieldTable<Limits>("empty").required(), std::logic_error);
  EXPECT_THROW(t.at("nope"), std::logic_error);
}

}  // namespace
}  // namespace engramsim
