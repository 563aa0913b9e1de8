// FieldTable: one declaration reads a map with located errors, writes JSON, prints the docs table.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/field_table.hpp"
#include "tests/support/config_error.hpp"

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
  t.integer("seqs", &Limits::seqs, 1, 1000, "sequences")
      .number("share", &Limits::share, 0.001, 1.0, "share of HBM")
      .boolean("cache", &Limits::cache, "prefix cache")
      .bytes("pool", &Limits::pool, Bytes(0.0), Bytes(1e12), "size, 0 to 1 TB", "must be at most 1 TB", "host pool")
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
  return test::config_error_of([&] {
    const ConfigNode n = ConfigNode::load_string(yaml, "limits.yaml");
    limits_schema().read(n, l);
    n.finish();
  });
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

// Rules run where they are declared, with the map: a key another key calls for, a default derived
// from keys read before it, a check naming an earlier key. written_if leaves a field out of the output.
FieldTable<Limits> ruled_schema() {
  FieldTable<Limits> t("ruled");
  t.boolean("cache", &Limits::cache, "prefix cache");
  t.rule([](const ConfigNode& m, Limits& l) {
    if (l.cache) m.child("pool");  // required with the cache: throws when absent
    l.seqs = l.cache ? 64 : 256;   // the default of seqs follows the cache
  });
  t.bytes("pool", &Limits::pool, Bytes(0.0), Bytes(1e12), "size", "must be at most 1 TB", "host pool")
      .written_if([](const Limits& l) { return l.pool.value() > 0.0; });
  t.integer("seqs", &Limits::seqs, 1, 1000, "sequences");
  t.rule([](const ConfigNode& m, Limits& l) {
    if (!l.cache && l.pool.value() > 0.0) m.fail_key("pool", "needs cache: true");
  });
  return t;
}

std::string ruled_error(const std::string& yaml, Limits* out = nullptr) {
  Limits l;
  const std::string e = test::config_error_of([&] {
    const ConfigNode n = ConfigNode::load_string(yaml, "r.yaml");
    ruled_schema().read(n, l);
    n.finish();
  });
  if (e.empty() && out) *out = l;
  return e;
}

TEST(FieldTable, RulesRunWhereDeclared) {
  Limits l;
  EXPECT_EQ(ruled_error("cache: true\npool: 1GiB\n", &l), "");
  EXPECT_EQ(l.seqs, 64);
  EXPECT_EQ(ruled_error("cache: true\npool: 1GiB\nseqs: 3\n", &l), "");
  EXPECT_EQ(l.seqs, 3);  // a derived default gives way to the key
  EXPECT_EQ(ruled_error("{}", &l), "");
  EXPECT_EQ(l.seqs, 256);
  EXPECT_EQ(ruled_error("cache: true\n"), "r.yaml:1:1: pool: missing required field");
  // The first rule runs before seqs is read, the second after: seqs' error comes first.
  EXPECT_EQ(ruled_error("pool: 1GiB\nseqs: 0\n"), "r.yaml:2:7: seqs: value 0 out of range [1, 1000]");
  EXPECT_EQ(ruled_error("pool: 1GiB\n"), "r.yaml:1:7: pool: needs cache: true");
  // A typo of a key that a rule asked for is named before the missing key.
  EXPECT_NE(ruled_error("cache: true\npol: 1GiB\n").find("pol: unknown field; did you mean 'pool'?"),
            std::string::npos);
}

TEST(FieldTable, WrittenIfLeavesAFieldOut) {
  Limits l;
  EXPECT_FALSE(ruled_schema().write(l).contains("pool"));
  EXPECT_EQ(ruled_schema().yaml(l), "cache: false\nseqs: 256\n");
  l.pool = Bytes::gib(1);
  EXPECT_EQ(ruled_schema().write(l).at("pool"), Bytes::gib(1).value());
}

// --- nested kinds: a member section, a list of maps, an optional section; choices and units ---

