// Loading: corrupt, truncated and mismatched programs are rejected with an error naming the
// problem, never a crash.
#include "program_bytes.h"
#include "test_plans.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/program/storage.h"
#include "tilesat/runtime/run.h"

#include <fmt/format.h>
#include <fstream>
#include <gmock/gmock.h>
#include <iterator>
#include <random>

namespace tilesat::runtime {
namespace {

using testing::error_of;
using ::testing::HasSubstr;
using testing::pack;
using tilesat::testing::plan_for;
using tilesat::testing::seed_mlp;

std::vector<uint8_t> mlp_bytes() {
  return lowering::lower_plan(plan_for(seed_mlp(), {{2, 2}}), tilesat::testing::test_device(2, 2));
}

TEST(Loader, TruncatedProgramsAreRejected) {
  std::vector<uint8_t> good = mlp_bytes();
  for (size_t n = 0; n < good.size(); n += 7) {
    std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_NE(error_of(cut), "") << "prefix of " << n << " bytes";
  }
}

TEST(Loader, BitFlipsAreRejectedOrHarmless) {
  std::vector<Tensor> args = random_arguments(seed_mlp(), 5);
  int accepted = testing::accepted_bit_flips(mlp_bytes(), 3000, 11, [&](const Program& p) {
    Runner r(p, 1);
    (void)r.run(args);
  });
  EXPECT_LT(accepted, 3000);
}

// The file's CRC-32 trailer catches every single flipped bit, in the program and in the trailer.
TEST(Loader, EverySingleBitFlipOfAProgramFileIsRejected) {
  const std::string dir = ::testing::TempDir();
  const std::string good_path = dir + "/flip_good.tsprog", bad_path = dir + "/flip_bad.tsprog";
  lowering::write_program(good_path, mlp_bytes());
  (void)Program::load(good_path);
  std::ifstream in(good_path, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t accepted = 0;
  for (size_t bit = 0; bit < good.size() * 8; ++bit) {
    std::string bad = good;
    bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
    std::ofstream(bad_path, std::ios::binary | std::ios::trunc) << bad;
    try {
      (void)Program::load(bad_path);
      ++accepted;
      ADD_FAILURE() << "bit " << bit << " flipped was accepted";
    } catch (const Error&) {
    }
    if (accepted > 3) break;
  }
}

TEST(Loader, WrongIdentifierAndVersion) {
  std::vector<uint8_t> bytes = mlp_bytes();
  bytes[4] = 'X';
  EXPECT_THAT(error_of(bytes), HasSubstr("file identifier"));
  fb::ProgramT p;
  fb::GetProgram(mlp_bytes().data())->UnPackTo(&p);
  p.version_major = 2;
  EXPECT_THAT(error_of(pack(p)),
              HasSubstr(fmt::format("p.tsprog: version: expected major version 1, got 2.{}",
                                    program::kVersionMinor)));
}

fb::ProgramT unpacked() {
  fb::ProgramT p;
  std::vector<uint8_t> bytes = mlp_bytes();
  fb::GetProgram(bytes.data())->UnPackTo(&p);
  return p;
}

TEST(Loader, BufferOutsideL1) {
  fb::ProgramT p = unpacked();
  for (auto& b : p.buffers)
    if (b->buffer_type == fb::BufferType::L1) {
      b->address = p.device->l1_bytes_per_core - 64;
      break;
    }
  EXPECT_THAT(error_of(pack(p)), HasSubstr("inside the 1048576 bytes of L1 per core"));
}

// A device may have more DRAM than the CPU model backs (kMaxHostDramBytes, 32 GiB: a
// Blackhole p150's); a program using DRAM past it is rejected when loaded, naming the limit.
TEST(Loader, DramBeyondTheHostModel) {
  fb::ProgramT p = unpacked();
  p.device->dram_bytes = uint64_t{48} << 30;
  for (auto& b : p.buffers)
    if (b->buffer_type == fb::BufferType::DRAM) {
      b->address = (uint64_t{32} << 30) - b->bytes + 64;
      break;
    }
  EXPECT_THAT(error_of(pack(p)),
              HasSubstr("expected DRAM use within the runtime's 34359738368 bytes"));
}

TEST(Loader, OverlappingLiveBuffers) {
  fb::ProgramT p = unpacked();
  std::vector<fb::BufferT*> l1;
  for (auto& b : p.buffers)
    if (b->buffer_type == fb::BufferType::L1) l1.push_back(b.get());
  ASSERT_GE(l1.size(), 2u);
  // The two converted matmul operands are live together (ops 0..2).
  l1[1]->address = l1[0]->address;
  EXPECT_THAT(error_of(pack(p)), HasSubstr("expected live L1 buffers not to overlap"));
}

TEST(Loader, WorkMustCoverEveryTileOnce) {
  fb::ProgramT p = unpacked();
  auto& items = p.ops[2]->work[0]->items;
  ASSERT_FALSE(items.empty());
  items.push_back(items[0]);
  EXPECT_THAT(error_of(pack(p)), HasSubstr("expected each output tile once"));
  p = unpacked();
  p.ops[2]->work.clear();
  EXPECT_THAT(error_of(pack(p)), HasSubstr("ops[2].work: expected all"));
}

TEST(Loader, WorkItemsInsideTheOutput) {
  fb::ProgramT p = unpacked();
  fb::WorkItem& w = p.ops[2]->work[0]->items[0];
  w = fb::WorkItem(0, 1, 0, 9, w.col_begin(), w.col_end(), w.k_begin(), w.k_end());
  EXPECT_THAT(error_of(pack(p)), HasSubstr("inside the output's"));
}

TEST(Loader, DeviceAndShapeMismatches) {
  fb::ProgramT p = unpacked();
  p.device->grid_rows = 1; // buffers use a 2x2 grid
  EXPECT_THAT(error_of(pack(p)), HasSubstr("inside the 1x2 grid"));
  p = unpacked();
  p.tensors[7]->shape = {32, 255};
  EXPECT_NE(error_of(pack(p)), "");
  p = unpacked();
  p.ops[2]->inputs = {7, 6}; // an input defined later
  EXPECT_THAT(error_of(pack(p)), HasSubstr("expected a tensor defined before the op runs"));
}

// A program with every network op: conv2d + relu, max pool, avg pool, layer_norm, rms_norm,
// take, where, a comparison and the transformer ops.
std::vector<uint8_t> nn_bytes() {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {1, 4, 9, 9});
  Value c = b.conv2d(x, b.input("w", {6, 2, 3, 3}), b.input("bias", {6}),
                     {.padding = {1, 1, 1, 1}, .groups = 2, .activation = "relu"});
  b.output(b.max_pool2d(c, {2, 2}, {.stride = {2, 2}}));
  b.output(b.avg_pool2d(x, {3, 3}));
  Value h = b.input("h", {2, 5, 16});
  Value scale = b.input("scale", {16});
  b.output(b.layer_norm(h, &scale, &scale));
  b.output(b.rms_norm(h, &scale));
  b.output(b.rotary_embedding(h, scale, scale));
  b.output(b.take(h, b.input("ids", {3}, DType::I32), 1));
  b.output(b.where(b.less(h, scale), h, scale));
  b.output(b.concatenate_heads(b.split_heads(b.input("qkv", {1, 5, 12}), 2, 3, 1)));
  Value heads = b.input("heads", {1, 2, 5, 3});
  Value mask = b.input("mask", {5});
  b.output(b.scaled_dot_product_attention(heads, heads, heads, &mask));
  return lowering::lower_plan(plan_for(g, {{1, 1}}), tilesat::testing::test_device(1, 1));
}

fb::ProgramT nn_unpacked() {
  fb::ProgramT p;
  std::vector<uint8_t> bytes = nn_bytes();
  fb::GetProgram(bytes.data())->UnPackTo(&p);
  return p;
}

fb::OpT& op_of_kind(fb::ProgramT& p, const std::string& kind) {
  for (auto& op : p.ops)
    if (op->kind == kind) return *op;
  throw std::runtime_error("no op " + kind);
}

TEST(Loader, NetworkOpsLoadAndDamagedParametersAreNamed) {
  EXPECT_EQ(error_of(nn_bytes()), "");
  auto damaged = [](const std::string& kind, auto damage) {
    fb::ProgramT p = nn_unpacked();
    damage(op_of_kind(p, kind));
    return error_of(pack(p));
  };
  // Sets field `i` of the op's window (schema order: kernel h/w, stride h/w, padding t/l/b/r,
  // dilation h/w) to `v`.
  auto set_window = [](fb::OpT& op, int i, uint32_t v) {
    std::unique_ptr<fb::Window2d>& w = op.params.type == fb::OpParams::Conv2d
                                           ? op.params.AsConv2d()->window
                                           : op.params.AsPool2d()->window;
    uint32_t f[10] = {w->kernel_h(),   w->kernel_w(),  w->stride_h(),   w->stride_w(),
                      w->pad_top(),    w->pad_left(),  w->pad_bottom(), w->pad_right(),
                      w->dilation_h(), w->dilation_w()};
    f[i] = v;
    w = std::make_unique<fb::Window2d>(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9]);
  };
  EXPECT_THAT(damaged("conv2d", [&](fb::OpT& op) { set_window(op, 1, 2); }),
              HasSubstr(".params.window: expected the weight's 3x3 kernel"));
  EXPECT_THAT(damaged("conv2d", [&](fb::OpT& op) { set_window(op, 2, 0); }),
              HasSubstr("expected kernel, stride and dilation in [1, 1048576]"));
  EXPECT_THAT(damaged("conv2d", [](fb::OpT& op) { op.params.AsConv2d()->groups = 3; }),
              HasSubstr(".params.groups: expected groups dividing 4 input and 6 output"));
  EXPECT_THAT(damaged("conv2d", [](fb::OpT& op) { op.params.AsConv2d()->window.reset(); }),
              HasSubstr("expected the weight's 3x3 kernel"));
  EXPECT_THAT(damaged("conv2d", [](fb::OpT& op) { op.params.AsConv2d()->has_bias = false; }),
              HasSubstr(".params.has_bias"));
  EXPECT_THAT(damaged("conv2d", [&](fb::OpT& op) { set_window(op, 4, 0); }),
              HasSubstr("ops[3]: expected the conv2d result shape [1, 6, 8, 9], got [1, 6, 9, 9]"));
  EXPECT_THAT(damaged("max_pool2d", [&](fb::OpT& op) { set_window(op, 0, 40); }),
              HasSubstr("expected the dilated kernel inside the padded 9x9 input"));
  EXPECT_THAT(damaged("avg_pool2d", [&](fb::OpT& op) { set_window(op, 9, 5); }),
              HasSubstr("expected the dilated kernel inside the padded 9x9 input"));
  EXPECT_THAT(
      damaged("max_pool2d",
              [](fb::OpT& op) { op.params.AsPool2d()->kind = static_cast<fb::PoolKind>(9); }),
      HasSubstr(".params.kind: expected max or avg"));
  EXPECT_THAT(damaged("layer_norm", [](fb::OpT& op) { op.params.AsLayerNorm()->axis = 3; }),
              HasSubstr(".params.axis: expected a dim of the rank-3 input, got 3"));
  EXPECT_THAT(damaged("layer_norm", [](fb::OpT& op) { op.params.AsLayerNorm()->epsilon = -1; }),
              HasSubstr("expected a non-negative epsilon"));
  EXPECT_THAT(
      damaged("layer_norm", [](fb::OpT& op) { op.params.AsLayerNorm()->has_scale = false; }),
      HasSubstr("expected a bias only with a scale"));
  EXPECT_THAT(damaged("rms_norm", [](fb::OpT& op) { op.params.AsRmsNorm()->has_weight = false; }),
              HasSubstr(".inputs: expected 1 inputs (has_weight false), got 2"));
  EXPECT_THAT(damaged("rms_norm", [](fb::OpT& op) { op.params.AsRmsNorm()->axis = -1; }),
              HasSubstr(".params.axis: expected a dim of the rank-3 input, got -1"));
  EXPECT_THAT(damaged("rotary_embedding", [](fb::OpT& op) { op.inputs.resize(2); }),
              HasSubstr(".inputs: expected 3..3 inputs, got 2"));
  EXPECT_THAT(damaged("take", [](fb::OpT& op) { op.params.AsTake()->dim = -1; }),
              HasSubstr(".params.dim: expected a dim of the rank-3 data, got -1"));
  EXPECT_THAT(damaged("take", [](fb::OpT& op) { op.params.AsTake()->dim = 0; }),
              HasSubstr("expected the take result shape [3, 5, 16], got [2, 3, 16]"));
  EXPECT_THAT(damaged("split_heads", [](fb::OpT& op) { op.params.AsStridedCopy()->base = 9; }),
              HasSubstr(".params: expected every read inside the input"));
  EXPECT_THAT(
      damaged("split_heads", [](fb::OpT& op) { op.params.AsStridedCopy()->strides.pop_back(); }),
      HasSubstr(".params: expected one stride per dim of shape"));
  EXPECT_THAT(
      damaged("concatenate_heads", [](fb::OpT& op) { op.params.AsStridedCopy()->shape[1] = 4; }),
      HasSubstr(".params.shape: expected as many elements as the result"));
  EXPECT_THAT(
      damaged("concatenate_heads", [](fb::OpT& op) { op.params.AsStridedCopy()->strides[0] = -1; }),
      HasSubstr("expected extents and strides in [0, 2^31]"));
  EXPECT_THAT(damaged("scaled_dot_product_attention", [](fb::OpT& op) { op.inputs.resize(2); }),
              HasSubstr(".inputs: expected 3..4 inputs, got 2"));
  EXPECT_THAT(
      damaged("scaled_dot_product_attention", [](fb::OpT& op) { op.inputs[1] = op.inputs[3]; }),
      HasSubstr("expected query, key and value of rank 4"));
  EXPECT_THAT(damaged("where", [](fb::OpT& op) { op.inputs.pop_back(); }),
              HasSubstr(".inputs: expected 3..3 inputs, got 2"));
  EXPECT_THAT(
      damaged("lt",
              [](fb::OpT& op) { op.params.AsBinary()->kind = static_cast<fb::BinaryKind>(42); }),
      HasSubstr("expected a known binary op"));
}

TEST(Loader, TakeIndicesOutsideTheTableAreARunTimeError) {
  Graph g;
  Builder b(g);
  Value table_in = b.input("table", {4, 8});
  b.output(b.take(table_in, b.input("ids", {2, 3}, DType::I32)));
  Program p = Program::parse(
      lowering::lower_plan(plan_for(g, {{1, 1}}), tilesat::testing::test_device(1, 1)), "t");
  Tensor table(TensorType{DType::F32, Shape{4, 8}, {}});
  Tensor ids(TensorType{DType::I32, Shape{2, 3}, {}}, {0.0f, 1.0f, -4.0f, 3.0f, 4.0f, 2.0f});
  Runner r(p, 1);
  try {
    r.run(std::vector<Tensor>{table, ids});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("(take): expected indices in [-4, 4), got 4 at flat position 4"));
  }
}

TEST(Loader, LoadNamesTheMissingFile) {
  try {
    Program::load("/nonexistent/p.tsprog");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("/nonexistent/p.tsprog"));
  }
}

} // namespace
} // namespace tilesat::runtime
