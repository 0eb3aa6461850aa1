// Typed op attributes: the compile-time parameters of an op (transpose dims, reduce axes...).
//
// Each op kind declares its attributes (name, kind, default) in the op table (op.h). `Attrs`
// is a small name-sorted list, cheap to copy, compare and hash, so it can also be the
// attribute payload of an e-node. Attributes a tool does not know (for example tt-mlir's
// `operand_constraints`) are kept as `OpaqueAttr` text so they print back unchanged.
//
//   Attrs a;
//   a.set("dim0", int64_t{1});
//   a.get<int64_t>("dim0");        // 1
//   a.get_or<bool>("transpose_b", false);
#pragma once

#include "tilesat/graph/dtype.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace tilesat {

/// An attribute tilesat keeps verbatim (its source text) without interpreting it.
struct OpaqueAttr {
  std::string text;
  friend bool operator==(const OpaqueAttr&, const OpaqueAttr&) = default;
};

enum class AttrKind : uint8_t { Bool, Int, Float, String, IntList, FloatList, DType, Opaque };

using AttrValue = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>,
                               std::vector<double>, DType, OpaqueAttr>;

AttrKind attr_kind(const AttrValue& v);
std::string_view attr_kind_name(AttrKind k);
/// A readable rendering, e.g. `true`, `3`, `[1, 0]`, `bf16` (not the TTIR syntax).
std::string attr_value_str(const AttrValue& v);
size_t hash_attr_value(const AttrValue& v);

class Attrs {
public:
  using Entry = std::pair<std::string, AttrValue>;

  bool has(std::string_view name) const { return find(name) != nullptr; }
  const AttrValue* find(std::string_view name) const;
  /// Sets or replaces `name`.
  void set(std::string name, AttrValue value);
  bool erase(std::string_view name);

  /// The value as T; throws tilesat::Error naming the attribute if absent or of another kind.
  template <class T>
  const T& get(std::string_view name) const;
  template <class T>
  T get_or(std::string_view name, T fallback) const {
    const AttrValue* v = find(name);
    if (v == nullptr) return fallback;
    if (const T* p = std::get_if<T>(v)) return *p;
    return fallback;
  }

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  size_t hash() const;
  friend bool operator==(const Attrs&, const Attrs&) = default;

private:
  [[noreturn]] static void throw_bad_attr(std::string_view name, const AttrValue* found,
                                          AttrKind expected);
  std::vector<Entry> entries_; // sorted by name
};

template <class T>
const T& Attrs::get(std::string_view name) const {
  const AttrValue* v = find(name);
  if (v != nullptr) {
    if (const T* p = std::get_if<T>(v)) return *p;
  }
  throw_bad_attr(name, v, static_cast<AttrKind>(AttrValue(std::in_place_type<T>).index()));
}

} // namespace tilesat