enum class Shape { round, square };

struct Point {
  int n = 0;
  Bytes size;
  Time latency;
};

struct Part {
  Shape shape = Shape::round;
  double weight = 0.0;
};

struct Box {
  std::string label;
  Part part;
  std::vector<Point> points;
  std::optional<Part> spare;
  std::map<std::string, std::string> missing;  // section -> why it holds no data
};

FieldTable<Point> point_schema() {
  FieldTable<Point> t("point");
  t.integer("n", &Point::n, 0, 100, "count").required();
  t.positive("size", &Point::size, "bytes").required();
  t.at_least_zero("latency", &Point::latency, "latency").check([](const Point& p) -> std::string {
    return p.n == 0 && p.latency > Time::zero() ? "a latency needs n" : "";
  });
  return t;
}

FieldTable<Part> part_schema() {
  FieldTable<Part> t("part");
  t.choice("shape", &Part::shape, {{"round", Shape::round}, {"square", Shape::square}}, "outline");
  t.positive("weight", &Part::weight, "kg").required();
  return t;
}

FieldTable<Box> box_schema() {
  FieldTable<Box>::Absence absence{
      "not_measured",
      [](const Box& b, const std::string& key) { return b.missing.count(key) ? b.missing.at(key) : std::string(); },
      [](Box& b, const std::string& key, std::string why) { b.missing[key] = std::move(why); }};
  FieldTable<Box> t("box");
  t.fixed("format", "box/1", "version");
  t.any_text("label", &Box::label, "free text");
  t.section("part", &Box::part, part_schema(), "").required();
  t.list("points", &Box::points, point_schema(), 1, "samples").required();
  t.optional_section("spare", &Box::spare, part_schema(), absence, "a second part");
  return t;
}

Box read_box(const std::string& yaml) {
  Box b;
  const ConfigNode n = ConfigNode::load_string(yaml, "box.yaml");
  box_schema().read(n, b);
  n.finish();
  return b;
}

std::string box_error(const std::string& yaml) {
  return test::config_error_of([&] { read_box(yaml); });
}

const std::string kBox =
    "format: box/1\n"
    "label: \"a \\\"b\\\"\"\n"
    "part:\n"
    "  shape: square\n"
    "  weight: 2.5\n"
    "points:\n"
    "  - {n: 1, size: 4KiB, latency: 0ns}\n"
    "  - {n: 2, size: 264B, latency: 1.5us}\n";

TEST(FieldTable, ReadsSectionsListsAndChoicesAndWritesTheSameYaml) {
  const Box b = read_box(kBox);
  EXPECT_EQ(b.label, "a \"b\"");
  EXPECT_EQ(b.part.shape, Shape::square);
  EXPECT_DOUBLE_EQ(b.part.weight, 2.5);
  ASSERT_EQ(b.points.size(), 2u);
  EXPECT_DOUBLE_EQ(b.points[0].size.value(), 4096.0);
  EXPECT_EQ(b.points[1].latency, Time::ns(1500));
  EXPECT_FALSE(b.spare.has_value());
  EXPECT_EQ(box_schema().yaml(b), kBox);  // an absent optional section is not written
  const nlohmann::json j = box_schema().write(b);
  EXPECT_EQ(j.at("part").at("shape"), "square");
  EXPECT_EQ(j.at("points").at(1).at("size"), 264.0);
  EXPECT_DOUBLE_EQ(j.at("points").at(1).at("latency").get<double>(), 1.5e-6);
  EXPECT_FALSE(j.contains("spare"));
}

