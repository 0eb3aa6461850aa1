// descriptor_json.h: reading the `{"value": ..., "source": "..."}` fields of descriptor files
// (chip and mesh), each error naming the file and the field.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace tilesat::cost::detail {

/// Throws tilesat::Error "PATH: field 'FIELD': WHAT" ("PATH: WHAT" for an empty field).
[[noreturn]] void fail(const std::string& path, const std::string& field, const std::string& what);

/// The "value" of a `{"value": ..., "source": "..."}` field (with a non-empty source).
const nlohmann::json& value_of(const nlohmann::json& j, const std::string& path,
                               const std::string& field);

int64_t positive_int(const nlohmann::json& v, const std::string& path, const std::string& field,
                     bool allow_zero = false);
double positive_number(const nlohmann::json& v, const std::string& path, const std::string& field);
/// `[rows, cols]`, both positive integers.
std::array<int64_t, 2> pair_of(const nlohmann::json& v, const std::string& path,
                               const std::string& field);

} // namespace tilesat::cost::detail
