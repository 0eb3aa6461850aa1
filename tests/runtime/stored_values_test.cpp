// Programs that carry their weights (lowering::lower_program, Program::stored_value): inline
// or in a weights file checked by size and CRC-32, run with only the real inputs given.
#include "test_plans.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/compare.h"
#include "tilesat/runtime/run.h"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>

namespace tilesat::runtime {
namespace {

using ::testing::HasSubstr;
using tilesat::testing::plan_for;
using tilesat::testing::seed_mlp;

// The seed MLP with every argument but x stored; its result for the stored values.
struct Stored {
  lowering::LoweredProgram program;
  std::vector<Tensor> args;
  Tensor want;
};

Stored stored_mlp(uint64_t inline_limit) {
  Graph g = seed_mlp();
  std::vector<Tensor> args = random_arguments(g, 9);
  lowering::LowerOptions o;
  for (size_t i = 1; i < g.arguments().size(); ++i)
    o.input_values.emplace(g.node(g.arguments()[i]).name, args[i]);
  o.inline_values_limit = inline_limit;
  o.weights_file = "mlp.tsprog.weights";
  Tensor want = evaluate(g, args)[0];
  return {lowering::lower_program(plan_for(g, {{2, 2}}), tilesat::testing::test_device(8, 8), o),
          args, want};
}

std::string temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("tilesat_stored_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

void run_with_stored(const Program& p, const Stored& s) {
  std::vector<Tensor> inputs{s.args[0]};
  for (uint32_t i = 1; i < p.fb().inputs()->size(); ++i) {
    std::optional<std::vector<float>> v = p.stored_value(i);
    ASSERT_TRUE(v.has_value()) << i;
    inputs.emplace_back(s.args[i].type(), std::move(*v));
  }
  EXPECT_FALSE(p.stored_value(0).has_value()); // x is given when the program runs
  Runner r(p);
  EXPECT_TRUE(compare(r.run(inputs).outputs[0], s.want, DType::F32).ok);
}

TEST(StoredValues, InlineInTheProgram) {
  Stored s = stored_mlp(64ull << 20);
  EXPECT_TRUE(s.program.weights.empty());
  run_with_stored(Program::parse(s.program.program, "mlp"), s);
}

TEST(StoredValues, WeightsFileBesideTheProgram) {
  Stored s = stored_mlp(16);
  ASSERT_FALSE(s.program.weights.empty());
  std::string dir = temp_dir("side");
  lowering::write_program(dir + "/mlp.tsprog", s.program);
  run_with_stored(Program::load(dir + "/mlp.tsprog"), s);
  // A flipped bit in the weights file is caught by its CRC-32.
  {
    std::fstream f(dir + "/mlp.tsprog.weights", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    char c = static_cast<char>(s.program.weights[100] ^ 0x10);
    f.write(&c, 1);
  }
  try {
    Program::load(dir + "/mlp.tsprog");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("mlp.tsprog.weights: CRC-32"));
  }
  // A truncated one by its size.
  std::filesystem::resize_file(dir + "/mlp.tsprog.weights", 10);
  try {
    Program::load(dir + "/mlp.tsprog");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("got 10"));
  }
}

TEST(StoredValues, WrongShapeOrNameIsRejectedWhenLowering) {
  Graph g = seed_mlp();
  lowering::LowerOptions o;
  o.input_values.emplace("w1", Tensor(TensorType{DType::F32, Shape{2, 2}, {}}));
  EXPECT_THROW(
      lowering::lower_program(plan_for(g, {{2, 2}}), tilesat::testing::test_device(8, 8), o),
      Error);
  lowering::LowerOptions bad;
  bad.input_values.emplace("nope", Tensor(TensorType{DType::F32, Shape{2}, {}}));
  EXPECT_THROW(
      lowering::lower_program(plan_for(g, {{2, 2}}), tilesat::testing::test_device(8, 8), bad),
      Error);
}

} // namespace
} // namespace tilesat::runtime
