// One name table per enum, shared by its to_string, its parser and the choices a schema offers
// (core/field_table.hpp `choice`, or the names ConfigNode::one_of allows), so that an enum's
// spelling is written in one place.
//
//   inline constexpr EnumNames<Precision, 2> kPrecisionNames{{{Precision::fp8, "fp8"}, {Precision::bf16, "bf16"}}};
//   kPrecisionNames.name(Precision::fp8) == "fp8"; kPrecisionNames.parse("bf16") == Precision::bf16;
//   table.choice("precision", [](auto& x) -> auto& { return x.p; }, kPrecisionNames.choices(), "...");
//   *kPrecisionNames.parse(node.one_of("precision", kPrecisionNames.names()));
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace engramsim {

template <class E, std::size_t N>
struct EnumNames {
  std::array<std::pair<E, const char*>, N> entries;

  // The value's name; "?" for a value the table does not list.
  constexpr const char* name(E value) const {
    for (const auto& [e, n] : entries)
      if (e == value) return n;
    return "?";
  }
  // The value named `text`; nullopt when no entry has that name.
  constexpr std::optional<E> parse(std::string_view text) const {
    for (const auto& [e, n] : entries)
      if (text == n) return e;
    return std::nullopt;
  }
  // (name, value) in table order, as FieldTable::choice takes them.
  std::vector<std::pair<std::string, E>> choices() const {
    std::vector<std::pair<std::string, E>> out;
    for (const auto& [e, n] : entries) out.emplace_back(n, e);
    return out;
  }
  // The names in table order, as ConfigNode::one_of takes them.
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [e, n] : entries) out.emplace_back(n);
    return out;
  }
};

}  // namespace engramsim
