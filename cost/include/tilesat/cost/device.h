// Device descriptors: what the cost model and legality checks know about one accelerator.
//
// A descriptor is a JSON data file (cost/devices/<name>.json, installed with the library):
// the name, a description, the architecture, and numeric fields each written as
// `{"value": ..., "source": "..."}` so every number names where it comes from. The loader
// rejects unknown fields, missing fields and wrong types with the file and field named.
// A mesh descriptor (mesh.h) names a chip descriptor and adds a `mesh` section; loading it gives
// that chip's fields under the mesh's name, with `mesh` set.
// A chip descriptor may say `"extends": "blackhole_p150"` (a shipped name, or a path relative to
// its own file) and write only its `name`, `description` and the fields that differ.
// Shipped descriptors are found in $TILESAT_DATA_DIR/devices, the source tree, then the
// installed data directory; `load_device` also accepts a path to a user's own file.
//
//   Device d = load_device("wormhole_b0");
//   d.usable_l1_bytes();          // L1 per core minus the firmware reservation
//   d.grid_usable.cores();        // 64 on an n150
#pragma once

#include "tilesat/cost/mesh.h"
#include "tilesat/cost/plan.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilesat::cost {

/// One accelerator as the cost model sees it. `sources` keeps each field's source string.
struct Device {
  std::string name;
  std::string description;
  std::string arch;
  CoreGrid grid_full;
  /// The worker grid ops may use (the full grid minus dispatch and harvested rows).
  CoreGrid grid_usable;
  int64_t l1_bytes_per_core = 0;
  int64_t l1_reserved_bytes = 0;
  std::array<int64_t, 2> tile_shape{32, 32};
  int64_t dram_bytes = 0;
  int64_t dram_channels = 0;
  double dram_bandwidth_gb_s = 0;
  /// DRAM bandwidth (reads plus writes) many cores achieve streaming tile-sized pages of
  /// interleaved tensors through the NoC, as eltwise and data-movement ops do: below the read
  /// microbenchmark's dram_bandwidth_gb_s, which places one reader beside each bank.
  double dram_stream_gb_s = 0;
  double noc_bytes_per_cycle_per_link = 0;
  double clock_ghz = 0;
  /// FPU cycles for one 32x32x32 tile product, by MathFidelity (LoFi, HiFi2, HiFi3, HiFi4).
  std::array<double, 4> fpu_matmul_cycles_per_tile{};
  /// FPU cycles for one tile of an elementwise add/subtract (multiply scales with fidelity).
  double fpu_eltwise_cycles_per_tile = 0;
  /// SFPU cycles for one tile of a simple unary op (transcendental ops take a few of these).
  double sfpu_cycles_per_tile = 0;
  /// Bytes per cycle the unpackers move from L1 into the math engine.
  double unpack_bytes_per_cycle = 0;
  /// Bytes per cycle the packers move from the destination registers back to L1.
  double pack_bytes_per_cycle = 0;
  int64_t dst_tiles = 0;
  int64_t max_circular_buffers = 0;
  /// A matmul's device-side cost beyond its bounds (program launch, the gap after the previous
  /// op, filling its multicast pipeline): fitted on traced matmul rows.
  double launch_us = 0;
  /// The gap between one op's kernels ending and the next op's starting, with trace.
  double op_gap_us = 0;
  /// The shortest kernel of a streaming op (one tile read, computed and written): the fixed
  /// part of an eltwise or data-movement kernel's duration beyond its bounds.
  double kernel_floor_us = 0;
  /// A matmul's time per inner (K) block whose in0 block is fetched from DRAM before it is
  /// multicast: the read's round trip and the senders' and receivers' semaphore handshake,
  /// which double buffering does not hide.
  double matmul_block_sync_us = 0;
  /// Host time to issue one op without trace (interleaved operands / sharded operands).
  double host_dispatch_us = 0;
  double host_dispatch_sharded_us = 0;
  /// "field: source" for every numeric field, in file order.
  std::vector<std::pair<std::string, std::string>> sources;
  /// The file it was read from.
  std::string path;
  /// The descriptor files it extends (`"extends": "NAME|PATH"`), nearest first; fields it does
  /// not write come from them.
  std::vector<std::string> bases;
  /// For a mesh descriptor: its chips and their links (every field above is one chip's).
  std::optional<Mesh> mesh;

  int64_t usable_l1_bytes() const { return l1_bytes_per_core - l1_reserved_bytes; }
  /// Cycles to microseconds at the device clock.
  double cycles_to_us(double cycles) const { return cycles / (clock_ghz * 1e3); }
};

/// The directory of the shipped descriptors; throws tilesat::Error listing the places tried.
std::string devices_dir();
/// The names of the shipped descriptors, sorted.
std::vector<std::string> device_names();
/// A shipped descriptor by name, or a descriptor file by path (anything with '/' or ending in
/// ".json"); throws tilesat::Error naming the file and field on a bad file, or listing the
/// shipped names for an unknown one.
Device load_device(const std::string& name_or_path);
/// As above, a relative descriptor path taken from `base_dir` (a file that names descriptors
/// beside itself).
Device load_device(const std::string& name_or_path, const std::string& base_dir);
/// Parses descriptor text; `path` is used in error messages only.
Device parse_device(const std::string& text, const std::string& path);

/// The name of a fidelity ("HiFi4"), and back (nullopt-like: throws tilesat::Error).
std::string_view fidelity_name(MathFidelity f);
MathFidelity parse_fidelity(std::string_view name);

} // namespace tilesat::cost
