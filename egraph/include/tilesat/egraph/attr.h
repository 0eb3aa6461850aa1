// Attribute payloads of e-nodes: typed values, sorted key/value lists, and their interning.
//
// An e-node is an operator, an attribute payload and children. The payload carries what is not
// a child: `dim0=1, dim1=0` on a transpose, `transpose_b=true` on a matmul, the value of a
// literal constant. Payloads are interned per e-graph into an `AttrTable`, so an e-node holds a
// 32-bit `AttrId` and two payloads are equal exactly when their ids are. A literal leaf (a
// number, string or boolean in a term) is an e-node with operator `const` and payload
// `[value=<literal>]`; a name such as `x` is a nullary operator with an empty payload.
//
//   using namespace tilesat::egraph;
//   AttrTable table;
//   Attrs t{{Symbol::intern("dim0"), AttrValue(1)}, {Symbol::intern("dim1"), AttrValue(0)}};
//   AttrId id = table.intern(t);
//   assert(table.get(id).to_string() == "[dim0=1, dim1=0]" && table.intern(t) == id);
#pragma once

#include "tilesat/egraph/symbol.h"

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace tilesat::egraph {

/// An exact rational number num/den, kept reduced with den > 0.
struct Rational {
  std::int64_t num = 0;
  std::int64_t den = 1;

  /// num/den reduced; nullopt when den is 0 or reducing overflows.
  static std::optional<Rational> make(std::int64_t num, std::int64_t den);
  bool is_integer() const { return den == 1; }
  friend bool operator==(const Rational&, const Rational&) = default;
};

/// Overflow-checked arithmetic; nullopt on overflow or division by zero.
std::optional<Rational> checked_add(Rational a, Rational b);
std::optional<Rational> checked_sub(Rational a, Rational b);
std::optional<Rational> checked_mul(Rational a, Rational b);
std::optional<Rational> checked_div(Rational a, Rational b);

/// One attribute value. A rational with denominator 1 is stored as an integer, so `2` and
/// `4/2` are the same value.
class AttrValue {
public:
  using IntList = std::vector<std::int64_t>;
  enum class Kind : std::uint8_t { kInt, kRational, kDouble, kBool, kString, kIntList };

  AttrValue() : v_(std::int64_t{0}) {}
  AttrValue(std::int64_t v) : v_(v) {}
  AttrValue(int v) : v_(std::int64_t{v}) {}
  AttrValue(Rational r);
  AttrValue(double v) : v_(v) {}
  AttrValue(bool v) : v_(v) {}
  AttrValue(std::string v) : v_(std::move(v)) {}
  AttrValue(const char* v) : v_(std::string(v)) {}
  AttrValue(IntList v) : v_(std::move(v)) {}

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_int() const { return kind() == Kind::kInt; }
  /// Integers and rationals.
  bool is_rational() const { return kind() == Kind::kInt || kind() == Kind::kRational; }
  std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  /// The value of an integer or rational.
  Rational as_rational() const;
  double as_double() const { return std::get<double>(v_); }
  bool as_bool() const { return std::get<bool>(v_); }
  const std::string& as_string() const { return std::get<std::string>(v_); }
  const IntList& as_int_list() const { return std::get<IntList>(v_); }

  std::uint64_t hash() const;
  /// The literal as written in patterns and terms: `3`, `-1/2`, `2.5`, `true`, `"s"`, `[1, 0]`.
  std::string to_string() const;
  friend bool operator==(const AttrValue&, const AttrValue&) = default;

private:
  std::variant<std::int64_t, Rational, double, bool, std::string, IntList> v_;
};

/// One key=value entry of a payload.
struct Attr {
  Symbol key;
  AttrValue value;
  friend bool operator==(const Attr&, const Attr&) = default;
};

/// An attribute payload: entries sorted by key, keys unique.
class Attrs {
public:
  Attrs() = default;
  /// Sorts by key; a later duplicate key replaces an earlier one.
  Attrs(std::initializer_list<Attr> entries);
  explicit Attrs(std::vector<Attr> entries);

  /// The payload of a literal leaf: `[value=v]`.
  static Attrs literal(AttrValue v);

  const std::vector<Attr>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  /// The value under `key`, or nullptr.
  const AttrValue* find(Symbol key) const;
  /// Index of `key` in entries(), or -1.
  int index_of(Symbol key) const;
  /// The value of a literal payload (exactly one entry, key `value`), or nullptr.
  const AttrValue* literal_value() const;

  std::uint64_t hash() const;
  /// `[k=v, k2=v2]`, or "" for the empty payload.
  std::string to_string() const;
  friend bool operator==(const Attrs&, const Attrs&) = default;

private:
  void normalize();
  std::vector<Attr> entries_;
};

/// Id of an interned payload; 0 is always the empty payload.
using AttrId = std::uint32_t;
inline constexpr AttrId kNoAttrs = 0;

/// Interns payloads: equal payloads get equal ids. Entries never move once interned.
class AttrTable {
public:
  AttrTable();
  AttrId intern(const Attrs& attrs);
  /// The id of `attrs` if it was interned before.
  std::optional<AttrId> find(const Attrs& attrs) const;
  const Attrs& get(AttrId id) const { return entries_[id]; }
  std::size_t size() const { return entries_.size(); }

private:
  std::size_t probe(const Attrs& attrs, std::uint64_t h) const;
  void grow();

  std::deque<Attrs> entries_;
  std::vector<std::uint32_t> slots_; // entry id + 1, 0 = empty
  std::vector<std::uint32_t> hashes_;
};

} // namespace tilesat::egraph
