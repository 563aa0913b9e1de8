#include <gtest/gtest.h>

#include "core/config_input.hpp"
#include "core/config_node.hpp"
#include "tests/support/config_error.hpp"

using namespace engramsim;

namespace {
std::string error_of(const std::function<void()>& f) { return test::config_error_of(f); }

TEST(ConfigNode, RefusesARepeatedKeyWhereItStands) {
  // A repeated key would silently lose one of its values.
  const std::string e = error_of([] { ConfigNode::load_string("a: 1\nb:\n  x: 1\n  y: 2\n  x: 3\n", "dup.yaml"); });
  EXPECT_NE(e.find("dup.yaml:5:3"), std::string::npos) << e;
  EXPECT_NE(e.find("b.x"), std::string::npos) << e;
  EXPECT_NE(e.find("duplicate key (first given on line 3)"), std::string::npos) << e;
  // Inside a list of maps, and in flow style.
  const std::string f = error_of([] { ConfigNode::load_string("l:\n  - {p: 1, p: 2}\n", "flow.yaml"); });
  EXPECT_NE(f.find("l[0].p"), std::string::npos) << f;
  // An alias bomb (each level lists the previous one ten times) is refused, not walked for ever.
  std::string bomb = "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) bomb += (j ? ", *a" : "*a") + std::to_string(i - 1);
    bomb += "]\n";
  }
  const std::string b = error_of([&] { ConfigNode::load_string(bomb, "bomb.yaml"); });
  EXPECT_NE(b.find("nodes once aliases are expanded"), std::string::npos) << b;
  // The same key in different maps is fine.
  EXPECT_NO_THROW(ConfigNode::load_string("a: {x: 1}\nb: {x: 2}\nl: [{x: 1}, {x: 2}]\n", "ok.yaml"));
}

TEST(ConfigNode, RefusesKeysThatAreNotNamesWhereTheyStand) {
  // A list or a map as a key has no key path; yaml-cpp's key conversions used to throw its own
  // exception from every loader.
  const std::string e = error_of([] { ConfigNode::load_string("a: 1\nb: {[x]: 1}\n", "k.yaml"); });
  EXPECT_NE(e.find("k.yaml:2:5: b: a map key must be a plain name, got a list as a key"), std::string::npos) << e;
  const std::string f =
      error_of([] { ConfigNode::load_string("compare:\n  - {name: a, set: {{p: 1}: 2}}\n", "m.yaml"); });
  EXPECT_NE(f.find("m.yaml:2:21: compare[0].set: a map key must be a plain name, got a map"), std::string::npos) << f;
  const std::string g = error_of([] { parse_config_value("{[a]: 1}", "--set", "sweep.report.title"); });
  EXPECT_NE(g.find("--set: sweep.report.title"), std::string::npos) << g;
  EXPECT_NE(g.find("a map key must be a plain name"), std::string::npos) << g;
}

