// The s-expression reader: tokens, atoms, attribute lists, positions and error messages.
#include "sexpr.h"

#include <charconv>
#include <cstdlib>
#include <fmt/format.h>

namespace tilesat::egraph {

ParseError::ParseError(int line, int col, std::string expected, std::string found)
    : std::runtime_error(fmt::format("{}:{}: expected {}, got {}", line, col, expected, found)),
      line_(line), col_(col), expected_(std::move(expected)), found_(std::move(found)) {}

namespace detail {
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool is_atom_char(char c, bool in_attrs) {
  auto byte = static_cast<unsigned char>(c);
  if (byte < 0x20 || byte == 0x7f || is_blank(c)) return false; // blanks and control characters
  switch (c) {
  case '(':
  case ')':
  case '[':
  case ']':
  case ',':
  case ';':
  case '"':
    return false;
  case '=':
    return !in_attrs;
  default:
    return true;
  }
}

bool looks_numeric(const std::string& s) {
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i >= s.size()) return false;
  if (s[i] >= '0' && s[i] <= '9') return true;
  return s[i] == '.' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9';
}

bool parse_int(std::string_view s, std::int64_t& out) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

} // namespace

void SExprReader::advance() {
  if (text_[pos_] == '\n') {
    ++line_;
    col_ = 1;
  } else {
    ++col_;
  }
  ++pos_;
}

void SExprReader::skip_blanks() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (is_blank(c)) {
      advance();
    } else if (c == ';') {
      while (pos_ < text_.size() && text_[pos_] != '\n') advance();
    } else {
      return;
    }
  }
}

bool SExprReader::at_end() {
  skip_blanks();
  return pos_ >= text_.size();
}

std::string SExprReader::next_token_text() {
  skip_blanks();
  if (pos_ >= text_.size()) return "end of input";
  char c = text_[pos_];
  auto byte = static_cast<unsigned char>(c);
  if (byte < 0x20 || byte == 0x7f) return fmt::format("the control character 0x{:02x}", byte);
  if (!is_atom_char(c, false) && c != '"') return fmt::format("'{}'", c);
  if (c == '=' && (pos_ + 1 >= text_.size() || text_[pos_ + 1] != '>')) return "'='";
  std::size_t end = pos_ + 1;
  while (end < text_.size() && is_atom_char(text_[end], false)) ++end;
  return fmt::format("'{}'", text_.substr(pos_, end - pos_));
}

void SExprReader::fail(std::string_view what) {
  std::string found = next_token_text();
  throw ParseError(line_, col_, std::string(what), found);
}

bool SExprReader::try_consume(std::string_view token) {
  skip_blanks();
  if (text_.substr(pos_, token.size()) != token) return false;
  std::size_t end = pos_ + token.size();
  if (end < text_.size() && is_atom_char(text_[end], false)) return false;
  for (std::size_t i = 0; i < token.size(); ++i) advance();
  return true;
}

void SExprReader::expect_end() {
  if (!at_end()) fail("end of input");
}

std::string SExprReader::read_atom(bool in_attrs) {
  std::size_t start = pos_;
  while (pos_ < text_.size() && is_atom_char(text_[pos_], in_attrs)) advance();
  return std::string(text_.substr(start, pos_ - start));
}

std::string SExprReader::read_string() {
  int line = line_, col = col_;
  advance(); // opening quote
  std::string out;
  while (true) {
    if (pos_ >= text_.size()) throw ParseError(line, col, "a closing '\"'", "end of input");
    char c = text_[pos_];
    advance();
    if (c == '"') return out;
    if (c == '\\' && pos_ < text_.size()) {
      char e = text_[pos_];
      advance();
      out += e == 'n' ? '\n' : e;
      continue;
    }
    out += c;
  }
}

bool SExprReader::parse_number(const std::string& s, AttrValue& out, int line, int col) {
  if (!looks_numeric(s)) return false;
  if (auto slash = s.find('/'); slash != std::string::npos) {
    std::int64_t n = 0, d = 0;
    if (!parse_int(std::string_view(s).substr(0, slash), n) ||
        !parse_int(std::string_view(s).substr(slash + 1), d))
      throw ParseError(line, col, "a rational number such as -3/4", fmt::format("'{}'", s));
    auto r = Rational::make(n, d);
    if (!r) throw ParseError(line, col, "a non-zero denominator", fmt::format("'{}'", s));
    out = AttrValue(*r);
    return true;
  }
  if (s.find_first_of(".eE") != std::string::npos) {
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size())
      throw ParseError(line, col, "a number", fmt::format("'{}'", s));
    out = AttrValue(d);
    return true;
  }
  std::int64_t v = 0;
  if (!parse_int(s, v)) {
    bool digits = s.find_first_not_of("+-0123456789") == std::string::npos;
    throw ParseError(line, col, digits ? "an integer in the int64 range" : "a number",
                     fmt::format("'{}'", s));
  }
  out = AttrValue(v);
  return true;
}

