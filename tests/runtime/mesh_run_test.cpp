// Mesh programs: a per-chip graph with every multi-chip op lowered for a 2x2 mesh and run by
// MeshRunner (a thread per chip) against interpret_mesh; the loader's checks of the mesh and
// of damaged mesh-op parameters; a mesh program refused by a one-chip Runner.
#include "program_bytes.h"
#include "test_plans.h"
#include "tilesat/graph/mesh_interpreter.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/mesh_run.h"

#include <fmt/format.h>
#include <gmock/gmock.h>

namespace tilesat::runtime {
namespace {

using testing::error_of;
using ::testing::HasSubstr;
using testing::pack;
using tilesat::testing::plan_for;

// x's rows split over mesh axis 0, w's columns over axis 1; then all_gather, reduce_scatter
// and all_reduce, and two results reassembled by shard_to_full.
Graph collectives_graph() {
  Graph g;
  Builder b(g);
  Value x =
      b.mesh_shard(b.input("x", {64, 48}),
                   {.type = ShardType::Devices, .shard_shape = {2, 1}, .shard_dims = {0, -1}});
  Value w =
      b.mesh_shard(b.input("w", {48, 64}),
                   {.type = ShardType::Devices, .shard_shape = {1, 2}, .shard_dims = {-1, 1}});
  Value h = b.matmul(x, w);                    // 32x32 per chip
  Value all = b.all_gather(h, 1, 1, 2);        // 32x64
  Value part = b.reduce_scatter(all, 1, 1, 2); // 32x32: twice each chip's own block
  Value sum = b.all_reduce(part, 0);           // 32x32, equal down each column
  b.output(b.mesh_shard(all, {.direction = ShardDirection::ShardToFull,
                              .type = ShardType::Devices,
                              .shard_shape = {2, 1},
                              .shard_dims = {0, -1}}));
  b.output(b.mesh_shard(sum, {.direction = ShardDirection::ShardToFull,
                              .type = ShardType::Devices,
                              .shard_shape = {1, 2},
                              .shard_dims = {-1, 1}}));
  return g;
}

lowering::DeviceSummary mesh_device(uint32_t rows, uint32_t cols) {
  lowering::DeviceSummary d = tilesat::testing::test_device(2, 2);
  d.mesh_rows = rows;
  d.mesh_cols = cols;
  return d;
}

std::vector<uint8_t> mesh_bytes() {
  return lowering::lower_plan(plan_for(collectives_graph(), {{2, 2}}), mesh_device(2, 2));
}

TEST(MeshRun, EveryChipInItsThreadMatchesInterpretMesh) {
  Graph g = collectives_graph();
  Program program = Program::parse(mesh_bytes(), "mesh.tsprog");
  EXPECT_EQ(program.fb().mesh_rows(), 2u);
  std::vector<Tensor> args = random_arguments(g, 3);
  std::vector<Tensor> want = interpret_mesh(g, args, {2, 2});
  MeshRunner runner(program, 4);
  for (int run = 0; run < 2; ++run) {
    MeshRunResult got = runner.run(args);
    ASSERT_EQ(got.outputs.size(), 2u);
    ASSERT_EQ(got.chips.size(), 4u);
    for (size_t i = 0; i < want.size(); ++i)
      tilesat::testing::expect_close(got.outputs[i], want[i], 1e-5, fmt::format("output {}", i));
    EXPECT_GT(got.chips[3].ops.size(), 0u);
  }
  EXPECT_THAT(mesh_profile_json(program, runner.run(args).chips), HasSubstr("\"mesh\": \"2x2\""));
  // A one-chip runner refuses the program.
  Runner one(program, 1);
  try {
    one.run(args);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("runs on every chip of a 2x2 mesh; run it with MeshRunner"));
  }
}

TEST(MeshRun, DamagedMeshProgramsAreNamed) {
  EXPECT_EQ(error_of(mesh_bytes()), "");
  auto damaged = [](auto damage) {
    fb::ProgramT p;
    std::vector<uint8_t> bytes = mesh_bytes();
    fb::GetProgram(bytes.data())->UnPackTo(&p);
    damage(p);
    return error_of(pack(p));
  };
  auto op = [](fb::ProgramT& p, const std::string& kind) -> fb::OpT& {
    for (auto& o : p.ops)
      if (o->kind == kind) return *o;
    throw std::runtime_error("no op " + kind);
  };
  EXPECT_THAT(damaged([](fb::ProgramT& p) { p.mesh_rows = 0; }),
              HasSubstr("mesh: expected a mesh of 1..64 chips, got 0x2"));
  EXPECT_THAT(damaged([](fb::ProgramT& p) { p.mesh_cols = 4; }),
              HasSubstr(".params.shard_shape: expected [1, 4] on a 2x4 mesh, got [1, 2]"));
  EXPECT_THAT(damaged([&](fb::ProgramT& p) {
                op(p, "all_reduce").params.AsCollective()->cluster_axis = 2;
              }),
              HasSubstr(".params.cluster_axis: expected 0 or 1, got 2"));
  EXPECT_THAT(damaged([&](fb::ProgramT& p) { op(p, "all_gather").params.AsCollective()->dim = 5; }),
              HasSubstr(".params.dim: expected a dim in [0, 2), got 5"));
  EXPECT_THAT(damaged([&](fb::ProgramT& p) {
                op(p, "reduce_scatter").params.AsCollective()->kind = fb::CollectiveKind::AllGather;
              }),
              HasSubstr("expected a result of shape [32, 128] over 2 chips, got [32, 32]"));
  EXPECT_THAT(
      damaged([&](fb::ProgramT& p) { op(p, "mesh_shard").params.AsMeshShard()->shard_dims = {0}; }),
      HasSubstr(".params.shard_dims: expected 2 entries (one per mesh axis)"));
}

// As Loader.BitFlipsAreRejectedOrHarmless for a mesh program: a damaged program is refused
// when loaded, or it runs on every chip (or stops with an error), never crashes or hangs.
TEST(MeshRun, BitFlipsAreRejectedOrHarmless) {
  std::vector<Tensor> args = random_arguments(collectives_graph(), 5);
  int accepted = testing::accepted_bit_flips(mesh_bytes(), 1500, 13, [&](const Program& p) {
    MeshRunner r(p, 1);
    (void)r.run(args);
  });
  EXPECT_LT(accepted, 1500);
}

} // namespace
} // namespace tilesat::runtime
