// Errors of the e-graph engine: malformed pattern/term text and ill-formed rewrite rules.
//
// Both are user mistakes (bad input), reported with what was expected and where, so a rule
// file loader can prefix its own file name and a CLI can print `what()` as is.
//
//   try { Pattern::parse("(+ ?a"); }
//   catch (const tilesat::egraph::ParseError& e) { assert(e.line() == 1 && e.col() == 6); }
#pragma once

#include <stdexcept>
#include <string>

namespace tilesat::egraph {

/// A syntax error in pattern or term text; `what()` is "line:col: expected X, got Y".
class ParseError : public std::runtime_error {
public:
  ParseError(int line, int col, std::string expected, std::string found);
  int line() const { return line_; }
  int col() const { return col_; }
  const std::string& expected() const { return expected_; }
  const std::string& found() const { return found_; }

private:
  int line_;
  int col_;
  std::string expected_;
  std::string found_;
};

/// A rewrite rule that cannot be built (unbound variable, unknown guard variable, ...);
/// `what()` names the rule.
class RuleError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace tilesat::egraph