TEST(FieldTable, OptionalSectionIsDataOrAReasonOrAbsent) {
  const Box data = read_box(kBox + "spare: {shape: round, weight: 1}\n");
  ASSERT_TRUE(data.spare.has_value());
  EXPECT_DOUBLE_EQ(data.spare->weight, 1.0);
  EXPECT_TRUE(data.missing.empty());
  EXPECT_EQ(box_schema().yaml(data), kBox + "spare:\n  shape: round\n  weight: 1\n");

  const Box reason = read_box(kBox + "spare:\n  not_measured: \"no scale\"\n");
  EXPECT_FALSE(reason.spare.has_value());
  EXPECT_EQ(reason.missing.at("spare"), "no scale");
  EXPECT_EQ(box_schema().yaml(reason), kBox + "spare:\n  not_measured: \"no scale\"\n");
  EXPECT_EQ(box_schema().write(reason).at("spare").at("not_measured"), "no scale");
}

TEST(FieldTable, NestedKindsReportLocatedErrors) {
  EXPECT_NE(box_error("format: box/2\n").find("box.yaml:1:9: format: unsupported format \"box/2\", expected \"box/1\""),
            std::string::npos);
  const std::string head = "format: box/1\npart: {weight: 1}\n";
  EXPECT_NE(box_error(head + "points: []\n").find("box.yaml:3:9: points: must hold at least one entry"),
            std::string::npos);
  EXPECT_NE(box_error(head + "points: [3]\n").find("points[0]: expected a map, got a scalar"), std::string::npos);
  EXPECT_NE(box_error(head + "points:\n  - {n: 1, size: 0B}\n").find("points[0].size: must be greater than zero"),
            std::string::npos);
  EXPECT_NE(box_error(head + "points:\n  - {n: 1, size: 64}\n").find("bare number"), std::string::npos);
  EXPECT_NE(
      box_error(head + "points:\n  - {n: 0, size: 1B, latency: 1us}\n").find("points[0].latency: a latency needs n"),
      std::string::npos);
  const std::string ok = head + "points:\n  - {n: 1, size: 1B}\n";
  EXPECT_EQ(box_error(ok), "");
  EXPECT_NE(box_error(ok + "spare: {shape: oval, weight: 1}\n").find("spare.shape: expected one of round, square"),
            std::string::npos);
  EXPECT_NE(box_error(ok + "spare: 3\n").find("spare: expected a section map or {not_measured: \"reason\"}"),
            std::string::npos);
  EXPECT_NE(box_error(ok + "spare: {not_measured: \"\"}\n").find("spare.not_measured: give the reason"),
            std::string::npos);
  // A section that says why it holds no data holds nothing else.
  EXPECT_NE(box_error(ok + "spare: {not_measured: x, weight: 1}\n").find("spare.weight: unknown field"),
            std::string::npos);
}

TEST(FieldTable, DocsOfNestedKinds) {
  EXPECT_EQ(box_schema().markdown(),
            "| key | type | default | meaning |\n|---|---|---|---|\n"
            "| `format` | `box/1` | required | version |\n"
            "| `label` | string | empty | free text |\n"
            "| `part.shape` | `round` \\| `square` | round | outline |\n"
            "| `part.weight` | number > 0 | required | kg |\n"
            "| `points` | list of maps, at least 1 | required | samples |\n"
            "| `points[].n` | integer in [0, 100] | required | count |\n"
            "| `points[].size` | size > 0 | required | bytes |\n"
            "| `points[].latency` | time >= 0 | 0ns | latency |\n"
            "| `spare` | map, or `{not_measured: \"reason\"}` | absent | a second part |\n"
            "| `spare.shape` | `round` \\| `square` | round | outline |\n"
            "| `spare.weight` | number > 0 | required | kg |\n");
}

// A section read into a std::optional member, and rules that join keys.
struct Crate {
  std::optional<Part> lid;
  std::optional<Part> base;
  int parts = 0;  // derived by the rule
};

FieldTable<Crate> crate_schema() {
  FieldTable<Crate> t("crate");
  t.section("lid", &Crate::lid, part_schema(), "the top");
  t.section("base", &Crate::base, part_schema(), "the bottom");
  t.rule([](const ConfigNode& m, Crate& c) {
    c.parts = (c.lid ? 1 : 0) + (c.base ? 1 : 0);
    if (c.parts == 0) m.fail("give a lid or a base");
  });
  return t;
}

