// descriptor_json.cpp: the checked field readers shared by chip and mesh descriptors.
#include "descriptor_json.h"

#include "tilesat/graph/diagnostic.h"

#include <fmt/format.h>

namespace tilesat::cost::detail {
using nlohmann::json;

void fail(const std::string& path, const std::string& field, const std::string& what) {
  // The file has no line for a field (JSON parsers keep none), so the message names both.
  throw Error(field.empty() ? fmt::format("{}: {}", path, what)
                            : fmt::format("{}: field '{}': {}", path, field, what));
}

const json& value_of(const json& j, const std::string& path, const std::string& field) {
  if (!j.is_object() || !j.contains("value") || !j.contains("source"))
    fail(path, field, "expected an object {\"value\": ..., \"source\": \"...\"}");
  for (const auto& [k, v] : j.items()) {
    if (k != "value" && k != "source")
      fail(path, field, fmt::format("unknown key '{}' (expected 'value' and 'source')", k));
  }
  if (!j["source"].is_string() || j["source"].get<std::string>().empty())
    fail(path, field, "'source' must be a non-empty string naming where the number comes from");
  return j["value"];
}

int64_t positive_int(const json& v, const std::string& path, const std::string& field,
                     bool allow_zero) {
  if (!v.is_number_integer())
    fail(path, field, fmt::format("expected an integer, got {}", v.type_name()));
  int64_t x = v.get<int64_t>();
  if (x < 0 || (x == 0 && !allow_zero))
    fail(path, field, fmt::format("expected a positive integer, got {}", x));
  return x;
}

double positive_number(const json& v, const std::string& path, const std::string& field) {
  if (!v.is_number()) fail(path, field, fmt::format("expected a number, got {}", v.type_name()));
  double x = v.get<double>();
  if (!(x > 0)) fail(path, field, fmt::format("expected a positive number, got {}", x));
  return x;
}

std::array<int64_t, 2> pair_of(const json& v, const std::string& path, const std::string& field) {
  if (!v.is_array() || v.size() != 2)
    fail(path, field, "expected a list of two positive integers [rows, cols]");
  return {positive_int(v[0], path, field), positive_int(v[1], path, field)};
}

} // namespace tilesat::cost::detail
