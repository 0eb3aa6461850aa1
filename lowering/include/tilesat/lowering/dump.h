// The program as readable text, in the spirit of TTNN IR and its flatbuffer listing: the
// device, each tensor with its placement and buffer (address, size, lifetime), then each op
// in execution order with its inputs, core range, partition, per-core work and the buffers
// freed after it.
//
//   std::vector<uint8_t> bytes = lower_plan(plan, dev);
//   fmt::print("{}", dump_program(*fb::GetProgram(bytes.data())));
#pragma once

#include "program_generated.h"

#include <string>

namespace tilesat::lowering {

struct DumpOptions {
  /// Print every core's work items (otherwise one summary line per op).
  bool work_items = true;
};

/// `program` must have been verified (or produced by lower_plan).
std::string dump_program(const fb::Program& program, const DumpOptions& options = {});

} // namespace tilesat::lowering
