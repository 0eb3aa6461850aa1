// Lowering the seed MLP and small plans: program structure, lifetimes, checks, dump, errors.
#include "test_plans.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/lowering/dump.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/program.h"

#include <gmock/gmock.h>

namespace tilesat::lowering {
namespace {

using ::testing::HasSubstr;
using tilesat::testing::plan_for;
using tilesat::testing::seed_mlp;
using tilesat::testing::test_device;

TEST(Lower, SeedMlpHasConversionsMatmulsAndAHostCopy) {
  cost::Plan plan = plan_for(seed_mlp(), {{2, 2}});
  fb::ProgramT p = lower_to_object(plan, test_device(8, 8));
  // to_layout x 3 (x, w1, w2) and b1/b2 (converted too), 4 ops, then the result to the host.
  std::vector<std::string> kinds;
  for (const auto& op : p.ops) kinds.push_back(op->kind);
  EXPECT_THAT(kinds,
              ::testing::ElementsAre("to_layout", "to_layout", "matmul", "to_layout", "add_relu",
                                     "to_layout", "matmul", "to_layout", "add", "to_layout"));
  EXPECT_EQ(p.inputs.size(), 5u);
  ASSERT_EQ(p.outputs.size(), 1u);
  const fb::TensorT& out = *p.tensors[p.outputs[0]->tensor];
  EXPECT_EQ(out.layout, fb::Layout::RowMajor);
  EXPECT_EQ(out.buffer_type, fb::BufferType::DRAM);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{32, 10}));
  // Matmuls are block-partitioned with the full inner range (128 / 32 = 4 tiles).
  const fb::OpT& mm = *p.ops[2];
  EXPECT_EQ(mm.partition, fb::PartitionKind::Block);
  ASSERT_FALSE(mm.work.empty());
  EXPECT_EQ(mm.work[0]->items[0].k_end(), 4u);
  // Every intermediate buffer is freed exactly once, by the op that uses it last.
  std::vector<int> freed(p.buffers.size(), 0);
  for (size_t i = 0; i < p.ops.size(); ++i)
    for (uint32_t b : p.ops[i]->frees) {
      ++freed[b];
      EXPECT_EQ(p.buffers[b]->last_op, i);
    }
  for (const auto& in : p.inputs) EXPECT_EQ(freed[in->tensor], 0);
}

TEST(Lower, ProgramsPassTheRuntimeVerifier) {
  for (auto [gr, gc] : {std::pair{1u, 1u}, {1u, 3u}, {2u, 2u}, {8u, 8u}}) {
    std::vector<uint8_t> bytes = lower_plan(plan_for(seed_mlp(), {{gr, gc}}), test_device(8, 8));
    EXPECT_NO_THROW(runtime::Program::parse(bytes, "mlp")) << gr << "x" << gc;
  }
}

TEST(Lower, L1BuffersOfLiveValuesDoNotOverlap) {
  fb::ProgramT p = lower_to_object(plan_for(seed_mlp(), {{8, 8}}), test_device(8, 8));
  for (size_t i = 0; i < p.buffers.size(); ++i)
    for (size_t j = i + 1; j < p.buffers.size(); ++j) {
      const fb::BufferT &a = *p.buffers[i], &b = *p.buffers[j];
      if (a.buffer_type != b.buffer_type || a.bytes == 0 || b.bytes == 0) continue;
      bool live = a.first_op <= b.last_op && b.first_op <= a.last_op;
      bool bytes = a.address < b.address + b.bytes && b.address < a.address + a.bytes;
      EXPECT_FALSE(live && bytes) << "buffers " << i << " and " << j;
    }
}

TEST(Lower, TooLittleL1IsAnErrorNamingTheValue) {
  cost::Plan plan = plan_for(seed_mlp(), {{1, 1}});
  try {
    lower_plan(plan, test_device(1, 1, 64 * 1024));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("L1 of test"));
    EXPECT_THAT(e.what(), HasSubstr("needs"));
  }
}

TEST(Lower, ShardShapesMustBeWholeTiles) {
  tilesat::testing::PlanSpec spec;
  spec.place = [](const TensorType&) {
    return cost::Placement{cost::Layout::Tile,
                           cost::BufferType::L1,
                           cost::MemoryLayout::HeightSharded,
                           {1, 2},
                           {48, 128}};
  };
  Graph g;
  Builder b(g);
  b.output(b.relu(b.input("x", {64, 128})));
  try {
    lower_plan(plan_for(g, spec), test_device(2, 2));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("whole 32x32 tiles"));
  }
}

TEST(Lower, OpsWithoutKernelsAreNamed) {
  Graph g;
  Builder b(g);
  Value data = b.input("d", {8, 4});
  Value idx = b.input("i", {3}, DType::I32);
  b.output(b.take(data, idx));
  try {
    lower_plan(plan_for(g), test_device(1, 1));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("take"));
    EXPECT_THAT(e.what(), HasSubstr("no kernel"));
  }
}

TEST(Dump, ShowsDeviceTensorsOpsWorkAndFrees) {
  std::vector<uint8_t> bytes = lower_plan(plan_for(seed_mlp(), {{1, 2}}), test_device(2, 2));
  std::string text = dump_program(*fb::GetProgram(bytes.data()));
  EXPECT_THAT(text, HasSubstr("program @main v1.0 for test (grid 2x2"));
  EXPECT_THAT(text, HasSubstr("tensor<32x128xf32>"));
  EXPECT_THAT(text, HasSubstr("tile l1 Interleaved"));
  EXPECT_THAT(text, HasSubstr("matmul(t5, t6) transpose_a=false transpose_b=true"));
  EXPECT_THAT(text, HasSubstr("add_relu"));
  EXPECT_THAT(text, HasSubstr("lhs_dims=[0,1] rhs_dims=[1]"));
  EXPECT_THAT(text, HasSubstr("then frees"));
  EXPECT_THAT(text, HasSubstr("(0,1): b0..0 r0..0"));
}

} // namespace
} // namespace tilesat::lowering
