// kernel_check.h: running one graph through lowering and the runtime on several core grids
// and placements, compared with the reference interpreter (kernels_test.cpp,
// nn_kernels_test.cpp).
#pragma once

#include "test_plans.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/run.h"

#include <string>

namespace tilesat::runtime::testing {

using tilesat::testing::expect_close;
using tilesat::testing::plan_for;
using tilesat::testing::PlanSpec;

enum class Where { TileL1, RowMajorDram, TileDram, BlockSharded };

/// A core grid and where every value is placed.
struct Case {
  cost::CoreGrid grid;
  Where where;
};

inline std::string case_name(const Case& c) {
  const char* w[] = {"tile_l1", "row_major_dram", "tile_dram", "block_sharded"};
  return std::to_string(c.grid.rows) + "x" + std::to_string(c.grid.cols) + "_" +
         w[static_cast<int>(c.where)];
}

inline PlanSpec spec_for(const Case& c) {
  PlanSpec s;
  s.grid = c.grid;
  s.place = [c](const TensorType& t) {
    switch (c.where) {
    case Where::RowMajorDram:
      return tilesat::testing::host_placement();
    case Where::TileDram:
      return cost::Placement{cost::Layout::Tile,
                             cost::BufferType::DRAM,
                             cost::MemoryLayout::Interleaved,
                             {1, 1},
                             {0, 0}};
    case Where::BlockSharded:
      return tilesat::testing::block_sharded(t, c.grid);
    default:
      return cost::Placement{cost::Layout::Tile,
                             cost::BufferType::L1,
                             cost::MemoryLayout::Interleaved,
                             {1, 1},
                             {0, 0}};
    }
  };
  return s;
}

/// Lowers `g` for the case, runs it on random inputs (floating-point ones shifted by 1.5 to
/// keep log/sqrt/rsqrt/reciprocal/pow on positive inputs, then rounded to their dtype; i32
/// ones as drawn, in [-8, 8]) and compares each result with the interpreter's.
inline void check(const Graph& g, const Case& c, double tol = 1e-5, uint64_t seed = 1) {
  std::vector<uint8_t> bytes =
      lowering::lower_plan(plan_for(g, spec_for(c)), tilesat::testing::test_device(8, 8, 4u << 20));
  Program p = Program::parse(std::move(bytes), "test");
  std::vector<Tensor> args = random_arguments(g, seed);
  for (Tensor& t : args) {
    if (t.dtype() == DType::I32) continue;
    for (float& x : t.data()) x = x + 1.5f;
    t.round_to_dtype();
  }
  std::vector<Tensor> ref = evaluate(g, args);
  Runner r(p, 2);
  RunResult got = r.run(args);
  ASSERT_EQ(got.outputs.size(), ref.size());
  for (size_t i = 0; i < ref.size(); ++i)
    expect_close(got.outputs[i], ref[i], tol, case_name(c) + " result " + std::to_string(i));
}

/// The grids and placements every kernel is tested on.
inline auto all_cases() {
  return ::testing::Values(Case{{1, 1}, Where::TileL1}, Case{{1, 2}, Where::TileL1},
                           Case{{2, 3}, Where::TileL1}, Case{{8, 8}, Where::TileL1},
                           Case{{2, 2}, Where::RowMajorDram}, Case{{1, 3}, Where::TileDram},
                           Case{{2, 2}, Where::BlockSharded}, Case{{3, 1}, Where::BlockSharded});
}

inline std::string param_name(const ::testing::TestParamInfo<Case>& i) {
  return case_name(i.param);
}

} // namespace tilesat::runtime::testing
