// payload.cpp: graph attributes <-> e-node payloads, in the canonical "all declared, with
// defaults" form.
#include "tilesat/rewrites/payload.h"

#include "tilesat/graph/diagnostic.h"

#include <array>
#include <charconv>
#include <fmt/format.h>

namespace tilesat::rewrites {
namespace {

// Opaque attributes are kept as text with this prefix, so they never equal a string attribute.
constexpr std::string_view kOpaquePrefix = "#opaque:";

struct SymbolTable {
  std::array<egraph::Symbol, kNumOpKinds> symbols;
  std::vector<int> kind_of_symbol; // symbol id -> op kind index, -1 when none
  SymbolTable() {
    for (OpKind k : all_op_kinds()) {
      egraph::Symbol s = egraph::Symbol::intern(op_name(k));
      symbols[static_cast<size_t>(k)] = s;
      if (kind_of_symbol.size() <= s.id()) kind_of_symbol.resize(s.id() + 1, -1);
      kind_of_symbol[s.id()] = static_cast<int>(k);
    }
  }
};

const SymbolTable& symbol_table() {
  static const SymbolTable t;
  return t;
}

std::string float_list_text(const std::vector<double>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ",";
    out += fmt::format("{}", v[i]); // fmt prints the shortest text that reads back exactly
  }
  return out;
}

std::vector<double> parse_float_list(std::string_view s) {
  std::vector<double> out;
  size_t pos = 0;
  while (pos < s.size()) {
    size_t end = s.find(',', pos);
    if (end == std::string_view::npos) end = s.size();
    double d = 0;
    std::string_view item = s.substr(pos, end - pos);
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), d);
    if (ec != std::errc() || p != item.data() + item.size()) {
      // Non-finite values print as inf/nan, which from_chars reads too; anything else is a bug.
      throw InternalError(fmt::format("payload: bad float list element '{}'", item));
    }
    out.push_back(d);
    pos = end + 1;
  }
  return out;
}

} // namespace

egraph::Symbol op_symbol(OpKind kind) {
  return symbol_table().symbols[static_cast<size_t>(kind)];
}

std::optional<OpKind> op_of(egraph::Symbol op) {
  const auto& t = symbol_table().kind_of_symbol;
  if (op.id() >= t.size() || t[op.id()] < 0) return std::nullopt;
  return static_cast<OpKind>(t[op.id()]);
}

egraph::AttrValue to_egraph_value(const AttrValue& v) {
  return std::visit(
      [](const auto& x) -> egraph::AttrValue {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int64_t> ||
                      std::is_same_v<T, double> || std::is_same_v<T, std::string>) {
          return egraph::AttrValue(x);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          return egraph::AttrValue(x);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          return egraph::AttrValue(float_list_text(x));
        } else if constexpr (std::is_same_v<T, DType>) {
          return egraph::AttrValue(std::string(dtype_name(x)));
        } else {
          return egraph::AttrValue(std::string(kOpaquePrefix) + x.text);
        }
      },
      v);
}

AttrValue from_egraph_value(const egraph::AttrValue& v, AttrKind kind, std::string_view key) {
  using K = egraph::AttrValue::Kind;
  auto bad = [&]() -> AttrValue {
    throw InternalError(fmt::format("payload: attribute '{}' holds {}, expected {}", key,
                                    v.to_string(), attr_kind_name(kind)));
  };
  switch (kind) {
  case AttrKind::Bool:
    return v.kind() == K::kBool ? AttrValue(v.as_bool()) : bad();
  case AttrKind::Int:
    return v.kind() == K::kInt ? AttrValue(v.as_int()) : bad();
  case AttrKind::Float:
    if (v.kind() == K::kDouble) return AttrValue(v.as_double());
    if (v.kind() == K::kInt) return AttrValue(static_cast<double>(v.as_int()));
    if (v.kind() == K::kRational) {
      egraph::Rational r = v.as_rational();
      return AttrValue(static_cast<double>(r.num) / static_cast<double>(r.den));
    }
    return bad();
  case AttrKind::String:
    return v.kind() == K::kString ? AttrValue(v.as_string()) : bad();
  case AttrKind::IntList:
    if (v.kind() == K::kInt) return AttrValue(v.as_int()); // a scalar-or-list written as one
    return v.kind() == K::kIntList ? AttrValue(v.as_int_list()) : bad();
  case AttrKind::FloatList:
    return v.kind() == K::kString ? AttrValue(parse_float_list(v.as_string())) : bad();
  case AttrKind::DType: {
    if (v.kind() != K::kString) return bad();
    std::optional<DType> d = parse_dtype(v.as_string());
    return d ? AttrValue(*d) : bad();
  }
  case AttrKind::Opaque: {
    if (v.kind() != K::kString) return bad();
    std::string_view s = v.as_string();
    if (s.starts_with(kOpaquePrefix)) s.remove_prefix(kOpaquePrefix.size());
    return AttrValue(OpaqueAttr{std::string(s)});
  }
  }
  return bad();
}

AttrKind attr_kind_of(OpKind kind, std::string_view key) {
  const AttrSpec* spec = op_info(kind).attr_spec(key);
  return spec != nullptr ? spec->kind : AttrKind::Opaque;
}

egraph::Attrs to_payload(OpKind kind, const Attrs& attrs) {
  const OpInfo& info = op_info(kind);
  Attrs complete = kind == OpKind::Argument ? attrs : complete_attrs(kind, attrs);
  std::vector<egraph::Attr> entries;
  for (const auto& [key, value] : complete.entries()) {
    const AttrSpec* spec = info.attr_spec(key);
    AttrValue v = value;
    if (spec == nullptr && attr_kind(v) != AttrKind::Opaque) {
      // An undeclared attribute is opaque whatever its parsed kind.
      v = OpaqueAttr{attr_value_str(v)};
    }
    entries.push_back({egraph::Symbol::intern(key), to_egraph_value(v)});
  }
  return egraph::Attrs(std::move(entries));
}

Attrs complete_from_payload(OpKind kind, const egraph::Attrs& payload) {
  Attrs out;
  for (const egraph::Attr& a : payload.entries()) {
    std::string_view key = a.key.str();
    out.set(std::string(key), from_egraph_value(a.value, attr_kind_of(kind, key), key));
  }
  return out;
}

Attrs from_payload(OpKind kind, const egraph::Attrs& payload) {
  Attrs out = complete_from_payload(kind, payload);
  for (const AttrSpec& spec : op_info(kind).attrs) {
    const AttrValue* v = out.find(spec.name);
    if (v != nullptr && !spec.kept && spec.default_value && *v == *spec.default_value)
      out.erase(spec.name);
  }
  return out;
}

} // namespace tilesat::rewrites
