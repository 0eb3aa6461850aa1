// mesh.cpp: the `mesh` section of a descriptor: shape, topology per axis, Ethernet links.
#include "descriptor_json.h"
#include "mesh_json.h"
#include "tilesat/graph/diagnostic.h"

#include <fmt/format.h>
#include <set>

namespace tilesat::cost {
using nlohmann::json;

std::string_view topology_name(MeshTopology t) {
  switch (t) {
  case MeshTopology::Line:
    return "line";
  case MeshTopology::Ring:
    return "ring";
  }
  throw InternalError("bad MeshTopology");
}

MeshTopology parse_topology(std::string_view name) {
  for (MeshTopology t : {MeshTopology::Line, MeshTopology::Ring})
    if (topology_name(t) == name) return t;
  throw Error(fmt::format("unknown topology '{}' (expected line or ring)", name));
}

namespace detail {
namespace {

// Sides beyond this are surely a typo, and keep rows * cols far from overflowing.
constexpr int64_t kMaxMeshSide = 1024;

const char* const kFields[] = {"chip",           "shape",
                               "topology",       "ring_over_all_chips",
                               "links_per_pair", "link_bandwidth_gb_s",
                               "hop_latency_us"};

std::array<MeshTopology, 2> topologies_of(const json& v, const std::string& path,
                                          const std::string& field) {
  const char* expected = "expected a list of two of \"line\" and \"ring\" (one per mesh axis)";
  if (!v.is_array() || v.size() != 2) fail(path, field, expected);
  std::array<MeshTopology, 2> out{};
  for (size_t axis = 0; axis < 2; ++axis) {
    if (!v[axis].is_string()) fail(path, field, expected);
    try {
      out[axis] = parse_topology(v[axis].get<std::string>());
    } catch (const Error& e) {
      fail(path, field, fmt::format("axis {}: {}", axis, e.diagnostic().message));
    }
  }
  return out;
}

// Whether a ring can visit every chip of the mesh once: along a line of chips only if that
// axis is a ring; on a grid of at least 2x2 only if it has an even number of chips (a grid
// graph has a Hamiltonian cycle exactly then: colour it like a chessboard).
void check_ring_over_all(const Mesh& m, const std::string& path) {
  const std::string field = "mesh.ring_over_all_chips";
  if (m.chips() < 3) fail(path, field, "a ring needs at least 3 chips");
  for (size_t axis = 0; axis < 2; ++axis) {
    if (m.shape[1 - axis] == 1 && m.axis_topology[axis] != MeshTopology::Ring)
      fail(path, field,
           fmt::format("a {}x{} mesh is one line of chips: a ring through every chip needs "
                       "topology \"ring\" on axis {}",
                       m.shape[0], m.shape[1], axis));
  }
  if (m.shape[0] > 1 && m.shape[1] > 1 && m.chips() % 2 != 0)
    fail(path, field,
         fmt::format("a {}x{} grid has an odd number of chips: no ring passes through each once",
                     m.shape[0], m.shape[1]));
}

} // namespace

Mesh parse_mesh_fields(const json& mesh, const std::string& path) {
  if (!mesh.is_object()) fail(path, "mesh", "expected an object of mesh fields");
  std::set<std::string> known(std::begin(kFields), std::end(kFields));
  for (const auto& [k, v] : mesh.items()) {
    if (!known.count(k))
      fail(path, "mesh." + k,
           fmt::format("unknown field (mesh fields: {})", fmt::join(kFields, ", ")));
  }
  Mesh m;
  auto field = [&](const char* name) -> const json& {
    std::string f = std::string("mesh.") + name;
    if (!mesh.contains(name)) fail(path, f, "missing field");
    const json& v = value_of(mesh[name], path, f);
    m.sources.emplace_back(f, mesh[name]["source"].get<std::string>());
    return v;
  };
  const json& chip = field("chip");
  if (chip.is_string() && !chip.get<std::string>().empty())
    m.chip = chip.get<std::string>();
  else if (chip.is_object())
    m.chip = "inline";
  else
    fail(path, "mesh.chip",
         "expected a chip descriptor's name or path, or a chip descriptor object");
  m.shape = pair_of(field("shape"), path, "mesh.shape");
  if (m.shape[0] > kMaxMeshSide || m.shape[1] > kMaxMeshSide)
    fail(path, "mesh.shape",
         fmt::format("expected at most {} chips per side, got {}x{}", kMaxMeshSide, m.shape[0],
                     m.shape[1]));
  m.axis_topology = topologies_of(field("topology"), path, "mesh.topology");
  for (size_t axis = 0; axis < 2; ++axis) {
    if (m.axis_topology[axis] == MeshTopology::Ring && m.shape[axis] < 3)
      fail(path, "mesh.topology",
           fmt::format("axis {} has {} chip(s): a ring needs at least 3 (two chips are a line)",
                       axis, m.shape[axis]));
  }
  const json& ring = field("ring_over_all_chips");
  if (!ring.is_boolean())
    fail(path, "mesh.ring_over_all_chips",
         fmt::format("expected true or false, got {}", ring.type_name()));
  m.ring_over_all_chips = ring.get<bool>();
  if (m.ring_over_all_chips) check_ring_over_all(m, path);
  m.links_per_pair = pair_of(field("links_per_pair"), path, "mesh.links_per_pair");
  m.link_bandwidth_gb_s =
      positive_number(field("link_bandwidth_gb_s"), path, "mesh.link_bandwidth_gb_s");
  m.hop_latency_us = positive_number(field("hop_latency_us"), path, "mesh.hop_latency_us");
  return m;
}

} // namespace detail
} // namespace tilesat::cost
