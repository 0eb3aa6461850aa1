// The tokenizer of tilesat's MLIR-style text (TTIR and the StableHLO subset).
//
// Tokens are produced on demand, one at a time, so the parser can switch to a raw scan where
// MLIR's grammar is not token-based: the body of `tensor<32x128xf32>` and the balanced `<...>`
// of an opaque attribute such as `#tt.system_desc<...>`. Every token knows its offset, and the
// lexer maps offsets to 1-based line:col for diagnostics.
#pragma once

#include "tilesat/graph/diagnostic.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat::text {

enum class Tok {
  Eof,
  PercentId, // %0, %arg0
  AtId,      // @main
  HashId,    // #any_device, #tt.system_desc
  BangId,    // !ttcore.tile
  CaretId,   // ^bb0 (a block label in a region)
  BareId,    // func.func, ttir.add, tensor, true, f32, x
  Integer,   // 12, -3, 0x7F800000
  Float,     // 1.5, -2.0e-3
  String,    // "ttir.add" (text keeps the quotes)
  LParen,
  RParen,
  LBrace,
  RBrace,
  LSquare,
  RSquare,
  Less,
  Greater,
  Comma,
  Colon,
  Equal,
  Arrow,
  Question,
  Star,
};

struct Token {
  Tok kind = Tok::Eof;
  std::string_view text;
  size_t offset = 0;
};

/// "')'", "'%3'", "end of file": how a token is named in "expected X, got Y".
std::string describe(const Token& t);

class Lexer {
public:
  Lexer(std::string_view source, std::string file);

  /// Lexes the token starting at the current position (skipping blanks and `//` comments).
  Token next();
  /// Moves the position to `offset` (used after a raw scan or to re-lex a token).
  void reset_to(size_t offset) { pos_ = offset; }
  size_t position() const { return pos_; }
  std::string_view source() const { return src_; }

  /// The text from the `<` at `open` through its matching `>`, skipping `->` and strings;
  /// moves the position past it. Throws "unterminated '<'" when it never closes.
  std::string_view scan_balanced_angle(size_t open);
  /// The same for a `(` at `open` through its matching `)`.
  std::string_view scan_balanced_paren(size_t open);
  /// Reads `32x128x` (extents followed by `x`) from the position; stops before the element type.
  /// Throws on `?` (dynamic) extents and out-of-range numbers.
  std::vector<int64_t> scan_dims();

  SourceLoc loc(size_t offset) const;
  [[noreturn]] void fail(size_t offset, std::string message) const;

private:
  void skip_blanks();
  std::string_view scan_balanced(size_t open, char open_ch, char close_ch);

  std::string_view src_;
  std::string file_;
  size_t pos_ = 0;
  std::vector<size_t> line_starts_;
};

} // namespace tilesat::text
