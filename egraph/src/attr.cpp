// Attribute values, payloads and the payload interning table.
#include "tilesat/egraph/attr.h"

#include "tilesat/egraph/hash.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace tilesat::egraph {

using detail::hash_mix;

// ------------------------------------------------------------------ Rational

std::optional<Rational> Rational::make(std::int64_t num, std::int64_t den) {
  if (den == 0 || num == INT64_MIN || den == INT64_MIN) return std::nullopt;
  if (den < 0) {
    num = -num;
    den = -den;
  }
  std::int64_t g = std::gcd(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  return Rational{num, den};
}

std::optional<Rational> checked_add(Rational a, Rational b) {
  std::int64_t x = 0, y = 0, n = 0, d = 0;
  if (__builtin_mul_overflow(a.num, b.den, &x) || __builtin_mul_overflow(b.num, a.den, &y) ||
      __builtin_add_overflow(x, y, &n) || __builtin_mul_overflow(a.den, b.den, &d))
    return std::nullopt;
  return Rational::make(n, d);
}

std::optional<Rational> checked_sub(Rational a, Rational b) {
  if (b.num == INT64_MIN) return std::nullopt;
  return checked_add(a, Rational{-b.num, b.den});
}

std::optional<Rational> checked_mul(Rational a, Rational b) {
  std::int64_t n = 0, d = 0;
  if (__builtin_mul_overflow(a.num, b.num, &n) || __builtin_mul_overflow(a.den, b.den, &d))
    return std::nullopt;
  return Rational::make(n, d);
}

std::optional<Rational> checked_div(Rational a, Rational b) {
  if (b.num == 0) return std::nullopt;
  std::int64_t n = 0, d = 0;
  if (__builtin_mul_overflow(a.num, b.den, &n) || __builtin_mul_overflow(a.den, b.num, &d))
    return std::nullopt;
  return Rational::make(n, d);
}

// ------------------------------------------------------------------ AttrValue

AttrValue::AttrValue(Rational r) {
  if (r.den == 1)
    v_ = r.num;
  else
    v_ = r;
}

Rational AttrValue::as_rational() const {
  if (kind() == Kind::kInt) return Rational{as_int(), 1};
  return std::get<Rational>(v_);
}

std::uint64_t AttrValue::hash() const {
  std::uint64_t h = hash_mix(0, v_.index());
  switch (kind()) {
  case Kind::kInt:
    return hash_mix(h, static_cast<std::uint64_t>(as_int()));
  case Kind::kRational: {
    Rational r = std::get<Rational>(v_);
    return hash_mix(hash_mix(h, static_cast<std::uint64_t>(r.num)),
                    static_cast<std::uint64_t>(r.den));
  }
  case Kind::kDouble: {
    double d = as_double();
    if (d == 0.0) d = 0.0; // -0.0 == 0.0 must hash alike
    return hash_mix(h, std::bit_cast<std::uint64_t>(d));
  }
  case Kind::kBool:
    return hash_mix(h, as_bool() ? 1 : 0);
  case Kind::kString:
    return hash_mix(h, std::hash<std::string>{}(as_string()));
  case Kind::kIntList:
    for (std::int64_t x : as_int_list()) h = hash_mix(h, static_cast<std::uint64_t>(x));
    return hash_mix(h, as_int_list().size());
  }
  return h;
}

namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  out += '"';
  return out;
}

} // namespace

std::string AttrValue::to_string() const {
  switch (kind()) {
  case Kind::kInt:
    return fmt::format("{}", as_int());
  case Kind::kRational: {
    Rational r = std::get<Rational>(v_);
    return fmt::format("{}/{}", r.num, r.den);
  }
  case Kind::kDouble: {
    std::string s = fmt::format("{}", as_double());
    if (std::isfinite(as_double()) && s.find_first_of(".e") == std::string::npos) s += ".0";
    return s;
  }
  case Kind::kBool:
    return as_bool() ? "true" : "false";
  case Kind::kString:
    return quote(as_string());
  case Kind::kIntList:
    return fmt::format("[{}]", fmt::join(as_int_list(), ", "));
  }
  return {};
}

// ------------------------------------------------------------------ Attrs

