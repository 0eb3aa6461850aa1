// attr_parser.cpp: attribute values (numbers, lists, array<>, dense<>, aliases) and types.
#include "text/attr_parser.h"

#include <charconv>
#include <cstring>
#include <fmt/format.h>

namespace tilesat::text {
namespace {

/// Largest element count a tensor type may declare (keeps every size computation in range).

bool is_scalar_type_name(std::string_view s) {
  if (s == "index" || s == "bf16" || s == "bfp_bf8" || s == "bfp8_b") return true;
  size_t i = 0;
  if (!s.empty() && (s[0] == 's' || s[0] == 'u')) i = 1;
  if (i < s.size() && (s[i] == 'i' || (i == 0 && s[i] == 'f'))) {
    ++i;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
    }
    return true;
  }
  return false;
}

/// An element type as tilesat holds it: its own types, and the others frontends write read as
/// the nearest (as the ONNX importer reads them): f16 and f64 as f32 (which holds every f16
/// exactly), booleans and integers of other widths as i32.
std::optional<DType> element_dtype(std::string_view s) {
  if (std::optional<DType> d = parse_dtype(s)) return d;
  if (s == "f16" || s == "f64") return DType::F32;
  for (std::string_view i :
       {"i1", "i8", "i16", "i64", "si8", "si16", "si64", "ui8", "ui16", "ui32", "ui64"}) {
    if (s == i) return DType::I32;
  }
  return std::nullopt;
}

int64_t int_value(const Cursor& c, const Token& t) {
  std::string_view s = t.text;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  uint64_t limit = neg ? uint64_t{1} << 63 : (uint64_t{1} << 63) - 1;
  if (ec != std::errc() || ptr != s.data() + s.size() || v > limit) {
    c.fail_at(t, fmt::format("integer {} is out of range", describe(t)));
  }
  return neg ? static_cast<int64_t>(~v + 1) : static_cast<int64_t>(v);
}

double float_value(const Cursor& c, const Token& t) {
  std::string_view s = t.text;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) {
    c.fail_at(t, fmt::format("floating-point number {} is out of range", describe(t)));
  }
  return v;
}

/// A hex integer read as a float's bit pattern (MLIR spells inf/nan this way): 8 hex digits
/// are an f32, 16 an f64.
double hex_float_value(const Cursor& c, const Token& t, int64_t bits) {
  size_t digits = t.text.size() - 2;
  if (digits <= 8) {
    auto b32 = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b32, sizeof f);
    return f;
  }
  if (digits <= 16) {
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  }
  c.fail_at(t, fmt::format("hexadecimal float {} has more than 16 digits", describe(t)));
}

void parse_number_suffix(Cursor& c, ParsedAttr& a, TypedValue typed) {
  if (typed == TypedValue::Forbidden || !c.is(Tok::Colon)) return;
  Token next = c.peek();
  if (next.kind != Tok::BareId || !is_scalar_type_name(next.text)) return;
  c.take();
  a.suffix = std::string(c.take().text);
}

ParsedAttr parse_number(Cursor& c, TypedValue typed) {
  ParsedAttr a;
  a.loc = c.loc();
  Token t = c.take();
  a.spelling = std::string(t.text);
  if (t.kind == Tok::Integer) {
    a.kind = ParsedAttr::Kind::Int;
    a.i = int_value(c, t);
    a.f = static_cast<double>(a.i);
    bool hex = t.text.find_first_of("xX") != std::string_view::npos;
    parse_number_suffix(c, a, typed);
    if (hex && (a.suffix.empty() || a.suffix[0] == 'f' || a.suffix == "bf16")) {
      a.f = hex_float_value(c, t, a.i);
    }
  } else {
    a.kind = ParsedAttr::Kind::Float;
    a.f = float_value(c, t);
    parse_number_suffix(c, a, typed);
  }
  return a;
}

ParsedAttr parse_list(Cursor& c) {
  ParsedAttr a;
  a.kind = ParsedAttr::Kind::List;
  a.loc = c.loc();
  c.expect(Tok::LSquare, "'['");
  if (c.accept(Tok::RSquare)) return a;
  do {
    a.elems.push_back(parse_attr(c, TypedValue::Allowed));
  } while (c.accept(Tok::Comma));
  c.expect(Tok::RSquare, "']'");
  return a;
}

