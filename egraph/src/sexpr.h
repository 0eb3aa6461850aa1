// The s-expression reader shared by terms, patterns and rules (private to the module).
//
// It produces a syntax tree with source positions; `term.cpp` and `pattern.cpp` turn that
// into a RecExpr or a Pattern and report semantic errors at the node's position.
#pragma once

#include "tilesat/egraph/attr.h"
#include "tilesat/egraph/error.h"
#include "tilesat/egraph/pattern.h"

#include <string>
#include <string_view>
#include <vector>

namespace tilesat::egraph::detail {

struct SAttr {
  std::string key;
  bool is_var = false;
  std::string var; // "?name" when is_var
  AttrValue value;
  int line = 0;
  int col = 0;
};

struct SExpr {
  enum class Kind { kVar, kLiteral, kOp };
  Kind kind = Kind::kOp;
  int line = 0;
  int col = 0;
  std::string name; // operator name, or "?name" for a variable
  AttrValue literal;
  bool has_attrs = false;
  std::vector<SAttr> attrs;
  std::vector<SExpr> children;
};

class SExprReader {
public:
  explicit SExprReader(std::string_view text) : text_(text) {}

  /// Reads one expression; throws ParseError.
  SExpr read();
  /// Skips blanks and comments; true at the end of the text.
  bool at_end();
  /// Consumes `token` (after blanks) if it comes next as a whole word.
  bool try_consume(std::string_view token);
  /// Throws unless only blanks and comments remain.
  void expect_end();
  /// Throws ParseError "expected <what>, got <next token>" at the current position.
  [[noreturn]] void fail(std::string_view what);
  int line() const { return line_; }
  int col() const { return col_; }

private:
  void skip_blanks();
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void advance();
  std::string next_token_text();
  std::string read_atom(bool in_attrs);
  std::string read_string();
  void read_attrs(SExpr& e);
  AttrValue read_attr_value(SAttr& a);
  /// Parses a numeric atom; false when `s` does not start like a number.
  bool parse_number(const std::string& s, AttrValue& out, int line, int col);

  std::string_view text_;
  std::size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
  int depth_ = 0; // lists open around the expression being read (read() refuses kMaxDepth)
};

/// The deepest nesting of lists the reader accepts: deeper input is an error at the place it
/// passes the limit (the reader and everything that walks the tree recurse per level).
inline constexpr int kMaxSExprDepth = 256;

/// Turns a read expression into a pattern (variables numbered in order of appearance).
Pattern pattern_from_sexpr(const SExpr& e);

} // namespace tilesat::egraph::detail
