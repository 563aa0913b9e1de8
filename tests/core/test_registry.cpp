#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/config_node.hpp"
#include "core/registry.hpp"
#include "tests/support/config_error.hpp"

using namespace engramsim;

namespace {
struct Shape {
  virtual ~Shape() = default;
  virtual int sides() const = 0;
};
struct Polygon final : Shape {
  explicit Polygon(int n) : n_(n) {}
  int sides() const override { return n_; }
  int n_;
};
using ShapeFactory = std::function<std::unique_ptr<Shape>(int scale)>;
using ShapeRegistry = Registry<ShapeFactory>;

ShapeRegistry shapes() {
  ShapeRegistry r("shape", "shape.name");
  r.add("triangle", [](int scale) { return std::make_unique<Polygon>(3 * scale); });
  r.add("square", [](int scale) { return std::make_unique<Polygon>(4 * scale); });
  return r;
}

using test::config_error_of;
}  // namespace

TEST(Registry, CreatesByNameAndListsNamesSorted) {
  const ShapeRegistry r = shapes();
  EXPECT_EQ(r.create("triangle", 1)->sides(), 3);
  EXPECT_EQ(r.create("square", 2)->sides(), 8);
  EXPECT_EQ(r.names(), (std::vector<std::string>{"square", "triangle"}));
  EXPECT_TRUE(r.contains("square"));
  EXPECT_FALSE(r.contains("squares"));
  EXPECT_FALSE(r.contains(""));
}

TEST(Registry, ADuplicateNameIsAnErrorAndKeepsTheFirst) {
  ShapeRegistry r = shapes();
  EXPECT_THROW(r.add("square", [](int) { return std::make_unique<Polygon>(5); }), std::logic_error);
  EXPECT_EQ(r.create("square", 1)->sides(), 4);
  EXPECT_EQ(r.names().size(), 2u);
}

TEST(Registry, AnEmptyNameOrFactoryIsAnError) {
  ShapeRegistry r("shape", "shape.name");
  EXPECT_THROW(r.add("", [](int) { return std::make_unique<Polygon>(1); }), std::logic_error);
  EXPECT_THROW(r.add("nothing", ShapeFactory{}), std::logic_error);
  EXPECT_TRUE(r.names().empty());
}

TEST(Registry, AnUnknownNameNamesTheFieldAndTheKnownNames) {
  const ShapeRegistry r = shapes();
  EXPECT_EQ(config_error_of([&] { r.create("circle", 1); }),
            "shape.name: unknown shape 'circle' (known: square, triangle)");
  EXPECT_EQ(config_error_of([&] { r.at("Square"); }), "shape.name: unknown shape 'Square' (known: square, triangle)");
  // An empty registry has no names to list.
  const ShapeRegistry none("shape", "shape.name");
  EXPECT_EQ(none.unknown_message("x"), "unknown shape 'x' (known: )");
}

TEST(Registry, ANameFromYamlIsCheckedWhereItStands) {
  const ShapeRegistry r = shapes();
  const ConfigNode root = ConfigNode::load_string("a: 1\nshape: hexagon\n", "s.yaml");
  EXPECT_EQ(config_error_of([&] { r.checked_name(root.child("shape")); }),
            "s.yaml:2:8: shape: unknown shape 'hexagon' (known: square, triangle)");
  const ConfigNode ok = ConfigNode::load_string("shape: square\n", "ok.yaml");
  EXPECT_EQ(r.checked_name(ok.child("shape")), "square");
}
