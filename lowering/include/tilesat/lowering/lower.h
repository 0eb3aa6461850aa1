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
#include "tilesat/graph/tensor.h"
#include "tilesat/lowering/device_summary.h"
#include "tilesat/lowering/partition.h"

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace tilesat::lowering {

struct LowerOptions {
  /// Forces one partition for every op (default: block for matmul/linear on a 2-D grid,
  /// row-major for the rest).
  std::optional<Partition> partition;
  /// Address alignment of buffers, in bytes (a choice of this model: cache lines).
  uint64_t alignment = 64;
  /// Values stored with the program for the inputs of these names (a model's weights); each
  /// must have its input's shape. Other inputs are given when the program runs.
  std::map<std::string, Tensor, std::less<>> input_values;
  /// Stored values up to this many bytes in all go inside the program; beyond it, every stored
  /// value goes to the weights file.
  uint64_t inline_values_limit = 64ull << 20;
  /// The weights file's name as the program records it (relative to the program's directory).
  std::string weights_file = "weights.bin";
};

/// A program and, when some input values do not fit inside it, its weights file.
///
///   LoweredProgram lp = lower_program(plan, dev, {.input_values = weights,
///                                                 .weights_file = "mlp.tsprog.weights"});
///   write_program("mlp.tsprog", lp);   // and mlp.tsprog.weights beside it when needed
struct LoweredProgram {
  std::vector<uint8_t> program;
  std::vector<uint8_t> weights; // empty: no weights file
  std::string weights_file;
};

/// The program as FlatBuffers' object tree (before serialization).
fb::ProgramT lower_to_object(const cost::Plan& plan, const DeviceSummary& device,
                             const LowerOptions& options = {});
/// The serialized program.
std::vector<uint8_t> lower_plan(const cost::Plan& plan, const DeviceSummary& device,
                                const LowerOptions& options = {});
/// The serialized program with stored input values (LowerOptions::input_values).
LoweredProgram lower_program(const cost::Plan& plan, const DeviceSummary& device,
                             const LowerOptions& options = {});
/// Writes program bytes to a file, followed by the checksum trailer (program/storage.h), through
/// a temporary file renamed over `path` (a failed write leaves an old file whole); throws
/// tilesat::Error naming the file on failure.
void write_program(const std::string& path, const std::vector<uint8_t>& bytes);
/// Writes the program to `path` and its weights file, if any, beside it (same directory).
void write_program(const std::string& path, const LoweredProgram& program);
/// CRC-32 (the zlib polynomial) of `bytes`: the weights file's check.
uint32_t crc32_of(std::span<const uint8_t> bytes);

} // namespace tilesat::lowering