AttrValue SExprReader::read_attr_value(SAttr& a) {
  skip_blanks();
  int line = line_, col = col_;
  char c = peek();
  if (c == '"') return AttrValue(read_string());
  if (c == '[') {
    advance();
    AttrValue::IntList list;
    skip_blanks();
    if (peek() == ']') {
      advance();
      return AttrValue(std::move(list));
    }
    while (true) {
      skip_blanks();
      int l = line_, k = col_;
      std::string item = read_atom(true);
      std::int64_t v = 0;
      if (item.empty() || !parse_int(item, v))
        throw ParseError(l, k, "an integer", item.empty() ? next_token_text() : "'" + item + "'");
      list.push_back(v);
      skip_blanks();
      if (peek() == ',') {
        advance();
        continue;
      }
      if (peek() == ']') {
        advance();
        return AttrValue(std::move(list));
      }
      fail("',' or ']'");
    }
  }
  std::string atom = read_atom(true);
  if (atom.empty()) throw ParseError(line, col, "an attribute value", next_token_text());
  if (atom[0] == '?') {
    if (atom.size() == 1) throw ParseError(line, col, "a variable name after '?'", "'?'");
    a.is_var = true;
    a.var = atom;
    return {};
  }
  if (atom == "true") return AttrValue(true);
  if (atom == "false") return AttrValue(false);
  AttrValue v;
  if (parse_number(atom, v, line, col)) return v;
  return AttrValue(std::move(atom)); // a bare word is a string value
}

void SExprReader::read_attrs(SExpr& e) {
  advance(); // '['
  e.has_attrs = true;
  skip_blanks();
  if (peek() == ']') {
    advance();
    return;
  }
  while (true) {
    skip_blanks();
    SAttr a;
    a.line = line_;
    a.col = col_;
    a.key = read_atom(true);
    if (a.key.empty()) fail("an attribute name");
    skip_blanks();
    if (peek() == '=') {
      advance();
      a.value = read_attr_value(a);
    } else {
      a.value = AttrValue(true); // `[flag]` means flag=true
    }
    e.attrs.push_back(std::move(a));
    skip_blanks();
    if (peek() == ',') {
      advance();
      continue;
    }
    if (peek() == ']') {
      advance();
      return;
    }
    fail("',' or ']'");
  }
}

SExpr SExprReader::read() {
  skip_blanks();
  SExpr e;
  e.line = line_;
  e.col = col_;
  char c = peek();
  if (pos_ >= text_.size() || c == ')' || c == ']' || c == ',' || c == '[') fail("an expression");
  if (c == '"') {
    e.kind = SExpr::Kind::kLiteral;
    e.literal = AttrValue(read_string());
    return e;
  }
  bool list = c == '(';
  if (list) {
    if (depth_ >= kMaxSExprDepth)
      throw ParseError(line_, col_, fmt::format("lists nested at most {} deep", kMaxSExprDepth),
                       "a deeper '('");
    advance();
    skip_blanks();
    c = peek();
    if (pos_ >= text_.size() || !is_atom_char(c, false)) fail("an operator");
  }
  int line = line_, col = col_;
  std::string atom = read_atom(false);
  if (atom.empty()) fail("an expression");
  if (atom == "=>" || atom == "<=>") throw ParseError(line, col, "an expression", "'" + atom + "'");
  e.line = list ? e.line : line;
  if (atom[0] == '?') {
    if (list) throw ParseError(line, col, "an operator", "'" + atom + "'");
    if (atom.size() == 1) throw ParseError(line, col, "a variable name after '?'", "'?'");
    e.kind = SExpr::Kind::kVar;
    e.name = atom;
    return e;
  }
  AttrValue lit;
  if (atom == "true" || atom == "false" || parse_number(atom, lit, line, col)) {
    if (list) throw ParseError(line, col, "an operator", "'" + atom + "'");
    e.kind = SExpr::Kind::kLiteral;
    e.literal = atom == "true" ? AttrValue(true) : atom == "false" ? AttrValue(false) : lit;
    return e;
  }
  e.kind = SExpr::Kind::kOp;
  e.name = std::move(atom);
  if (peek() == '[') read_attrs(e);
  if (!list) return e;
  while (true) {
    skip_blanks();
    if (pos_ >= text_.size()) fail("')'");
    if (peek() == ')') {
      advance();
      return e;
    }
    ++depth_;
    try {
      e.children.push_back(read());
    } catch (...) {
      --depth_;
      throw;
    }
    --depth_;
  }
}

} // namespace detail
} // namespace tilesat::egraph
