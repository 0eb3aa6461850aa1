// attribute.cpp: attribute values (kinds, rendering, hashing) and the sorted Attrs list.
#include "tilesat/graph/attribute.h"

#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <bit>
#include <fmt/format.h>
#include <functional>

namespace tilesat {

// AttrKind enumerates the alternatives of AttrValue in the same order.
static_assert(std::variant_size_v<AttrValue> == 8);

AttrKind attr_kind(const AttrValue& v) {
  return static_cast<AttrKind>(v.index());
}

std::string_view attr_kind_name(AttrKind k) {
  switch (k) {
  case AttrKind::Bool:
    return "bool";
  case AttrKind::Int:
    return "int";
  case AttrKind::Float:
    return "float";
  case AttrKind::String:
    return "string";
  case AttrKind::IntList:
    return "int list";
  case AttrKind::FloatList:
    return "float list";
  case AttrKind::DType:
    return "dtype";
  case AttrKind::Opaque:
    return "opaque";
  }
  throw InternalError("attr_kind_name: invalid AttrKind");
}

namespace {

std::string float_str(double d) {
  std::string s = fmt::format("{}", d);
  // Keep floats recognizable as floats: 1 -> 1.0.
  if (s.find_first_not_of("-0123456789") == std::string::npos) s += ".0";
  return s;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

size_t hash_double(double d) {
  if (d == 0.0) d = 0.0; // -0.0 == 0.0, so they must hash alike
  return std::hash<uint64_t>{}(std::bit_cast<uint64_t>(d));
}

size_t combine(size_t seed, size_t h) {
  return seed ^ (h + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

struct ValueStr {
  std::string operator()(bool b) const { return b ? "true" : "false"; }
  std::string operator()(int64_t i) const { return std::to_string(i); }
  std::string operator()(double d) const { return float_str(d); }
  std::string operator()(const std::string& s) const { return quoted(s); }
  std::string operator()(const std::vector<int64_t>& v) const {
    return fmt::format("[{}]", fmt::join(v, ", "));
  }
  std::string operator()(const std::vector<double>& v) const {
    std::string out = "[";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + float_str(v[i]);
    return out + "]";
  }
  std::string operator()(DType t) const { return std::string(dtype_name(t)); }
  std::string operator()(const OpaqueAttr& o) const { return o.text; }
};

struct ValueHash {
  size_t operator()(bool b) const { return std::hash<bool>{}(b); }
  size_t operator()(int64_t i) const { return std::hash<int64_t>{}(i); }
  size_t operator()(double d) const { return hash_double(d); }
  size_t operator()(const std::string& s) const { return std::hash<std::string>{}(s); }
  size_t operator()(const std::vector<int64_t>& v) const {
    size_t h = v.size();
    for (int64_t x : v) h = combine(h, std::hash<int64_t>{}(x));
    return h;
  }
  size_t operator()(const std::vector<double>& v) const {
    size_t h = v.size();
    for (double x : v) h = combine(h, hash_double(x));
    return h;
  }
  size_t operator()(DType t) const { return std::hash<int>{}(static_cast<int>(t)); }
  size_t operator()(const OpaqueAttr& o) const { return std::hash<std::string>{}(o.text); }
};

} // namespace

std::string attr_value_str(const AttrValue& v) {
  return std::visit(ValueStr{}, v);
}

size_t hash_attr_value(const AttrValue& v) {
  return combine(v.index(), std::visit(ValueHash{}, v));
}

const AttrValue* Attrs::find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.first < n; });
  if (it == entries_.end() || it->first != name) return nullptr;
  return &it->second;
}

void Attrs::set(std::string name, AttrValue value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, const std::string& n) { return e.first < n; });
  if (it != entries_.end() && it->first == name) {
    it->second = std::move(value);
    return;
  }
  entries_.emplace(it, std::move(name), std::move(value));
}

bool Attrs::erase(std::string_view name) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.first < n; });
  if (it == entries_.end() || it->first != name) return false;
  entries_.erase(it);
  return true;
}

size_t Attrs::hash() const {
  size_t h = entries_.size();
  for (const auto& [name, value] : entries_) {
    h = combine(h, std::hash<std::string>{}(name));
    h = combine(h, hash_attr_value(value));
  }
  return h;
}

void Attrs::throw_bad_attr(std::string_view name, const AttrValue* found, AttrKind expected) {
  if (found == nullptr) {
    throw Error(
        fmt::format("expected attribute '{}' ({}), got none", name, attr_kind_name(expected)));
  }
  throw Error(fmt::format("expected attribute '{}' to be {}, got {} {}", name,
                          attr_kind_name(expected), attr_kind_name(attr_kind(*found)),
                          attr_value_str(*found)));
}

} // namespace tilesat
