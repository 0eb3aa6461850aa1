// The parser's view of the token stream: one current token, bounded lookahead, and the
// "expected X, got Y" diagnostics every parse error uses.
#pragma once

#include "text/lexer.h"

#include <fmt/format.h>
#include <string>
#include <string_view>

namespace tilesat::text {

class Cursor {
public:
  /// Nesting beyond this (lists in lists in dense<...>) is rejected instead of recursing on.
  static constexpr int kMaxDepth = 64;

  Cursor(std::string_view source, std::string file) : lex_(source, std::move(file)) {
    tok_ = lex_.next();
  }

  const Token& tok() const { return tok_; }
  bool is(Tok k) const { return tok_.kind == k; }
  bool is_word(std::string_view w) const { return tok_.kind == Tok::BareId && tok_.text == w; }
  /// The token after the current one (lexed and thrown away: lookahead is bounded to one).
  Token peek() {
    size_t saved = lex_.position();
    Token t = lex_.next();
    lex_.reset_to(saved);
    return t;
  }
  /// True when the next token starts right where the current one ends (`#a<` vs `#a <`).
  bool next_is_adjacent(Tok k) {
    Token t = peek();
    return t.kind == k && t.offset == tok_.offset + tok_.text.size();
  }

  Token take() {
    Token t = tok_;
    tok_ = lex_.next();
    return t;
  }
  bool accept(Tok k) {
    if (!is(k)) return false;
    take();
    return true;
  }
  bool accept_word(std::string_view w) {
    if (!is_word(w)) return false;
    take();
    return true;
  }
  Token expect(Tok k, std::string_view what) {
    if (!is(k)) expected(what);
    return take();
  }
  void expect_word(std::string_view w) {
    if (!is_word(w)) expected(fmt::format("'{}'", w));
    take();
  }

  [[noreturn]] void expected(std::string_view what) const {
    lex_.fail(tok_.offset, fmt::format("expected {}, got {}", what, describe(tok_)));
  }
  [[noreturn]] void fail(std::string message) const { lex_.fail(tok_.offset, std::move(message)); }
  [[noreturn]] void fail_at(const Token& t, std::string message) const {
    lex_.fail(t.offset, std::move(message));
  }

  SourceLoc loc() const { return lex_.loc(tok_.offset); }
  SourceLoc loc_of(const Token& t) const { return lex_.loc(t.offset); }

  /// Current token is `<`: returns the balanced `<...>` text and moves past it.
  std::string_view take_balanced_angle() {
    std::string_view s = lex_.scan_balanced_angle(tok_.offset);
    tok_ = lex_.next();
    return s;
  }
  /// Moves to the token starting at `offset` (the offset of a token read earlier).
  void seek(size_t offset) {
    lex_.reset_to(offset);
    tok_ = lex_.next();
  }
  /// Current token is `(`: returns the balanced `(...)` text and moves past it.
  std::string_view take_balanced_paren() {
    std::string_view s = lex_.scan_balanced_paren(tok_.offset);
    tok_ = lex_.next();
    return s;
  }
  /// Current token is the `<` of `tensor<`: reads the extents `32x128x` that follow it; the
  /// current token becomes the element type.
  std::vector<int64_t> take_dims() {
    lex_.reset_to(tok_.offset + 1);
    std::vector<int64_t> dims = lex_.scan_dims();
    tok_ = lex_.next();
    return dims;
  }

  /// Scoped nesting counter for recursive rules.
  /// Starts at `outer`'s nesting depth: a nested parse of a callee or a loop body counts
  /// toward the same limit.
  void nest_inside(const Cursor& outer) { depth_ = outer.depth_; }

  class Nest {
  public:
    explicit Nest(Cursor& c) : c_(c) {
      if (++c_.depth_ > kMaxDepth) c_.fail(fmt::format("nesting deeper than {} levels", kMaxDepth));
    }
    ~Nest() { --c_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

  private:
    Cursor& c_;
  };

private:
  Lexer lex_;
  Token tok_;
  int depth_ = 0;
};

} // namespace tilesat::text
