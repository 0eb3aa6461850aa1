// csv_fields.cpp: splitting a CSV line.
#include "csv_fields.h"

namespace tilesat::bench {

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r')
      cur += c;
  }
  out.push_back(cur);
  return out;
}

} // namespace tilesat::bench