std::string crate_error(const std::string& yaml, Crate* out = nullptr) {
  Crate c;
  try {
    const ConfigNode n = ConfigNode::load_string(yaml, "crate.yaml");
    crate_schema().read(n, c);
    n.finish();
  } catch (const ConfigError& e) {
    return e.what();
  }
  if (out) *out = c;
  return "";
}

TEST(FieldTable, OptionalMemberSectionsAndRules) {
  Crate c;
  EXPECT_EQ(crate_error("lid: {weight: 2}\n", &c), "");
  ASSERT_TRUE(c.lid.has_value());
  EXPECT_DOUBLE_EQ(c.lid->weight, 2.0);
  EXPECT_FALSE(c.base.has_value());
  EXPECT_EQ(c.parts, 1);
  EXPECT_EQ(crate_schema().yaml(c), "lid:\n  shape: round\n  weight: 2\n");  // an empty one is not written
  EXPECT_FALSE(crate_schema().write(c).contains("base"));
  EXPECT_NE(crate_error("lid: {weight: 0}\n").find("crate.yaml:1:15: lid.weight: must be greater than zero"),
            std::string::npos);
  EXPECT_NE(crate_error("{}\n").find("crate.yaml:1:1: give a lid or a base"), std::string::npos);
  // A rule runs before the map's unknown keys are reported, but after a close typo of a key it asked for.
  EXPECT_NE(crate_error("lids: {weight: 1}\n").find("lids: unknown field; did you mean 'lid'?"), std::string::npos);
  EXPECT_EQ(crate_schema().markdown(),
            "| key | type | default | meaning |\n|---|---|---|---|\n"
            "| `lid.shape` | `round` \\| `square` | round | outline |\n"
            "| `lid.weight` | number > 0 | required | kg |\n"
            "| `base.shape` | `round` \\| `square` | round | outline |\n"
            "| `base.weight` | number > 0 | required | kg |\n");
}

TEST(FieldTable, KeysBelowACustomFieldAreDocumented) {
  FieldTable<Crate> t("crate");
  t.custom({"parts", "list of parts", "none", "read by hand"}, [](const ConfigNode& m, Crate&) {
     m.ignore("parts");
   }).keys_below(part_schema().docs(), "[].");
  EXPECT_EQ(t.markdown(),
            "| key | type | default | meaning |\n|---|---|---|---|\n"
            "| `parts` | list of parts | none | read by hand |\n"
            "| `parts[].shape` | `round` \\| `square` | round | outline |\n"
            "| `parts[].weight` | number > 0 | required | kg |\n");
}

