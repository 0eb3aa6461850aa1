// A mesh of chips: how many, how they are wired, and how fast the wires are.
//
// A mesh descriptor (cost/devices/t3k.json) names its chip descriptor and adds an optional
// `mesh` section to the descriptor schema; every number carries its source, as in a chip
// descriptor. The chips form a rows x cols grid; neighbours along an axis are joined by
// `links_per_pair[axis]` Ethernet links, each moving `link_bandwidth_gb_s` per direction, and a
// message crossing one hop waits `hop_latency_us`. Along each axis the chips form a line or a
// ring (a torus is a ring on both axes); some meshes also close one ring through every chip (a
// T3000's eight chips).
//
//   Device d = load_device("t3k");
//   const Mesh& m = *d.mesh;
//   m.chips();                      // 8
//   m.axis_topology[1];             // MeshTopology::Line (4 chips in a row)
//   m.ring_over_all_chips;          // true: one 8-chip ring
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilesat::cost {

/// How the chips along one mesh axis are joined: a line (the ends are not connected) or a ring.
enum class MeshTopology : uint8_t { Line, Ring };

/// "line" or "ring", and back (throws tilesat::Error naming the accepted words).
std::string_view topology_name(MeshTopology t);
MeshTopology parse_topology(std::string_view name);

/// The chips of a multi-chip device and the Ethernet between them.
struct Mesh {
  /// Chips per mesh axis: {rows, cols}; an n300 is {1, 2}.
  std::array<int64_t, 2> shape{1, 1};
  /// The chip descriptor's name (or path) each chip is, or "inline" for a chip written in place.
  std::string chip;
  std::array<MeshTopology, 2> axis_topology{MeshTopology::Line, MeshTopology::Line};
  /// Whether one ring passes through every chip (a collective over the whole mesh runs on it).
  bool ring_over_all_chips = false;
  /// Ethernet links a collective may use between two neighbours along each axis.
  std::array<int64_t, 2> links_per_pair{1, 1};
  /// GB/s one link moves in each direction (Wormhole: 100 Gb/s = 12.5 GB/s).
  double link_bandwidth_gb_s = 0;
  /// Time for a message to cross one chip-to-chip hop.
  double hop_latency_us = 0;
  /// "mesh.field: source" for every mesh field, in file order.
  std::vector<std::pair<std::string, std::string>> sources;

  int64_t chips() const { return shape[0] * shape[1]; }
};

} // namespace tilesat::cost
