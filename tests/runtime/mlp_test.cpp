// The seed MLP end to end: lowering + runtime equal the reference interpreter.
//
// Tolerances (runtime/compare.h; normwise: max |runtime - reference| <= tol * max(1, max |ref|)):
//  - f32: 1e-5 (only the order of f32 sums differs from the reference's double sums);
//  - bf16: 2^-7 (one bf16 step of the largest result; both round every op's result to bf16,
//    sums in f32 vs double can land on either side of a rounding boundary);
//  - bfp8_b: 5e-2 (the runtime stores inputs and intermediates with 7-bit mantissas under a
//    shared exponent per 16 values, the reference only rounds to bf16; the error of each stored
//    value is at most 2^-7 of its block's largest magnitude and accumulates over the
//    128- and 256-long dot products).
#include "test_plans.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/compare.h"
#include "tilesat/runtime/run.h"

namespace tilesat::runtime {
namespace {

using tilesat::testing::expect_close;
using tilesat::testing::plan_for;
using tilesat::testing::seed_mlp;

TEST(Compare, NormwiseWithTheDtypesTolerance) {
  Tensor ref(TensorType{DType::F32, Shape{2}, {}}, {100.0f, -1.0f});
  Tensor near(TensorType{DType::F32, Shape{2}, {}}, {100.0005f, -1.0f});
  Tensor far(TensorType{DType::F32, Shape{2}, {}}, {100.5f, -1.0f});
  EXPECT_TRUE(compare(near, ref, DType::F32).ok);
  Comparison c = compare(far, ref, DType::F32);
  EXPECT_FALSE(c.ok);
  EXPECT_NEAR(c.max_abs, 0.5, 1e-6);
  EXPECT_NEAR(c.max_rel, 0.005, 1e-8);
  EXPECT_TRUE(compare(far, ref, DType::BF16).ok); // 0.5 <= 2^-7 * 100
  Tensor other(TensorType{DType::F32, Shape{1, 2}, {}}, {100.0f, -1.0f});
  EXPECT_FALSE(compare(other, ref, DType::F32).shape_ok);
}

TEST(SeedMlp, MatchesTheReferenceForEachDtypeAndGrid) {
  for (DType dt : {DType::F32, DType::BF16, DType::BFP8_B}) {
    for (auto [gr, gc] : {std::pair{1u, 1u}, {2u, 2u}, {1u, 8u}, {8u, 8u}}) {
      Graph g = seed_mlp(32, dt);
      Program p = Program::parse(
          lowering::lower_plan(plan_for(g, {{gr, gc}}), tilesat::testing::test_device(8, 8)),
          "mlp");
      std::vector<Tensor> args = random_arguments(g, 42);
      std::vector<Tensor> ref = evaluate(g, args);
      Runner r(p);
      RunResult got = r.run(args);
      ASSERT_EQ(got.outputs.size(), 1u);
      EXPECT_EQ(got.outputs[0].dtype(), dt);
      expect_close(got.outputs[0], ref[0], tolerance(dt),
                   std::string(dtype_name(dt)) + " on " + std::to_string(gr) + "x" +
                       std::to_string(gc));
    }
  }
}

TEST(SeedMlp, ProfileReportsOpsCoresAndL1) {
  Graph g = seed_mlp();
  Program p = Program::parse(
      lowering::lower_plan(plan_for(g, {{2, 2}}), tilesat::testing::test_device(8, 8)), "mlp");
  Runner r(p, 2);
  RunResult got = r.run(random_arguments(g, 1));
  const Profile& prof = got.profile;
  ASSERT_EQ(prof.ops.size(), 10u);
  EXPECT_EQ(prof.ops[2].kind, "matmul");
  EXPECT_EQ(prof.ops[2].cores, 2u); // a 1x8-tile output on a 2x2 block grid: one tile row
  EXPECT_EQ(prof.ops[2].device_us, 1.0);
  EXPECT_GT(prof.l1_high_water, 0u);
  EXPECT_LE(prof.l1_high_water, prof.l1_bytes_per_core);
  EXPECT_EQ(prof.threads, 2u);
  std::string json = profile_json(prof);
  EXPECT_NE(json.find("\"l1_high_water_bytes\""), std::string::npos);
  EXPECT_NE(json.find("\"kind\": \"add_relu\""), std::string::npos);
}

TEST(SeedMlp, RunsRepeatedlyWithTheSameResult) {
  Graph g = seed_mlp();
  Program p = Program::parse(
      lowering::lower_plan(plan_for(g, {{8, 8}}), tilesat::testing::test_device(8, 8)), "mlp");
  Runner r(p);
  std::vector<Tensor> args = random_arguments(g, 3);
  RunResult a = r.run(args), b = r.run(args);
  EXPECT_EQ(a.outputs[0].data(), b.outputs[0].data());
}

TEST(SeedMlp, WrongInputShapeIsNamed) {
  Graph g = seed_mlp();
  Program p =
      Program::parse(lowering::lower_plan(plan_for(g), tilesat::testing::test_device(1, 1)), "mlp");
  Runner r(p);
  std::vector<Tensor> args = random_arguments(seed_mlp(16), 3);
  try {
    r.run(args);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 'x': expected shape [32, 128], got [16, 128]"),
              std::string::npos)
        << e.what();
  }
}

} // namespace
} // namespace tilesat::runtime