TEST(FieldTable, YamlTextLayout) {
  YamlValue fit = YamlValue::map();
  fit.add("alpha", YamlValue::scalar("1us"));
  fit.add("samples", YamlValue::scalar("3"));
  YamlValue entry = YamlValue::map();
  entry.add("row", YamlValue::scalar("264B"));
  entry.add("fit", fit);
  YamlValue list = YamlValue::list();
  list.items.push_back(entry);
  YamlValue section = YamlValue::map();
  section.add("fit", fit);
  section.add("points", list);
  section.add("none", YamlValue::list());
  YamlValue root = YamlValue::map();
  root.add("name", YamlValue::scalar(yaml_quoted("x\ty")));
  root.add("section", section);
  EXPECT_EQ(yaml_text(root),
            "name: \"x\\ty\"\n"
            "section:\n"
            "  fit: {alpha: 1us, samples: 3}\n"
            "  points:\n"
            "    - {row: 264B, fit: {alpha: 1us, samples: 3}}\n"
            "  none: []\n");
  EXPECT_EQ(yaml_number(1.0 / 3.0), "0.333333");
  EXPECT_EQ(yaml_quantity(Bytes::gib(2)), "2GiB");
  EXPECT_EQ(yaml_quantity(Bytes(264)), "264B");
  EXPECT_EQ(yaml_quantity(Time::us(36.034)), "36.034us");
  EXPECT_EQ(yaml_quantity(Time::ns(850)), "850ns");
  EXPECT_EQ(yaml_quantity(Bandwidth(981.818e6)), "981.818MB/s");
  EXPECT_EQ(yaml_quantity(FlopRate::tflops(1131.8)), "1131.8TFLOPS");
  EXPECT_EQ(yaml_quoted("a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\x01\"");
}

TEST(FieldTable, AKeyDeclaredTwiceIsAProgrammingError) {
  FieldTable<Limits> t("limits");
  t.integer("seqs", &Limits::seqs, 1, 10, "");
  EXPECT_THROW(t.integer("seqs", &Limits::seqs, 1, 10, ""), std::logic_error);
  EXPECT_THROW(FieldTable<Limits>("empty").required(), std::logic_error);
  EXPECT_THROW(t.at("nope"), std::logic_error);
}

// --- a member named by a pointer to it reads, writes and documents as the lambda returning it ---

struct Gear {
  int teeth = 12;
  double ratio = 0.5;
  bool oiled = true;
  Bytes cache = Bytes::gib(1);
  Time delay = Time::us(5);
  double load = 1.0;
  std::string name = "g";
  std::string note;
  Shape shape = Shape::square;
  Bandwidth rate = Bandwidth::gb_per_s(1.0);
  Bytes size = Bytes(64);
  Time settle;
  Part part;
  std::vector<Point> points;
  std::optional<Part> spare;
  std::map<std::string, std::string> missing;  // section -> why it holds no data
};

FieldTable<Gear>::Absence gear_absence() {
  return {
      "not_measured",
      [](const Gear& g, const std::string& key) { return g.missing.count(key) ? g.missing.at(key) : std::string(); },
      [](Gear& g, const std::string& key, std::string why) { g.missing[key] = std::move(why); }};
}

const std::vector<std::pair<std::string, Shape>> kShapes = {{"round", Shape::round}, {"square", Shape::square}};

FieldTable<Gear> gear_by_members() {
  FieldTable<Gear> t("gear");
  t.integer("teeth", &Gear::teeth, 1, 100, "teeth");
  t.number("ratio", &Gear::ratio, 0.0, 1.0, "ratio");
  t.boolean("oiled", &Gear::oiled, "oiled");
  t.bytes("cache", &Gear::cache, Bytes(0.0), Bytes(1e12), "size", "must be at most 1 TB", "cache");
  t.time("delay", &Gear::delay, Time::zero(), Time::from_seconds(1.0), "delay");
  t.number_above("load", &Gear::load, 0.0, 10.0, "load");
  t.text("name", &Gear::name, "name");
  t.any_text("note", &Gear::note, "note");
  t.choice("shape", &Gear::shape, kShapes, "outline");
  t.quantity("rate", &Gear::rate, &ConfigNode::as_bandwidth, "bandwidth", 1e6, 1e15, "1 MB/s to 1 PB/s", "rate");
  t.positive("size", &Gear::size, "size");
  t.at_least_zero("settle", &Gear::settle, "settle");
  t.section("part", &Gear::part, part_schema(), "");
  t.list("points", &Gear::points, point_schema(), 0, "samples");
  t.optional_section("spare", &Gear::spare, part_schema(), gear_absence(), "a second part");
  return t;
}

FieldTable<Gear> gear_by_lambdas() {
  FieldTable<Gear> t("gear");
  t.integer(
      "teeth", [](auto& g) -> auto& { return g.teeth; }, 1, 100, "teeth");
  t.number(
      "ratio", [](auto& g) -> auto& { return g.ratio; }, 0.0, 1.0, "ratio");
  t.boolean(
      "oiled", [](auto& g) -> auto& { return g.oiled; }, "oiled");
  t.bytes(
      "cache", [](auto& g) -> auto& { return g.cache; }, Bytes(0.0), Bytes(1e12), "size", "must be at most 1 TB",
      "cache");
  t.time(
      "delay", [](auto& g) -> auto& { return g.delay; }, Time::zero(), Time::from_seconds(1.0), "delay");
  t.number_above(
      "load", [](auto& g) -> auto& { return g.load; }, 0.0, 10.0, "load");
  t.text(
      "name", [](auto& g) -> auto& { return g.name; }, "name");
  t.any_text(
      "note", [](auto& g) -> auto& { return g.note; }, "note");
  t.choice(
      "shape", [](auto& g) -> auto& { return g.shape; }, kShapes, "outline");
  t.quantity(
      "rate", [](auto& g) -> auto& { return g.rate; }, &ConfigNode::as_bandwidth, "bandwidth", 1e6, 1e15,
      "1 MB/s to 1 PB/s", "rate");
  t.positive(
      "size", [](auto& g) -> auto& { return g.size; }, "size");
  t.at_least_zero(
      "settle", [](auto& g) -> auto& { return g.settle; }, "settle");
  t.section(
      "part", [](auto& g) -> auto& { return g.part; }, part_schema(), "");
  t.list(
      "points", [](auto& g) -> auto& { return g.points; }, point_schema(), 0, "samples");
  t.optional_section(
      "spare", [](auto& g) -> auto& { return g.spare; }, part_schema(), gear_absence(), "a second part");
  return t;
}

Gear read_gear(const FieldTable<Gear>& table, const std::string& yaml) {
  Gear g;
  const ConfigNode n = ConfigNode::load_string(yaml, "gear.yaml");
  table.read(n, g);
  n.finish();
  return g;
}

TEST(FieldTable, AMemberPointerWorksAsTheLambdaReturningTheMember) {
  const FieldTable<Gear> members = gear_by_members();
  const FieldTable<Gear> lambdas = gear_by_lambdas();
  EXPECT_EQ(members.markdown(), lambdas.markdown());  // the defaults read off Gear() included
  EXPECT_NE(members.markdown().find("| `delay` | time in [0, 1s] | 5us | delay |"), std::string::npos);
  const Gear dflt;
  EXPECT_EQ(members.write(dflt), lambdas.write(dflt));
  EXPECT_EQ(members.yaml(dflt), lambdas.yaml(dflt));

  const std::string yaml =
      "teeth: 40\nratio: 0.25\noiled: false\ncache: 2GiB\ndelay: 750us\nload: 2.5\nname: \"n\"\nnote: \"\"\n"
      "shape: round\nrate: 3.35TB/s\nsize: 4KiB\nsettle: 1ms\npart: {shape: square, weight: 2}\n"
      "points:\n  - {n: 1, size: 1B}\nspare:\n  not_measured: \"no scale\"\n";
  const Gear by_member = read_gear(members, yaml);
  const Gear by_lambda = read_gear(lambdas, yaml);
  EXPECT_EQ(by_member.teeth, 40);
  EXPECT_EQ(by_member.shape, Shape::round);
  EXPECT_DOUBLE_EQ(by_member.rate.value(), 3.35e12);
  EXPECT_EQ(by_member.missing.at("spare"), "no scale");
  EXPECT_EQ(members.write(by_member), lambdas.write(by_lambda));
  EXPECT_EQ(members.yaml(by_member), lambdas.yaml(by_lambda));
  EXPECT_EQ(members.yaml(by_member), lambdas.yaml(by_member));  // the writers agree on one value
  // Errors name the same key at the same place.
  const std::string bad = "teeth: 0\n";
  EXPECT_EQ(test::config_error_of([&] { read_gear(members, bad); }),
            test::config_error_of([&] { read_gear(lambdas, bad); }));
  EXPECT_NE(test::config_error_of([&] { read_gear(members, bad); }).find("gear.yaml:1:8: teeth:"), std::string::npos);
}

}  // namespace
}  // namespace engramsim
