// csv_fields.cpp: splitting a CSV line, and the dims of a shape field.
#include "csv_fields.h"

#include <algorithm>
#include <charconv>

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

std::optional<std::vector<int64_t>> parse_dims(const std::string& shape) {
  std::vector<int64_t> dims;
  size_t at = 0;
  while (at <= shape.size()) {
    size_t end = std::min(shape.find('x', at), shape.size());
    int64_t v = 0;
    auto [p, ec] = std::from_chars(shape.data() + at, shape.data() + end, v);
    if (ec != std::errc() || p != shape.data() + end || v <= 0) return std::nullopt;
    dims.push_back(v);
    at = end + 1;
  }
  return dims;
}

} // namespace tilesat::bench