ParsedAttr parse_array(Cursor& c, SourceLoc loc) {
  // array<i64: 1, 2> / array<i32>
  ParsedAttr a;
  a.kind = ParsedAttr::Kind::Array;
  a.loc = std::move(loc);
  c.expect(Tok::Less, "'<'");
  Token elem = c.expect(Tok::BareId, "an element type");
  a.text = std::string(elem.text);
  if (c.accept(Tok::Colon)) {
    do {
      if (!c.is(Tok::Integer) && !c.is(Tok::Float)) c.expected("a number");
      a.elems.push_back(parse_number(c, TypedValue::Forbidden));
    } while (c.accept(Tok::Comma));
  }
  c.expect(Tok::Greater, "'>'");
  return a;
}

ParsedAttr parse_dense(Cursor& c, SourceLoc loc, TypedValue typed) {
  ParsedAttr a;
  a.kind = ParsedAttr::Kind::Dense;
  a.loc = std::move(loc);
  c.expect(Tok::Less, "'<'");
  a.elems.push_back(parse_attr(c, TypedValue::Forbidden));
  c.expect(Tok::Greater, "'>'");
  if (typed == TypedValue::Allowed && c.is(Tok::Colon)) {
    Token next = c.peek();
    if (next.kind == Tok::BareId && (next.text == "tensor" || is_scalar_type_name(next.text))) {
      c.take();
      a.type = parse_type(c);
    }
  }
  return a;
}

/// `#name`, `#dialect.attr<...>`, `!type<...>`, `@sym`, `word<...>`: kept as text.
ParsedAttr parse_opaque_ref(Cursor& c) {
  ParsedAttr a;
  a.kind = ParsedAttr::Kind::Alias;
  a.loc = c.loc();
  bool angle = c.next_is_adjacent(Tok::Less);
  a.spelling = std::string(c.take().text);
  if (angle) a.spelling += c.take_balanced_angle();
  a.text = a.spelling;
  return a;
}

} // namespace

bool at_type(const Cursor& c) {
  return c.is(Tok::BareId) && (c.tok().text == "tensor" || is_scalar_type_name(c.tok().text));
}

TensorType parse_type(Cursor& c, std::string* element) {
  if (!c.is(Tok::BareId)) c.expected("a type");
  Token start = c.tok();
  TensorType t;
  bool tensor = c.tok().text == "tensor";
  std::vector<int64_t> dims;
  if (tensor) {
    c.take();
    if (!c.is(Tok::Less)) c.expected("'<'");
    dims = c.take_dims();
  }
  Token elem = c.tok();
  if (elem.kind != Tok::BareId) c.expected("an element type");
  std::optional<DType> dt = element_dtype(elem.text);
  if (!dt) {
    c.fail(fmt::format("unknown element type {} (expected f32, bf16, f16, f64, bfp_bf8, or an "
                       "integer type from i1 to i64)",
                       describe(elem)));
  }
  c.take();
  if (element != nullptr) *element = std::string(elem.text);
  t.dtype = *dt;
  if (!Shape::checked_numel(dims)) c.fail_at(start, "tensor type has more than 2^40 elements");
  t.shape = Shape(std::move(dims));
  if (!tensor) return t;
  if (c.accept(Tok::Comma)) t.encoding = render_attr(parse_attr(c, TypedValue::Forbidden));
  c.expect(Tok::Greater, "'>'");
  return t;
}

