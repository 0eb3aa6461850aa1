// Plan -> device program. Lowering turns the extracted plan into the FlatBuffer program the
// runtime executes:
//  - one tensor per plan value, placed as the plan says (shard shapes in whole tiles);
//  - a `to_layout` to row-major DRAM after each result the host cannot read as it is;
//  - buffer lifetimes from the execution order, L1 (per core) and DRAM addresses from the
//    allocator, checked for overlaps;
//  - each op's output tiles dealt to its cores (block partition for matrix products on a 2-D
//    grid, row-major otherwise, or as `LowerOptions` says), checked to cover every tile once.
// Bad plans (an op the runtime has no kernel for, more live L1 than the device has, shard
// shapes that are not whole tiles) are a tilesat::Error naming the op or value.
//
//   cost::Plan plan = ...;
//   DeviceSummary dev = DeviceSummary::of(cost::load_device(plan.device));
//   std::vector<uint8_t> bytes = lower_plan(plan, dev);
//   write_program("mlp.tsprog", bytes);
#pragma once

#include "program_generated.h"
#include "tilesat/cost/plan.h"
#include "tilesat/lowering/device_summary.h"
#include "tilesat/lowering/partition.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tilesat::lowering {

struct LowerOptions {
  /// Forces one partition for every op (default: block for matmul/linear on a 2-D grid,
  /// row-major for the rest).
  std::optional<Partition> partition;
  /// Address alignment of buffers, in bytes (a choice of this model: cache lines).
  uint64_t alignment = 64;
};

/// The program as FlatBuffers' object tree (before serialization).
fb::ProgramT lower_to_object(const cost::Plan& plan, const DeviceSummary& device,
                             const LowerOptions& options = {});
/// The serialized program.
std::vector<uint8_t> lower_plan(const cost::Plan& plan, const DeviceSummary& device,
                                const LowerOptions& options = {});
/// Writes program bytes to a file; throws tilesat::Error naming the file on failure.
void write_program(const std::string& path, const std::vector<uint8_t>& bytes);

} // namespace tilesat::lowering
