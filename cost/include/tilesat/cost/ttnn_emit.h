// Plans as TTNN-dialect text: the planned program in tt-mlir's TTNN syntax.
//
// Every tensor type carries its placement as a `#ttnn.ttnn_layout` alias, defined once at the
// top of the file with the buffer aliases:
//
//   #dram = #ttnn.buffer_type<dram>
//   #l1 = #ttnn.buffer_type<l1>
//   #ttnn_layout = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<64x128xbf16, #dram>,
//   <interleaved>> #ttnn_layout1 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>,
//   memref<2x4x!ttcore.tile<32x32, bf16>, #dram>, <interleaved>> #ttnn_layout2 =
//   #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <2x3, (d0, d1) -> (d0, d1)>,
//   memref<1x1x!ttcore.tile<32x32, bf16>, #l1>, <block_sharded>>
//
// (the logical dims collapse to 2-D rows x columns; the grid is <1x1> when interleaved, else
// the shard grid; the memref is the whole tensor when interleaved, one shard when sharded, in
// tiles for tile layout and in elements for row-major). Then each module with its functions:
// arguments and results with their layouts, the device ops in the plan's order
// (`"ttnn.matmul"(%arg0, %arg1) <{activation = "sigmoid", transpose_a = false, transpose_b =
// false}>`, a bias-less linear printing as a matmul with its activation), the plan's
// conversions as `ttnn.to_layout` (layout changes) or `ttnn.to_memory_config` (buffer or
// sharding changes), and `return`. docs/cli.md lists the forms.
//
//   std::vector<Plan> plans = ...;                 // one per function, in file order
//   fmt::print("{}", emit_ttnn(file, plans));
#pragma once

#include "tilesat/cost/plan.h"
#include "tilesat/graph/module.h"

#include <span>
#include <string>

namespace tilesat::cost {

/// `file` as TTNN text, each function replaced by its plan (`plans` in the file's function
/// order, one per function); the file's own aliases (other than TTNN layouts) and module
/// attributes are kept. Throws tilesat::InternalError when the counts differ.
std::string emit_ttnn(const SourceFile& file, std::span<const Plan> plans);

/// One plan as a complete TTNN file (`module { func.func ... }`).
std::string emit_ttnn(const Plan& plan);

/// The `#ttnn.ttnn_layout<...>` of a value of `type` placed at `p`.
std::string ttnn_layout_attr(const TensorType& type, const Placement& p);

} // namespace tilesat::cost