TEST(ConfigNode, RefusesTextThatIsNotUtf8WhereItStands) {
  const std::string e = error_of([] { ConfigNode::load_string("a: 1\ntitle: \"x \xff y\"\n", "u.yaml"); });
  EXPECT_NE(e.find("u.yaml:2:8: title: not valid UTF-8 (byte 3 of the value)"), std::string::npos) << e;
  const std::string k = error_of([] { ConfigNode::load_string("a\xc3: 1\n", "key.yaml"); });
  EXPECT_NE(k.find("key.yaml:1:1"), std::string::npos) << k;
  // Overlong forms, surrogates and truncated sequences are invalid; real multi-byte text is fine.
  for (const char* bad :
       {"v: \"\xc0\xaf\"\n", "v: \"\xed\xa0\x80\"\n", "v: \"\xe2\x82\"\n", "v: \"\xf4\x90\x80\x80\"\n"})
    EXPECT_NE(error_of([&] { ConfigNode::load_string(bad, "b.yaml"); }).find("not valid UTF-8"), std::string::npos)
        << bad;
  EXPECT_NO_THROW(ConfigNode::load_string("v: \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"\n", "ok.yaml"));
}

TEST(ConfigNode, ReadFileStopsAtItsBound) {
  // /dev/zero never ends: the read stops at the bound instead of growing until memory runs out.
  const std::string e = error_of([] { read_input_file("/dev/zero", std::size_t{1} << 20); });
  EXPECT_NE(e.find("/dev/zero: larger than 1 MiB"), std::string::npos) << e;
}

}  // namespace

TEST(ConfigNode, ReadsTypedFieldsAndRejectsUnknownKeys) {
  auto root = ConfigNode::load_string("name: x\nsize: \"264B\"\nn: 4\nextra: 1\n", "card.yaml");
  EXPECT_EQ(root.str("name"), "x");
  EXPECT_DOUBLE_EQ(root.bytes("size").value(), 264.0);
  EXPECT_EQ(root.integer("n", 1, 8), 4);
  const std::string msg = error_of([&] { root.finish(); });
  EXPECT_EQ(msg, "card.yaml:4:1: extra: unknown field");
}

TEST(ConfigNode, ErrorsNameFileLineColumnAndField) {
  auto root = ConfigNode::load_string("models:\n  engram:\n    row_bytes: 264\n", "path/file.yaml");
  const std::string msg = error_of([&] { root.child("models").child("engram").bytes("row_bytes"); });
  EXPECT_EQ(msg.rfind("path/file.yaml:3:16: models.engram.row_bytes: expected a size like", 0), 0u) << msg;
}

TEST(ConfigNode, MissingRequiredFieldAndRange) {
  auto root = ConfigNode::load_string("a: 5\n", "f.yaml");
  EXPECT_NE(error_of([&] { root.str("b"); }).find("f.yaml:1:1: b: missing required field"), std::string::npos);
  EXPECT_NE(error_of([&] { root.integer("a", 0, 4); }).find("a: value 5 out of range [0, 4]"), std::string::npos);
  EXPECT_EQ(root.integer("a", 0, 5), 5);  // both sides of the limit
  EXPECT_NE(error_of([&] { root.number("a", 5.5, 6); }).find("out of range"), std::string::npos);
}

TEST(ConfigNode, WrongTypesAndBadYaml) {
  auto root = ConfigNode::load_string("a: [1, 2]\nb: maybe\nc: 1.5\n", "f.yaml");
  EXPECT_NE(error_of([&] { root.str("a"); }).find("expected a string, got a list"), std::string::npos);
  EXPECT_NE(error_of([&] { root.boolean("b"); }).find("expected true or false"), std::string::npos);
  EXPECT_NE(error_of([&] { root.integer("c"); }).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of([] { ConfigNode::load_string("a: [1, 2\n", "bad.yaml"); }).find("bad.yaml:"), std::string::npos);
  EXPECT_NE(error_of([] { ConfigNode::load_file("/nonexistent/x.yaml"); }).find("no such file"), std::string::npos);
  EXPECT_NE(error_of([] { ConfigNode::load_file("/tmp"); }).find("/tmp: is a folder, not a file"), std::string::npos);
  // A second document (after --- or ...) is refused where it starts, not silently dropped.
  EXPECT_NE(error_of([] {
              ConfigNode::load_string("a: 1\n---\nb: 2\n", "two.yaml");
            }).find("two.yaml:3:1: a second YAML document"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              ConfigNode::load_string("a: 1\n...\nb: 2\n", "end.yaml");
            }).find("end.yaml:3:1: a second YAML document"),
            std::string::npos);
  EXPECT_EQ(ConfigNode::load_string("a: 1\n---\n", "bare.yaml").integer("a"), 1);  // an empty trailing document
  // A stray ',' where a value should start: an error at it (the YAML library's own document loop
  // would repeat an empty document there until memory runs out).
  EXPECT_NE(error_of([] { ConfigNode::load_string(",b: 2\n", "comma.yaml"); }).find("comma.yaml:1:1: invalid YAML"),
            std::string::npos);
  EXPECT_NE(error_of([] { ConfigNode::load_string("# note\n  , a\n", "c2.yaml"); }).find("c2.yaml:2:3: invalid YAML"),
            std::string::npos);
  EXPECT_NE(error_of([] { ConfigNode::load_string("a: 1\n---\n,\n", "c3.yaml"); }).find("c3.yaml:3:1: invalid YAML"),
            std::string::npos);
}

