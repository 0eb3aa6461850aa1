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
    std::optional<int64_t> v = parse_positive(std::string_view(shape).substr(at, end - at));
    if (!v) return std::nullopt;
    dims.push_back(*v);
    at = end + 1;
  }
  return dims;
}

std::optional<int64_t> parse_positive(std::string_view text) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || v <= 0) return std::nullopt;
  return v;
}

} // namespace tilesat::bench
