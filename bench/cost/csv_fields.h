// csv_fields.h: one line of a CSV file split into its fields (double quotes protect commas).
//
//   split_csv("a,\"b, c\",d");   // {"a", "b, c", "d"}
//   parse_dims("1x32x4096");     // {1, 32, 4096}; parse_dims("32x") is empty
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilesat::bench {

std::vector<std::string> split_csv(const std::string& line);
/// Positive dims joined by 'x'; nullopt for anything else.
std::optional<std::vector<int64_t>> parse_dims(const std::string& shape);

} // namespace tilesat::bench