// A number must be written as one: a quoted "512" or a !!str / !!float tag on an integer is refused.
TEST(ConfigNode, NumbersMustBeWrittenAsNumbers) {
  auto root = ConfigNode::load_string("a: \"512\"\nb: !!str 1\nc: !!float 1\nd: 512\ne: 0.5\n", "n.yaml");
  EXPECT_NE(error_of([&] { root.integer("a"); }).find("got the quoted string \"512\""), std::string::npos);
  EXPECT_NE(error_of([&] { root.number("a"); }).find("quoted string"), std::string::npos);
  EXPECT_NE(error_of([&] { root.integer("b"); }).find("tagged"), std::string::npos);
  EXPECT_NE(error_of([&] { root.integer("c"); }).find("!!float"), std::string::npos);
  EXPECT_DOUBLE_EQ(root.number("c"), 1.0);
  EXPECT_EQ(root.integer("d"), 512);
  EXPECT_DOUBLE_EQ(root.number("e"), 0.5);
}

TEST(ConfigNode, OptionalDefaultsOnlyWhenAbsent) {
  auto root = ConfigNode::load_string("u: 0.5\n", "f.yaml");
  EXPECT_DOUBLE_EQ(root.number_or("u", 0.9, 0, 1), 0.5);
  EXPECT_DOUBLE_EQ(root.number_or("v", 0.9, 0, 1), 0.9);
  EXPECT_NO_THROW(root.finish());
  auto bad = ConfigNode::load_string("u: 1.5\n", "f.yaml");
  EXPECT_THROW(bad.number_or("u", 0.9, 0, 1), ConfigError);
}

TEST(ConfigNode, ATypoIsReportedAtItsKeyBeforeTheMissingFieldItCauses) {
  // `tpp` under a map whose reader needs `tp`: the typo's own line, with the likely key.
  auto root = ConfigNode::load_string("deployment:\n  replicas: 1\n  tpp: 2\n", "s.yaml");
  const ConfigNode d = root.child("deployment");
  EXPECT_EQ(d.integer("replicas"), 1);
  EXPECT_EQ(error_of([&] { d.integer("tp"); }), "s.yaml:3:3: deployment.tpp: unknown field; did you mean 'tp'?");
  // The same when the key is optional and a later check fails for want of it.
  auto opt = ConfigNode::load_string("replicas: 1\ntpp: 2\n", "o.yaml");
  EXPECT_EQ(opt.integer_or("tp", 1, 1, 8), 1);
  EXPECT_EQ(error_of([&] { opt.fail("does not fit"); }), "o.yaml:2:1: tpp: unknown field; did you mean 'tp'?");
  // finish() suggests the closest key the reader knew.
  auto fin = ConfigNode::load_string("concurency: 4\n", "f.yaml");
  EXPECT_EQ(fin.integer_or("concurrency", 1), 1);
  EXPECT_EQ(error_of([&] { fin.finish(); }), "f.yaml:1:1: concurency: unknown field; did you mean 'concurrency'?");
}

TEST(ConfigNode, DidYouMeanStaysWithinATyposReach) {
  const std::set<std::string> known = {"tp", "ep", "replicas", "num_requests"};
  EXPECT_EQ(ConfigNode::closest_key("tpp", known), "tp");
  EXPECT_EQ(ConfigNode::closest_key("replica", known), "replicas");
  EXPECT_EQ(ConfigNode::closest_key("num_reqests", known), "num_requests");
  EXPECT_EQ(ConfigNode::closest_key("tpxx", known), "");   // two slips in a short key
  EXPECT_EQ(ConfigNode::closest_key("extra", known), "");  // nothing near
  // A missing field with no close sibling keeps its plain message.
  auto root = ConfigNode::load_string("a: 5\n", "f.yaml");
  EXPECT_EQ(error_of([&] { root.str("bcd"); }), "f.yaml:1:1: bcd: missing required field");
}
