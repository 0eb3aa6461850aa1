// csv_fields.h: one line of a CSV file split into its fields (double quotes protect commas).
//
//   split_csv("a,\"b, c\",d");   // {"a", "b, c", "d"}
#pragma once

#include <string>
#include <vector>

namespace tilesat::bench {

std::vector<std::string> split_csv(const std::string& line);

} // namespace tilesat::bench
