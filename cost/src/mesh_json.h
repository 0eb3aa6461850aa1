// mesh_json.h: reading the `mesh` section of a descriptor file (the chip it names is resolved
// by device.cpp).
#pragma once

#include "tilesat/cost/mesh.h"

#include <nlohmann/json.hpp>
#include <string>

namespace tilesat::cost::detail {

/// The fields of `mesh` (an object), checked, each error naming `path` and the field
/// ("mesh.shape"). `Mesh::chip` is the chip's name or path as written, or "inline" when the
/// chip is an object; the caller reads the chip itself.
Mesh parse_mesh_fields(const nlohmann::json& mesh, const std::string& path);

} // namespace tilesat::cost::detail
