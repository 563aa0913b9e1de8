// core/enum_names.hpp: one table gives an enum's names, its parser and a schema's choices.
#include <gtest/gtest.h>

#include "core/enum_names.hpp"
#include "core/field_table.hpp"

namespace engramsim {
namespace {

enum class Shade { light, dark, unlisted };
constexpr EnumNames<Shade, 2> kShades{{{{Shade::light, "light"}, {Shade::dark, "dark"}}}};

TEST(EnumNames, NamesParsesAndListsChoicesInTableOrder) {
  static_assert(kShades.parse("dark") == Shade::dark);
  EXPECT_STREQ(kShades.name(Shade::light), "light");
  EXPECT_STREQ(kShades.name(Shade::unlisted), "?");
  EXPECT_EQ(kShades.parse("Dark"), std::nullopt);
  const auto c = kShades.choices();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0].first, "light");
  EXPECT_EQ(c[1].second, Shade::dark);
  EXPECT_EQ(kShades.names(), (std::vector<std::string>{"light", "dark"}));
}

struct Paint {
  Shade shade = Shade::light;
};

// The choices drive a schema key: its type words list the names, reading takes them and nothing else.
TEST(EnumNames, ChoicesAreASchemaKey) {
  FieldTable<Paint> t("paint");
  t.choice("shade", &Paint::shade, kShades.choices(), "how dark");
  EXPECT_NE(t.markdown().find("`light` \\| `dark`"), std::string::npos);
  Paint p;
  const ConfigNode ok = ConfigNode::load_string("shade: dark\n", "p.yaml");
  t.read(ok, p);
  EXPECT_EQ(p.shade, Shade::dark);
  const ConfigNode bad = ConfigNode::load_string("shade: unlisted\n", "p.yaml");
  EXPECT_THROW(t.read(bad, p), ConfigError);
}

}  // namespace
}  // namespace engramsim
