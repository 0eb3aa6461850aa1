// csv_fields.h: one line of a CSV file split into its fields (double quotes protect commas).
//
//   split_csv("a,\"b, c\",d");   // {"a", "b, c", "d"}
//   parse_dims("1x32x4096");     // {1, 32, 4096}; parse_dims("32x") is empty
//   parse_positive("12");        // 12; parse_positive("0"), parse_positive("3a") are empty
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tilesat::bench {

std::vector<std::string> split_csv(const std::string& line);
/// Positive dims joined by 'x'; nullopt for anything else.
std::optional<std::vector<int64_t>> parse_dims(const std::string& shape);
/// A positive integer written in full; nullopt for anything else.
std::optional<int64_t> parse_positive(std::string_view text);

} // namespace tilesat::bench
