// diagnostic.cpp: rendering of source locations and diagnostics.
#include "tilesat/graph/diagnostic.h"

#include <fmt/format.h>

namespace tilesat {

std::string SourceLoc::str() const {
  if (!known()) return file;
  if (file.empty()) return fmt::format("{}:{}", line, col);
  return fmt::format("{}:{}:{}", file, line, col);
}

std::string Diagnostic::str() const {
  std::string where = loc.str();
  if (where.empty()) return "error: " + message;
  return fmt::format("{}: error: {}", where, message);
}

Error::Error(Diagnostic diag) : std::runtime_error(diag.str()), diag_(std::move(diag)) {}

} // namespace tilesat
