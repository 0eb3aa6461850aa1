// lexer.cpp: tokens of MLIR-style text, with offsets mapped to line:col.
#include "text/lexer.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <fmt/format.h>

namespace tilesat::text {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_id_start(char c) {
  return is_letter(c) || c == '_';
}
bool is_id_char(char c) {
  return is_letter(c) || is_digit(c) || c == '_' || c == '$' || c == '.';
}
// Suffixes of %values may also contain '-' (MLIR allows it) and start with a digit.
bool is_value_char(char c) {
  return is_id_char(c) || c == '-';
}

std::string printable(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return fmt::format("'{}'", c);
  return fmt::format("byte 0x{:02x}", u);
}

} // namespace

std::string describe(const Token& t) {
  if (t.kind == Tok::Eof) return "end of file";
  std::string_view text = t.text;
  if (text.size() > 40) return fmt::format("'{}...'", text.substr(0, 40));
  return fmt::format("'{}'", text);
}

Lexer::Lexer(std::string_view source, std::string file) : src_(source), file_(std::move(file)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < src_.size(); ++i) {
    if (src_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

SourceLoc Lexer::loc(size_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  size_t start = line_starts_[line - 1];
  return SourceLoc{file_, static_cast<int>(line), static_cast<int>(offset - start + 1)};
}

void Lexer::fail(size_t offset, std::string message) const {
  throw Error(loc(offset), std::move(message));
}

void Lexer::skip_blanks() {
  while (pos_ < src_.size()) {
    char c = src_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
    } else {
      return;
    }
  }
}

Token Lexer::next() {
  skip_blanks();
  size_t start = pos_;
  auto make = [&](Tok kind) { return Token{kind, src_.substr(start, pos_ - start), start}; };
  if (pos_ >= src_.size()) return Token{Tok::Eof, {}, start};
  char c = src_[pos_];
  auto at = [&](size_t i) { return i < src_.size() ? src_[i] : '\0'; };

  switch (c) {
  case '(':
    ++pos_;
    return make(Tok::LParen);
  case ')':
    ++pos_;
    return make(Tok::RParen);
  case '{':
    ++pos_;
    return make(Tok::LBrace);
  case '}':
    ++pos_;
    return make(Tok::RBrace);
  case '[':
    ++pos_;
    return make(Tok::LSquare);
  case ']':
    ++pos_;
    return make(Tok::RSquare);
  case '<':
    ++pos_;
    return make(Tok::Less);
  case '>':
    ++pos_;
    return make(Tok::Greater);
  case ',':
    ++pos_;
    return make(Tok::Comma);
  case ':':
    ++pos_;
    return make(Tok::Colon);
  case '=':
    ++pos_;
    return make(Tok::Equal);
  case '?':
    ++pos_;
    return make(Tok::Question);
  case '*':
    ++pos_;
    return make(Tok::Star);
  default:
    break;
  }
  if (c == '-' && at(pos_ + 1) == '>') {
    pos_ += 2;
    return make(Tok::Arrow);
  }
  if (c == '"') {
    ++pos_;
    while (pos_ < src_.size() && src_[pos_] != '"') {
      if (src_[pos_] == '\n') fail(start, "unterminated string");
      if (src_[pos_] == '\\') ++pos_;
      ++pos_;
    }
    if (pos_ >= src_.size()) fail(start, "unterminated string");
    ++pos_;
    return make(Tok::String);
  }
  if (c == '%' || c == '@' || c == '#' || c == '!' || c == '^') {
    ++pos_;
    if (c == '@' && at(pos_) == '"') {
      // @"quoted symbol"
      ++pos_;
      while (pos_ < src_.size() && src_[pos_] != '"' && src_[pos_] != '\n') ++pos_;
      if (at(pos_) != '"') fail(start, "unterminated string");
      ++pos_;
      return make(Tok::AtId);
    }
    bool value = c == '%';
    while (pos_ < src_.size() && (value ? is_value_char(src_[pos_]) : is_id_char(src_[pos_]))) {
      ++pos_;
    }
    if (pos_ == start + 1) fail(start, fmt::format("expected a name after '{}'", c));
    // One result of an op with several: `%r#1`.
    if (value && at(pos_) == '#' && is_digit(at(pos_ + 1))) {
      pos_ += 2;
      while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    }
    Tok kind = c == '%'   ? Tok::PercentId
               : c == '@' ? Tok::AtId
               : c == '#' ? Tok::HashId
               : c == '!' ? Tok::BangId
                          : Tok::CaretId;
    return make(kind);
  }
  if (is_digit(c) || ((c == '-' || c == '+') && is_digit(at(pos_ + 1)))) {
    if (c == '-' || c == '+') ++pos_;
    if (src_[pos_] == '0' && (at(pos_ + 1) == 'x' || at(pos_ + 1) == 'X') && is_hex(at(pos_ + 2))) {
      pos_ += 2;
      while (pos_ < src_.size() && is_hex(src_[pos_])) ++pos_;
      return make(Tok::Integer);
    }
    while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    bool is_float = false;
    if (at(pos_) == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    }
    if ((at(pos_) == 'e' || at(pos_) == 'E') &&
        (is_digit(at(pos_ + 1)) ||
         ((at(pos_ + 1) == '+' || at(pos_ + 1) == '-') && is_digit(at(pos_ + 2))))) {
      is_float = true;
      pos_ += 2;
      while (pos_ < src_.size() && is_digit(src_[pos_])) ++pos_;
    }
    return make(is_float ? Tok::Float : Tok::Integer);
  }
  if (is_id_start(c)) {
    while (pos_ < src_.size() && is_id_char(src_[pos_])) ++pos_;
    return make(Tok::BareId);
  }
  fail(start, fmt::format("unexpected character {}", printable(c)));
}

std::string_view Lexer::scan_balanced(size_t open, char open_ch, char close_ch) {
  // Only the bracket kind that opened the span is counted; strings are skipped, and so is
  // the '>' of an arrow `->` inside affine maps such as `(d0, d1) -> (d0, d1)`.
  int depth = 0;
  size_t i = open;
  while (i < src_.size()) {
    char c = src_[i];
    if (c == '"') {
      ++i;
      while (i < src_.size() && src_[i] != '"') {
        if (src_[i] == '\\') ++i;
        ++i;
      }
      if (i >= src_.size()) break;
    } else if (c == '-' && i + 1 < src_.size() && src_[i + 1] == '>') {
      ++i;
    } else if (c == open_ch) {
      ++depth;
    } else if (c == close_ch) {
      if (--depth == 0) {
        pos_ = i + 1;
        return src_.substr(open, i + 1 - open);
      }
    }
    ++i;
  }
  fail(open, fmt::format("unterminated '{}'", open_ch));
}

std::string_view Lexer::scan_balanced_angle(size_t open) {
  return scan_balanced(open, '<', '>');
}
std::string_view Lexer::scan_balanced_paren(size_t open) {
  return scan_balanced(open, '(', ')');
}

std::vector<int64_t> Lexer::scan_dims() {
  std::vector<int64_t> dims;
  skip_blanks();
  while (pos_ < src_.size()) {
    size_t start = pos_;
    if (src_[pos_] == '?') fail(start, "dynamic dimension '?' is not supported");
    size_t end = pos_;
    while (end < src_.size() && is_digit(src_[end])) ++end;
    if (end == pos_ || end >= src_.size() || src_[end] != 'x') return dims;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(src_.data() + pos_, src_.data() + end, v);
    if (ec != std::errc() || ptr != src_.data() + end) {
      fail(start, fmt::format("dimension '{}' is out of range", src_.substr(pos_, end - pos_)));
    }
    dims.push_back(v);
    pos_ = end + 1;
  }
  return dims;
}

} // namespace tilesat::text
