// Diagnostics: where a problem is and what it is, for every input a user can give.
//
// Bad input (a malformed file, an unknown op, a shape mismatch) is reported by throwing
// `tilesat::Error`, which carries a `Diagnostic`: a location and a message in the form
// "expected X, got Y". Internal bugs are a different kind (`InternalError`), so a tool can tell
// a user mistake from a defect of tilesat itself. The CLI prints `what()` and exits non-zero.
//
//   try { tilesat::SourceFile f = tilesat::parse_file("model.mlir"); }
//   catch (const tilesat::Error& e) { fmt::print(stderr, "{}\n", e.what()); }
//   // model.mlir:12:7: error: expected ')', got ','
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tilesat {

/// A place in a source file (1-based line and column); empty `file` means "no file".
struct SourceLoc {
  std::string file;
  int line = 0;
  int col = 0;

  bool known() const { return line > 0; }
  /// "file:line:col", "file", or "" when nothing is known.
  std::string str() const;
};

/// One problem found in a user's input.
struct Diagnostic {
  SourceLoc loc;
  std::string message;

  /// "file:line:col: error: message" (the location part is omitted when unknown).
  std::string str() const;
};

/// Thrown for invalid user input; `what()` is the formatted diagnostic.
class Error : public std::runtime_error {
public:
  explicit Error(Diagnostic diag);
  Error(SourceLoc loc, std::string message)
      : Error(Diagnostic{std::move(loc), std::move(message)}) {}
  explicit Error(std::string message) : Error(Diagnostic{{}, std::move(message)}) {}

  const Diagnostic& diagnostic() const { return diag_; }

private:
  Diagnostic diag_;
};

/// Thrown when tilesat breaks one of its own invariants (a bug, not a user error).
class InternalError : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

} // namespace tilesat
