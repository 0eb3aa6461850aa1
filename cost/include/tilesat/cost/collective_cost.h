// Collective operations between the chips of a mesh (all_gather, reduce_scatter, all_reduce),
// priced from the mesh descriptor's Ethernet links.
//
// The model is the standard latency-bandwidth one for ring and line collectives over N chips,
// L links between neighbours, each moving bw bytes per microsecond per direction, a hop
// latency a and a launch cost t0 per op:
//
//   time = t0 + (N - 1) * a + (bytes on the busiest link in one direction) / (L * bw)
//
// all_gather (B: the gathered tensor's bytes, each chip holding B / N):
//   ring: each chip sends half its shard each way around the ring, so every link carries
//         (N - 1) / N * B / 2 per direction over N - 1 steps (tech_reports/CCL/
//         CclDeveloperGuide.md, "Bidirectionality": half of each tensor in each direction);
//   line: the shards of the N - 1 chips on one side of an end link all cross it, (N - 1) / N * B
//         in one direction: twice the ring's time (the guide: a line reaches half the
//         bidirectional peak, as the end chips send one way only).
// reduce_scatter (B: each chip's full-size input, each ending with its reduced B / N): the
//   mirror image of all_gather: N - 1 steps each passing a partial sum of B / N; the same bytes
//   per link as all_gather in each topology (ring halves each way; a line's end link carries
//   N - 1 partials). The adds are not a bound: one core adds 2048-byte tiles at 8 cycles each
//   (256 GB/s at 1 GHz, fpu_eltwise_cycles_per_tile), twenty times a link's 12.5 GB/s.
// tt-metal's own bandwidth sweeps count the bytes per link the same way, total * (N - 1) / N /
//   links, halved on a ring (tests/ttnn/multidevice_perf_tests/
//   test_reduce_scatter_hyperparameter_sweep_perf_galaxy.py, total_bytes_moved).
// all_reduce = reduce_scatter then all_gather of the same B (tech_reports/LLMs/llms.md 3.3.3:
//   ttnn's AllReduce is the composite of the two), so two launches.
// One chip moves nothing and costs nothing.
//
//   Device t3k = load_device("t3k");
//   CollectiveEstimate e = collective_cost(Collective::AllGather, 1 << 20, all_chips_group(t3k));
//   fmt::print("{:.1f} us ({})\n", e.us, e.detail);
#pragma once

#include "tilesat/cost/device.h"
#include "tilesat/cost/mesh.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tilesat::cost {

enum class Collective : uint8_t { AllGather, ReduceScatter, AllReduce };

/// "all_gather", "reduce_scatter", "all_reduce", and back (throws tilesat::Error).
std::string_view collective_name(Collective c);
Collective parse_collective(std::string_view name);

/// The chips one collective runs over and the links between neighbours.
///
///   CollectiveGroup g{.chips = 8, .topology = MeshTopology::Ring, .links = 1,
///                     .link_bandwidth_gb_s = 12.5, .hop_latency_us = 0.65, .launch_us = 7.5};
struct CollectiveGroup {
  int64_t chips = 1;
  MeshTopology topology = MeshTopology::Line;
  /// Links used between each pair of neighbours.
  int64_t links = 1;
  /// GB/s per link and per direction.
  double link_bandwidth_gb_s = 0;
  double hop_latency_us = 0;
  /// Device-side cost of starting the op on each chip.
  double launch_us = 0;
};

/// The chips along mesh axis `axis` (0: a column of `shape[0]` chips, 1: a row of `shape[1]`)
/// with that axis's topology, using `links` links between neighbours (0: all the axis has).
/// A single-chip device is a group of one chip. The launch cost is the chip's `launch_us`.
/// Throws tilesat::Error for an axis other than 0 or 1, or more links than the axis has.
CollectiveGroup axis_group(const Device& device, int axis, int64_t links = 0);
/// Every chip of the mesh: the ring through all of them when the mesh has one, or the one axis
/// of a 1xN / Nx1 mesh. Throws tilesat::Error for a grid without such a ring.
CollectiveGroup all_chips_group(const Device& device, int64_t links = 0);

/// The model's account of one collective.
struct CollectiveEstimate {
  double us = 0;
  double launch_us = 0;
  /// Hops times the hop latency.
  double latency_us = 0;
  /// The busiest link direction's bytes at the links' bandwidth.
  double transfer_us = 0;
  int64_t steps = 0;
  /// Bytes crossing the busiest link in one direction (summed over the links of the pair).
  double link_bytes = 0;
  /// "launch", "latency" or "transfer": the largest part.
  std::string dominant;
  /// A one-line account with the numbers.
  std::string detail;
};

/// The time of `op` on `bytes` (see the formulas above) over `group`. Throws tilesat::Error
/// for negative bytes, or a group of several chips without links, bandwidth or latency.
CollectiveEstimate collective_cost(Collective op, double bytes, const CollectiveGroup& group);

} // namespace tilesat::cost