Attrs::Attrs(std::initializer_list<Attr> entries) : entries_(entries) {
  normalize();
}
Attrs::Attrs(std::vector<Attr> entries) : entries_(std::move(entries)) {
  normalize();
}

Attrs Attrs::literal(AttrValue v) {
  static const Symbol key = Symbol::intern("value");
  Attrs a;
  a.entries_.push_back(Attr{key, std::move(v)});
  return a;
}

void Attrs::normalize() {
  std::stable_sort(entries_.begin(), entries_.end(),
                   [](const Attr& a, const Attr& b) { return a.key < b.key; });
  // Keep the last of equal keys.
  std::vector<Attr> out;
  out.reserve(entries_.size());
  for (auto& e : entries_) {
    if (!out.empty() && out.back().key == e.key)
      out.back() = std::move(e);
    else
      out.push_back(std::move(e));
  }
  entries_ = std::move(out);
}

const AttrValue* Attrs::find(Symbol key) const {
  for (const Attr& a : entries_)
    if (a.key == key) return &a.value;
  return nullptr;
}

int Attrs::index_of(Symbol key) const {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].key == key) return static_cast<int>(i);
  return -1;
}

const AttrValue* Attrs::literal_value() const {
  static const Symbol key = Symbol::intern("value");
  if (entries_.size() != 1 || entries_[0].key != key) return nullptr;
  return &entries_[0].value;
}

std::uint64_t Attrs::hash() const {
  std::uint64_t h = entries_.size();
  for (const Attr& a : entries_) h = hash_mix(hash_mix(h, a.key.id()), a.value.hash());
  return detail::hash_finish(h);
}

std::string Attrs::to_string() const {
  if (entries_.empty()) return {};
  std::string out = "[";
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    if (i != 0) out += ", ";
    out += entries_[i].key.str();
    out += '=';
    out += entries_[i].value.to_string();
  }
  out += ']';
  return out;
}

// ------------------------------------------------------------------ AttrTable

AttrTable::AttrTable() : slots_(16, 0), hashes_(16, 0) {
  entries_.emplace_back();
  std::uint64_t h = entries_[0].hash();
  std::size_t i = probe(entries_[0], h);
  slots_[i] = 1;
  hashes_[i] = static_cast<std::uint32_t>(h);
}

std::size_t AttrTable::probe(const Attrs& attrs, std::uint64_t h) const {
  std::size_t mask = slots_.size() - 1;
  auto h32 = static_cast<std::uint32_t>(h);
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    if (slots_[i] == 0) return i;
    if (hashes_[i] == h32 && entries_[slots_[i] - 1] == attrs) return i;
  }
}

std::optional<AttrId> AttrTable::find(const Attrs& attrs) const {
  if (attrs.empty()) return kNoAttrs;
  std::size_t i = probe(attrs, attrs.hash());
  if (slots_[i] == 0) return std::nullopt;
  return slots_[i] - 1;
}

AttrId AttrTable::intern(const Attrs& attrs) {
  if (attrs.empty()) return kNoAttrs;
  std::uint64_t h = attrs.hash();
  std::size_t i = probe(attrs, h);
  if (slots_[i] != 0) return slots_[i] - 1;
  auto id = static_cast<AttrId>(entries_.size());
  entries_.push_back(attrs);
  slots_[i] = id + 1;
  hashes_[i] = static_cast<std::uint32_t>(h);
  if (entries_.size() * 2 > slots_.size()) grow();
  return id;
}

void AttrTable::grow() {
  std::vector<std::uint32_t> old_slots = std::move(slots_);
  std::vector<std::uint32_t> old_hashes = std::move(hashes_);
  slots_.assign(old_slots.size() * 2, 0);
  hashes_.assign(old_slots.size() * 2, 0);
  std::size_t mask = slots_.size() - 1;
  for (std::size_t j = 0; j < old_slots.size(); ++j) {
    if (old_slots[j] == 0) continue;
    std::uint64_t h = entries_[old_slots[j] - 1].hash();
    std::size_t i = h & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = old_slots[j];
    hashes_[i] = static_cast<std::uint32_t>(h);
  }
}

} // namespace tilesat::egraph
