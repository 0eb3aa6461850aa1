// What lowering needs to know about the device a plan is for: its worker grid, the L1 a
// program may use per core, and its DRAM. Addresses in a program count from the first usable
// L1 byte (the firmware's reservation is not part of a program's L1).
//
//   cost::Device d = cost::load_device("wormhole_b0");
//   DeviceSummary s = DeviceSummary::of(d);   // 8x8 cores, usable L1, DRAM
//   DeviceSummary t{"test", 2, 2, 1 << 20, 1 << 30, 1};   // a made-up device for tests
#pragma once

#include "tilesat/cost/device.h"

#include <cstdint>
#include <string>

namespace tilesat::lowering {

struct DeviceSummary {
  std::string name;
  uint32_t grid_rows = 1;
  uint32_t grid_cols = 1;
  uint64_t l1_bytes_per_core = 0;
  uint64_t dram_bytes = 0;
  uint32_t dram_channels = 1;
  /// Chips per mesh axis {rows, cols} of a multi-chip device (each chip is the one above).
  uint32_t mesh_rows = 1;
  uint32_t mesh_cols = 1;

  /// From a device descriptor: its usable grid and usable L1 (L1 minus the reservation), and
  /// its mesh.
  static DeviceSummary of(const cost::Device& d) {
    auto mesh = [&](size_t axis) {
      return d.mesh ? static_cast<uint32_t>(d.mesh->shape[axis]) : 1u;
    };
    return DeviceSummary{d.name,
                         d.grid_usable.rows,
                         d.grid_usable.cols,
                         static_cast<uint64_t>(d.usable_l1_bytes()),
                         static_cast<uint64_t>(d.dram_bytes),
                         static_cast<uint32_t>(d.dram_channels),
                         mesh(0),
                         mesh(1)};
  }
};

} // namespace tilesat::lowering