ParsedAttr parse_attr(Cursor& c, TypedValue typed) {
  Cursor::Nest nest(c);
  const Token& t = c.tok();
  switch (t.kind) {
  case Tok::Integer:
  case Tok::Float:
    return parse_number(c, typed);
  case Tok::LSquare: {
    ParsedAttr list = parse_list(c);
    // StableHLO's `contracting_dims = [1] x [0]`.
    if (c.is_word("x") && c.peek().kind == Tok::LSquare) {
      c.take();
      ParsedAttr pair;
      pair.kind = ParsedAttr::Kind::Pair;
      pair.loc = list.loc;
      pair.elems.push_back(std::move(list));
      pair.elems.push_back(parse_list(c));
      // stablehlo.convolution's `dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`.
      if (c.is(Tok::Arrow) && c.peek().kind == Tok::LSquare) {
        c.take();
        pair.elems.push_back(parse_list(c));
      }
      return pair;
    }
    return list;
  }
  case Tok::LBrace: {
    ParsedAttr a;
    a.kind = ParsedAttr::Kind::Dict;
    a.loc = c.loc();
    for (auto& [k, v] : parse_attr_dict(c)) {
      v.key = std::move(k);
      a.elems.push_back(std::move(v));
    }
    return a;
  }
  case Tok::String: {
    ParsedAttr a;
    a.kind = ParsedAttr::Kind::String;
    a.loc = c.loc();
    a.spelling = std::string(c.take().text);
    a.text = a.spelling.substr(1, a.spelling.size() - 2);
    return a;
  }
  case Tok::HashId:
  case Tok::BangId:
  case Tok::AtId:
    return parse_opaque_ref(c);
  case Tok::BareId:
    break;
  default:
    c.expected("an attribute value");
  }
  SourceLoc loc = c.loc();
  std::string_view word = t.text;
  if (word == "true" || word == "false") {
    ParsedAttr a;
    a.kind = ParsedAttr::Kind::Bool;
    a.loc = loc;
    a.b = word == "true";
    a.spelling = std::string(word);
    c.take();
    return a;
  }
  if (word == "tensor") {
    ParsedAttr a;
    a.kind = ParsedAttr::Kind::Type;
    a.loc = loc;
    a.type = parse_type(c);
    return a;
  }
  if ((word == "dense" || word == "array") && c.next_is_adjacent(Tok::Less)) {
    c.take();
    return word == "dense" ? parse_dense(c, loc, typed) : parse_array(c, loc);
  }
  if (c.next_is_adjacent(Tok::Less)) return parse_opaque_ref(c); // affine_map<...> and kin
  ParsedAttr a;
  a.kind = ParsedAttr::Kind::Keyword;
  a.loc = loc;
  a.text = std::string(word);
  a.spelling = a.text;
  c.take();
  if (a.text == "loc" && c.is(Tok::LParen)) a.spelling += c.take_balanced_paren();
  return a;
}

std::vector<NamedAttr> parse_attr_entries(Cursor& c, Tok close, std::string_view close_text) {
  std::vector<NamedAttr> out;
  if (c.accept(close)) return out;
  do {
    std::string key;
    if (c.is(Tok::BareId)) {
      key = std::string(c.take().text);
    } else if (c.is(Tok::String)) {
      std::string_view s = c.take().text;
      key = std::string(s.substr(1, s.size() - 2));
    } else {
      c.expected("an attribute name");
    }
    for (const auto& [k, v] : out) {
      if (k == key) c.fail(fmt::format("attribute '{}' is given twice", key));
    }
    if (c.accept(Tok::Equal)) {
      out.emplace_back(std::move(key), parse_attr(c, TypedValue::Allowed));
    } else {
      ParsedAttr unit;
      unit.kind = ParsedAttr::Kind::Keyword;
      unit.loc = c.loc();
      unit.text = "unit"; // `{foo}` means `{foo = unit}`, and prints so
      unit.spelling = "unit";
      out.emplace_back(std::move(key), std::move(unit));
    }
  } while (c.accept(Tok::Comma));
  c.expect(close, close_text);
  return out;
}

std::vector<NamedAttr> parse_attr_dict(Cursor& c) {
  Cursor::Nest nest(c);
  c.expect(Tok::LBrace, "'{'");
  return parse_attr_entries(c, Tok::RBrace, "'}'");
}

namespace {

std::string render_list(const std::vector<ParsedAttr>& elems) {
  std::string out;
  for (size_t i = 0; i < elems.size(); ++i) {
    if (i > 0) out += ", ";
    out += render_attr(elems[i]);
  }
  return out;
}

} // namespace

std::string render_attr(const ParsedAttr& a) {
  using K = ParsedAttr::Kind;
  switch (a.kind) {
  case K::Int:
  case K::Float:
    return a.suffix.empty() ? a.spelling : a.spelling + " : " + a.suffix;
  case K::Bool:
    return a.b ? "true" : "false";
  case K::String:
  case K::Keyword:
  case K::Alias:
    return a.spelling;
  case K::List:
    return "[" + render_list(a.elems) + "]";
  case K::Array:
    return a.elems.empty() ? "array<" + a.text + ">"
                           : "array<" + a.text + ": " + render_list(a.elems) + ">";
  case K::Dense: {
    std::string out = "dense<" + render_list(a.elems) + ">";
    if (a.type) out += " : " + a.type->str();
    return out;
  }
  case K::Dict: {
    std::string out = "{";
    for (size_t i = 0; i < a.elems.size(); ++i) {
      if (i > 0) out += ", ";
      const ParsedAttr& v = a.elems[i];
      out += v.key + " = " + render_attr(v);
    }
    return out + "}";
  }
  case K::Type:
    return a.type ? a.type->str() : "";
  case K::Pair:
    return render_attr(a.elems.at(0)) + " x " + render_attr(a.elems.at(1)) +
           (a.elems.size() > 2 ? " -> " + render_attr(a.elems[2]) : "");
  }
  return "";
}

} // namespace tilesat::text
