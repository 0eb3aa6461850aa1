// Symbol: an interned name (operator names, attribute keys, rule names) held as a u32.
//
// E-nodes compare and hash their operator millions of times per second, so names are
// interned once into a process-wide table and compared as integers afterwards. Interning is
// thread-safe; the table only grows.
//
//   using tilesat::egraph::Symbol;
//   Symbol add = Symbol::intern("+");
//   assert(add == Symbol::intern("+") && add.str() == "+");
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <string_view>

namespace tilesat::egraph {

class Symbol {
public:
  /// The empty name "" (id 0).
  constexpr Symbol() = default;

  /// The symbol for `name`, creating it on first use.
  static Symbol intern(std::string_view name);
  /// The symbol of a previously interned id (for deserialization and tables).
  static constexpr Symbol from_id(std::uint32_t id) { return Symbol(id); }

  /// The operator of literal leaves (numbers, strings, booleans): `const` (interned first,
  /// so its id is fixed and the hot paths that test for it compare with a constant).
  static constexpr Symbol constant() { return Symbol(1); }

  /// The interned text; valid for the life of the process.
  std::string_view str() const;
  constexpr std::uint32_t id() const { return id_; }
  constexpr bool empty() const { return id_ == 0; }

  friend constexpr bool operator==(Symbol a, Symbol b) = default;
  friend constexpr auto operator<=>(Symbol a, Symbol b) = default;

private:
  constexpr explicit Symbol(std::uint32_t id) : id_(id) {}
  std::uint32_t id_ = 0;
};

} // namespace tilesat::egraph

template <>
struct std::hash<tilesat::egraph::Symbol> {
  std::size_t operator()(tilesat::egraph::Symbol s) const noexcept { return s.id(); }
};
