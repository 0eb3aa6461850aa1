// Tests of op_table.cpp and ops/*.cpp: the registry, attribute defaults, and the shape/dtype
// inference of every op kind with its error messages.
#include "op_test_support.h"
#include "tilesat/graph/graph.h"
#include "tilesat/graph/op.h"

#include <gtest/gtest.h>
#include <set>

namespace tilesat {
namespace {

using IntList = std::vector<int64_t>;

using op_testing::f32;
TensorType bf16(Shape s) {
  return TensorType{DType::BF16, std::move(s)};
}

// Adds arguments of `operands` types and one `kind` op; returns the op's inferred type.
TensorType infer(OpKind kind, std::vector<TensorType> operands, Attrs attrs = {}) {
  Graph g;
  std::vector<NodeId> ids;
  for (size_t i = 0; i < operands.size(); ++i) {
    ids.push_back(g.add_argument(std::string("a").append(std::to_string(i)), operands[i]));
  }
  return g.node(g.add_op(kind, ids, std::move(attrs))).type;
}

// The message of the error inferring that op (the op is %<number of operands>).
std::string infer_error(OpKind kind, std::vector<TensorType> operands, Attrs attrs = {}) {
  try {
    TensorType t = infer(kind, std::move(operands), std::move(attrs));
    return "no error; inferred " + t.str();
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
}

Attrs attrs(std::initializer_list<Attrs::Entry> entries) {
  Attrs a;
  for (const auto& [name, value] : entries) a.set(name, value);
  return a;
}

TEST(OpTable, HeaderExample) {
  const OpInfo& info = op_info(OpKind::Transpose);
  EXPECT_EQ(info.name, "transpose");
  EXPECT_EQ(op_by_name("matmul"), OpKind::Matmul);
  EXPECT_FALSE(info.has_trait(OpTrait::Involution));
}

TEST(OpTable, EveryKindHasOneConsistentEntry) {
  std::set<std::string_view> names;
  ASSERT_EQ(all_op_kinds().size(), static_cast<size_t>(kNumOpKinds));
  for (OpKind k : all_op_kinds()) {
    const OpInfo& info = op_info(k);
    EXPECT_EQ(info.kind, k);
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(op_by_name(info.name), k);
    EXPECT_EQ(op_name(k), info.name);
    EXPECT_FALSE(info.summary.empty()) << info.name;
    EXPECT_NE(info.infer, nullptr);
    EXPECT_NE(info.eval, nullptr);
    EXPECT_GE(info.min_operands, 0);
    if (info.max_operands >= 0) {
      EXPECT_LE(info.min_operands, info.max_operands);
    }
    for (const AttrSpec& s : info.attrs) {
      if (s.default_value) {
        EXPECT_EQ(attr_kind(*s.default_value), s.kind) << s.name;
      }
      EXPECT_EQ(info.attr_spec(s.name), &s);
    }
  }
  EXPECT_EQ(op_by_name("ttir.add"), std::nullopt);
  EXPECT_EQ(op_by_name("conv3d"), std::nullopt);
}

TEST(OpTable, Traits) {
  for (OpKind k : {OpKind::Add, OpKind::Multiply, OpKind::Maximum, OpKind::Minimum}) {
    EXPECT_TRUE(op_info(k).has_trait(OpTrait::Commutative)) << op_name(k);
    EXPECT_TRUE(op_info(k).has_trait(OpTrait::Associative)) << op_name(k);
    EXPECT_TRUE(op_info(k).has_trait(OpTrait::ElementwiseBinary)) << op_name(k);
  }
  for (OpKind k : {OpKind::Subtract, OpKind::Divide}) {
    EXPECT_FALSE(op_info(k).has_trait(OpTrait::Commutative)) << op_name(k);
    EXPECT_FALSE(op_info(k).has_trait(OpTrait::Associative)) << op_name(k);
  }
  EXPECT_TRUE(op_info(OpKind::Relu).has_trait(OpTrait::Idempotent));
  EXPECT_TRUE(op_info(OpKind::Abs).has_trait(OpTrait::Idempotent));
  EXPECT_TRUE(op_info(OpKind::Neg).has_trait(OpTrait::Involution));
  EXPECT_FALSE(op_info(OpKind::Exp).has_trait(OpTrait::Idempotent));
  EXPECT_TRUE(op_info(OpKind::Constant).has_trait(OpTrait::Leaf));
  EXPECT_TRUE(op_info(OpKind::Permute).has_trait(OpTrait::DataMovement));
  EXPECT_TRUE(op_info(OpKind::Sum).has_trait(OpTrait::Reduction));
  EXPECT_TRUE(op_info(OpKind::AddRelu).has_trait(OpTrait::Fused));
  EXPECT_FALSE(op_info(OpKind::AddRelu).has_trait(OpTrait::Associative));
}

TEST(CompleteAttrs, FillsDefaultsAndChecksKinds) {
  Attrs full = complete_attrs(OpKind::Matmul, attrs({{"transpose_b", true}}));
  EXPECT_FALSE(full.get<bool>("transpose_a"));
  EXPECT_TRUE(full.get<bool>("transpose_b"));
  Attrs sum = complete_attrs(OpKind::Sum, {});
  EXPECT_EQ(sum.get<IntList>("dim_arg"), IntList{});
  EXPECT_FALSE(sum.get<bool>("keep_dim"));
  EXPECT_EQ(complete_attrs(OpKind::Softmax, {}).get<int64_t>("dimension"), -1);
  // Unknown attributes are kept; lossless widening is accepted.
  Attrs f = complete_attrs(OpKind::Full, attrs({{"shape", IntList{2}},
                                                {"fill_value", int64_t{3}},
                                                {"operand_constraints", OpaqueAttr{"[#x]"}}}));
  EXPECT_EQ(f.get<double>("fill_value"), 3.0);
  EXPECT_EQ(f.get<DType>("dtype"), DType::F32);
  EXPECT_TRUE(f.has("operand_constraints"));

  try {
    (void)complete_attrs(OpKind::Transpose, attrs({{"dim0", int64_t{0}}}));
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message,
              "'ttir.transpose': expected attribute 'dim1' (int), got none");
  }
  try {
    (void)complete_attrs(OpKind::Matmul, attrs({{"transpose_a", int64_t{1}}}));
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message,
              "'ttir.matmul': expected attribute 'transpose_a' to be bool, got int 1");
  }
}

TEST(Infer, OperandCountsAndArguments) {
  EXPECT_EQ(infer_error(OpKind::Add, {f32({2})}), "'ttir.add' %1: expected 2 operands, got 1");
  EXPECT_EQ(infer_error(OpKind::Relu, {f32({2}), f32({2})}),
            "'ttir.relu' %2: expected 1 operand, got 2");
  EXPECT_EQ(infer_error(OpKind::Linear, {f32({2})}),
            "'ttir.linear' %1: expected 2 to 3 operands, got 1");
  EXPECT_EQ(infer_error(OpKind::Concat, {}),
            "'ttir.concat' %0: expected at least 1 operand, got 0");
  EXPECT_EQ(infer_error(OpKind::Argument, {}),
            "'ttir.arg' %0: expected an op, got an argument (use add_argument)");
  Graph g;
  try {
    g.add_op(OpKind::Relu, {5}, {}, SourceLoc{"m.mlir", 3, 4});
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "m.mlir:3:4: error: 'ttir.relu' %0: expected operand 0 to be a defined value, "
                 "got %5");
  }
}

TEST(Infer, Leaves) {
  EXPECT_EQ(infer(OpKind::Constant, {},
                  attrs({{"value", std::vector<double>{1, 2, 3, 4, 5, 6}},
                         {"shape", IntList{2, 3}},
                         {"dtype", DType::BF16}})),
            bf16({2, 3}));
  EXPECT_EQ(infer(OpKind::Constant, {},
                  attrs({{"value", std::vector<double>{0.5}},
                         {"shape", IntList{}},
                         {"dtype", DType::F32}})),
            f32({}));
  EXPECT_EQ(infer_error(OpKind::Constant, {},
                        attrs({{"value", std::vector<double>{1, 2}},
                               {"shape", IntList{3}},
                               {"dtype", DType::F32}})),
            "'ttir.constant' %0: expected 'value' to hold 1 or 3 elements, got 2");
  EXPECT_EQ(infer_error(OpKind::Constant, {}, attrs({{"value", std::vector<double>{1}}})),
            "'ttir.constant' %0: expected attribute 'shape' (int list), got none");
  EXPECT_EQ(infer(OpKind::Full, {}, attrs({{"shape", IntList{4, 5}}, {"fill_value", 1.0}})),
            f32({4, 5}));
  EXPECT_EQ(infer_error(OpKind::Full, {}, attrs({{"shape", IntList{-4}}, {"fill_value", 1.0}})),
            "'ttir.full' %0: expected non-negative extents in 'shape', got [-4]");
  EXPECT_EQ(infer_error(OpKind::Full, {},
                        attrs({{"shape", IntList{1 << 30, 1 << 30}}, {"fill_value", 1.0}})),
            "'ttir.full' %0: expected at most 2^40 elements in 'shape', got [1073741824, "
            "1073741824]");
}

TEST(Infer, Matmul) {
  EXPECT_EQ(infer(OpKind::Matmul, {f32({32, 128}), f32({128, 256})}), f32({32, 256}));
  EXPECT_EQ(
      infer(OpKind::Matmul, {f32({32, 128}), f32({256, 128})}, attrs({{"transpose_b", true}})),
      f32({32, 256}));
  EXPECT_EQ(
      infer(OpKind::Matmul, {f32({128, 32}), f32({128, 256})}, attrs({{"transpose_a", true}})),
      f32({32, 256}));
  // Batch dims broadcast; rank-1 operands lose their promoted dim.
  EXPECT_EQ(infer(OpKind::Matmul, {f32({2, 1, 3, 4}), f32({5, 4, 6})}), f32({2, 5, 3, 6}));
  EXPECT_EQ(infer(OpKind::Matmul, {f32({4}), f32({4, 6})}), f32({6}));
  EXPECT_EQ(infer(OpKind::Matmul, {f32({3, 4}), f32({4})}), f32({3}));
  EXPECT_EQ(infer(OpKind::Matmul, {f32({4}), f32({4})}), f32({}));
  EXPECT_EQ(infer_error(OpKind::Matmul, {f32({32, 128}), f32({256, 10})}),
            "'ttir.matmul' %2: expected contracting dims to match, got 128 and 256");
  EXPECT_EQ(infer_error(OpKind::Matmul, {f32({2, 3, 4}), f32({5, 4, 6})}),
            "'ttir.matmul' %2: expected batch dims to broadcast, got 2 and 5");
  EXPECT_EQ(infer_error(OpKind::Matmul, {f32({}), f32({4})}),
            "'ttir.matmul' %2: expected operands of rank >= 1, got ranks 0 and 1");
  EXPECT_EQ(infer_error(OpKind::Matmul, {f32({2, 2}), bf16({2, 2})}),
            "'ttir.matmul' %2: expected operand dtypes to match, got f32 and bf16");
}

TEST(Infer, Linear) {
  EXPECT_EQ(infer(OpKind::Linear, {f32({32, 128}), f32({256, 128}), f32({256})},
                  attrs({{"transpose_b", true}})),
            f32({32, 256}));
  EXPECT_EQ(infer(OpKind::Linear, {f32({32, 128}), f32({128, 256})}), f32({32, 256}));
  EXPECT_EQ(infer_error(OpKind::Linear, {f32({32, 128}), f32({128, 256}), f32({7})}),
            "'ttir.linear' %3: expected a bias that broadcasts to 32x256, got 7");
  EXPECT_EQ(infer_error(OpKind::Linear, {f32({32, 128}), f32({128, 256}), f32({2, 32, 256})}),
            "'ttir.linear' %3: expected a bias that broadcasts to 32x256, got 2x32x256");
  EXPECT_EQ(infer(OpKind::Linear, {f32({4, 8}), f32({8, 2})},
                  attrs({{"activation", std::string("sigmoid")}})),
            f32({4, 2}));
  EXPECT_EQ(infer_error(OpKind::Linear, {f32({4, 8}), f32({8, 2})},
                        attrs({{"activation", std::string("add")}})),
            "'ttir.linear' %2: expected 'activation' to be empty or an elementwise unary op, got "
            "\"add\"");
}

TEST(Infer, ElementwiseBinary) {
  for (OpKind k : {OpKind::Add, OpKind::Subtract, OpKind::Multiply, OpKind::Divide, OpKind::Maximum,
                   OpKind::Minimum, OpKind::AddRelu}) {
    EXPECT_EQ(infer(k, {f32({32, 256}), f32({256})}), f32({32, 256})) << op_name(k);
  }
  EXPECT_EQ(infer(OpKind::Add, {f32({4, 1}), f32({1, 5})}), f32({4, 5}));
  // Seed MLP: add(tensor<32x10>, tensor<10>) {broadcast_dims = [1]}.
  EXPECT_EQ(infer(OpKind::Add, {f32({32, 10}), f32({10})}, attrs({{"broadcast_dims", IntList{1}}})),
            f32({32, 10}));
  // broadcast_dims can map a vector onto a leading dim, which NumPy alignment cannot.
  EXPECT_EQ(infer(OpKind::Add, {f32({32}), f32({32, 10})}, attrs({{"broadcast_dims", IntList{0}}})),
            f32({32, 10}));
  // A scalar takes the other operand's dtype.
  EXPECT_EQ(infer(OpKind::Multiply, {bf16({32, 32}), f32({})}), bf16({32, 32}));
  EXPECT_EQ(infer(OpKind::Multiply, {f32({}), bf16({32, 32})}), bf16({32, 32}));
  EXPECT_EQ(infer(OpKind::Add, {f32({}), f32({})}), f32({}));

  EXPECT_EQ(infer_error(OpKind::Add, {f32({32, 256}), f32({10})}),
            "'ttir.add' %2: expected broadcastable shapes, got 32x256 and 10");
  EXPECT_EQ(infer_error(OpKind::Add, {f32({2, 2}), bf16({2, 2})}),
            "'ttir.add' %2: expected operand dtypes to match, got f32 and bf16");
  EXPECT_EQ(
      infer_error(OpKind::Add, {f32({32, 10}), f32({10})}, attrs({{"broadcast_dims", IntList{0}}})),
      "'ttir.add' %2: expected dim 0 of operand 1 to be 1 or 32 (result dim 0), got 10");
  EXPECT_EQ(infer_error(OpKind::Add, {f32({32, 10}), f32({10})},
                        attrs({{"broadcast_dims", IntList{0, 1}}})),
            "'ttir.add' %2: expected 'broadcast_dims' to have 1 entries (the rank of operand 1), "
            "got [0, 1]");
  EXPECT_EQ(
      infer_error(OpKind::Add, {f32({32, 10}), f32({10})}, attrs({{"broadcast_dims", IntList{2}}})),
      "'ttir.add' %2: expected 'broadcast_dims' entries in [-2, 2), got 2");
  EXPECT_EQ(infer_error(OpKind::Add, {f32({4, 4, 4}), f32({4, 4})},
                        attrs({{"broadcast_dims", IntList{1, 1}}})),
            "'ttir.add' %2: expected distinct 'broadcast_dims', got [1, 1]");
  EXPECT_EQ(infer_error(OpKind::Add, {f32({4, 4}), f32({4, 4})},
                        attrs({{"broadcast_dims", IntList{1, 0}}})),
            "'ttir.add' %2: expected 'broadcast_dims' to be empty or the identity for operands "
            "of equal rank, got [1, 0]");
}

TEST(Infer, ElementwiseUnary) {
  for (OpKind k : {OpKind::Relu, OpKind::Gelu, OpKind::Exp, OpKind::Log, OpKind::Neg, OpKind::Abs,
                   OpKind::Sin, OpKind::Cos, OpKind::Tanh, OpKind::Sigmoid, OpKind::Silu,
                   OpKind::Sqrt, OpKind::Rsqrt, OpKind::Reciprocal}) {
    EXPECT_EQ(infer(k, {bf16({32, 32})}), bf16({32, 32})) << op_name(k);
    EXPECT_EQ(infer(k, {f32({})}), f32({})) << op_name(k);
  }
}

TEST(Infer, TransposeAndPermute) {
  auto tr = [](int64_t d0, int64_t d1) { return attrs({{"dim0", d0}, {"dim1", d1}}); };
  EXPECT_EQ(infer(OpKind::Transpose, {f32({256, 128})}, tr(1, 0)), f32({128, 256}));
  EXPECT_EQ(infer(OpKind::Transpose, {f32({2, 3, 4})}, tr(-1, -2)), f32({2, 4, 3}));
  EXPECT_EQ(infer_error(OpKind::Transpose, {f32({2, 3})}, tr(0, 5)),
            "'ttir.transpose' %1: expected 'dim1' in [-2, 2), got 5");
  EXPECT_EQ(infer_error(OpKind::Transpose, {f32({})}, tr(0, 0)),
            "'ttir.transpose' %1: expected 'dim0' in [0, 0), got 0");
  auto perm = [](IntList p) { return attrs({{"permutation", std::move(p)}}); };
  EXPECT_EQ(infer(OpKind::Permute, {f32({2, 3, 4})}, perm({2, 0, 1})), f32({4, 2, 3}));
  EXPECT_EQ(
      infer_error(OpKind::Permute, {f32({2, 3, 4})}, perm({0, 0, 1})),
      "'ttir.permute' %1: expected 'permutation' to be a permutation of [0, 3), got [0, 0, 1]");
  EXPECT_EQ(infer_error(OpKind::Permute, {f32({2, 3, 4})}, perm({0, 1})),
            "'ttir.permute' %1: expected 'permutation' to be a permutation of [0, 3), got [0, 1]");
  EXPECT_EQ(infer_error(OpKind::Permute, {f32({2, 3})}, perm({0, -1})),
            "'ttir.permute' %1: expected 'permutation' to be a permutation of [0, 2), got [0, -1]");
}

TEST(Infer, Broadcast) {
  // Seed 000: broadcast(tensor<256xf32>) {dims = [1], shape = [32, 256]}.
  EXPECT_EQ(infer(OpKind::Broadcast, {f32({256})},
                  attrs({{"shape", IntList{32, 256}}, {"dims", IntList{1}}})),
            f32({32, 256}));
  EXPECT_EQ(infer(OpKind::Broadcast, {f32({32})},
                  attrs({{"shape", IntList{32, 256}}, {"dims", IntList{0}}})),
            f32({32, 256}));
  EXPECT_EQ(infer(OpKind::Broadcast, {bf16({1, 4})}, attrs({{"shape", IntList{3, 4}}})),
            bf16({3, 4}));
  EXPECT_EQ(infer_error(OpKind::Broadcast, {f32({7})}, attrs({{"shape", IntList{32, 256}}})),
            "'ttir.broadcast' %1: expected an operand shape that broadcasts to 32x256, got 7");
  EXPECT_EQ(infer_error(OpKind::Broadcast, {f32({2, 3})}, attrs({{"shape", IntList{3}}})),
            "'ttir.broadcast' %1: expected an operand shape that broadcasts to 3, got 2x3");
  EXPECT_EQ(infer_error(OpKind::Broadcast, {f32({256})},
                        attrs({{"shape", IntList{32, 256}}, {"dims", IntList{0}}})),
            "'ttir.broadcast' %1: expected operand dim 0 to be 1 or 32 (result dim 0), got 256");
  EXPECT_EQ(infer_error(OpKind::Broadcast, {f32({256})},
                        attrs({{"shape", IntList{32, 256}}, {"dims", IntList{2}}})),
            "'ttir.broadcast' %1: expected 'dims' to be distinct dims in [0, 2), got [2]");
  EXPECT_EQ(
      infer_error(OpKind::Broadcast, {f32({256})},
                  attrs({{"shape", IntList{32, 256}}, {"dims", IntList{0, 1}}})),
      "'ttir.broadcast' %1: expected 'dims' to have 1 entries (the operand rank), got [0, 1]");
}

TEST(Infer, Reshape) {
  auto rs = [](IntList s) { return attrs({{"shape", std::move(s)}}); };
  EXPECT_EQ(infer(OpKind::Reshape, {f32({2, 3, 4})}, rs({6, 4})), f32({6, 4}));
  EXPECT_EQ(infer(OpKind::Reshape, {f32({2, 3, 4})}, rs({-1, 12})), f32({2, 12}));
  EXPECT_EQ(infer(OpKind::Reshape, {f32({2, 3, 4})}, rs({24})), f32({24}));
  EXPECT_EQ(infer(OpKind::Reshape, {f32({1})}, rs({})), f32({}));
  EXPECT_EQ(infer_error(OpKind::Reshape, {f32({2, 3})}, rs({4, 2})),
            "'ttir.reshape' %1: expected a 'shape' with 6 elements, got [4, 2] (8 elements)");
  EXPECT_EQ(infer_error(OpKind::Reshape, {f32({2, 3})}, rs({-1, -1})),
            "'ttir.reshape' %1: expected at most one -1 in 'shape', got [-1, -1]");
  EXPECT_EQ(infer_error(OpKind::Reshape, {f32({2, 3})}, rs({-1, 4})),
            "'ttir.reshape' %1: expected a 'shape' whose -1 can be inferred from 6 elements, "
            "got [-1, 4]");
  EXPECT_EQ(infer_error(OpKind::Reshape, {f32({2, 3})}, rs({-2, -3})),
            "'ttir.reshape' %1: expected extents >= -1 in 'shape', got [-2, -3]");
}

TEST(Infer, Concat) {
  auto dim = [](int64_t d) { return attrs({{"dim", d}}); };
  EXPECT_EQ(infer(OpKind::Concat, {f32({2, 3}), f32({2, 5}), f32({2, 1})}, dim(1)), f32({2, 9}));
  EXPECT_EQ(infer(OpKind::Concat, {f32({2, 3}), f32({4, 3})}, dim(-2)), f32({6, 3}));
  EXPECT_EQ(infer(OpKind::Concat, {f32({2, 3})}, dim(0)), f32({2, 3}));
  EXPECT_EQ(infer_error(OpKind::Concat, {f32({2, 3}), f32({4, 4})}, dim(0)),
            "'ttir.concat' %2: expected operand 1 to match operand 0 except in dim 0, got 4x4 and "
            "2x3");
  EXPECT_EQ(infer_error(OpKind::Concat, {f32({2, 3}), bf16({2, 3})}, dim(0)),
            "'ttir.concat' %2: expected operand dtypes to match, got f32 and bf16");
  EXPECT_EQ(infer_error(OpKind::Concat, {f32({2, 3})}, dim(2)),
            "'ttir.concat' %1: expected 'dim' in [-2, 2), got 2");
}

TEST(Infer, Slice) {
  auto sl = [](IntList b, IntList e, IntList s) {
    Attrs a = attrs({{"begins", std::move(b)}, {"ends", std::move(e)}});
    if (!s.empty()) a.set("step", std::move(s));
    return a;
  };
  EXPECT_EQ(infer(OpKind::Slice, {f32({4, 10})}, sl({1, 0}, {3, 10}, {})), f32({2, 10}));
  EXPECT_EQ(infer(OpKind::Slice, {f32({4, 10})}, sl({0, 1}, {4, 10}, {2, 3})), f32({2, 3}));
  EXPECT_EQ(infer(OpKind::Slice, {f32({4, 10})}, sl({-2, 0}, {4, -1}, {})), f32({2, 9}));
  EXPECT_EQ(infer(OpKind::Slice, {f32({4})}, sl({2}, {2}, {})), f32({0}));
  EXPECT_EQ(infer_error(OpKind::Slice, {f32({4, 10})}, sl({0, 0}, {5, 10}, {})),
            "'ttir.slice' %1: expected ends[0] in [-4, 4], got 5");
  EXPECT_EQ(infer_error(OpKind::Slice, {f32({4, 10})}, sl({3, 0}, {1, 10}, {})),
            "'ttir.slice' %1: expected begins[0] <= ends[0], got 3 and 1");
  EXPECT_EQ(infer_error(OpKind::Slice, {f32({4, 10})}, sl({0, 0}, {4, 10}, {1, 0})),
            "'ttir.slice' %1: expected step[1] > 0, got 0");
  EXPECT_EQ(infer_error(OpKind::Slice, {f32({4, 10})}, sl({0}, {4, 10}, {})),
            "'ttir.slice' %1: expected 'begins' to have 2 entries (the operand rank), got [0]");
}

TEST(Infer, HeadMoves) {
  Attrs qkv = attrs({{"num_heads", int64_t{12}}, {"parts", int64_t{3}}, {"part", int64_t{1}}});
  EXPECT_EQ(infer(OpKind::SplitHeads, {f32({2, 128, 2304})}, qkv), f32({2, 12, 128, 64}));
  qkv.set("transpose", true);
  EXPECT_EQ(infer(OpKind::SplitHeads, {f32({2, 128, 2304})}, qkv), f32({2, 12, 64, 128}));
  EXPECT_EQ(infer(OpKind::SplitHeads, {bf16({1, 7, 6})}, attrs({{"num_heads", int64_t{3}}})),
            bf16({1, 3, 7, 2}));
  EXPECT_EQ(infer_error(OpKind::SplitHeads, {f32({128, 2304})}, qkv),
            "'ttir.split_heads' %1: expected an operand of rank 3 [batch, seq, parts * heads * "
            "head_dim], got 128x2304");
  EXPECT_EQ(infer_error(OpKind::SplitHeads, {f32({1, 4, 10})},
                        attrs({{"num_heads", int64_t{2}}, {"parts", int64_t{3}}})),
            "'ttir.split_heads' %1: expected the last dim (10) to divide into 3 parts of 2 heads");
  EXPECT_EQ(
      infer_error(OpKind::SplitHeads, {f32({1, 4, 12})},
                  attrs({{"num_heads", int64_t{2}}, {"parts", int64_t{3}}, {"part", int64_t{3}}})),
      "'ttir.split_heads' %1: expected 'part' in [0, 3), got 3");
  EXPECT_EQ(infer_error(OpKind::SplitHeads, {f32({1, 4, 12})}, attrs({{"num_heads", int64_t{0}}})),
            "'ttir.split_heads' %1: expected 'num_heads' >= 1, got 0");
  EXPECT_EQ(infer(OpKind::ConcatenateHeads, {f32({2, 12, 197, 64})}), f32({2, 197, 768}));
  EXPECT_EQ(infer_error(OpKind::ConcatenateHeads, {f32({12, 197, 64})}),
            "'ttir.concatenate_heads' %1: expected an operand of rank 4 [batch, heads, seq, "
            "head_dim], got 12x197x64");
}

TEST(Infer, Attention) {
  // Grouped queries: 8 query heads over 2 key/value heads.
  EXPECT_EQ(
      infer(OpKind::Attention, {f32({2, 8, 10, 64}), f32({2, 2, 12, 64}), f32({2, 2, 12, 32})}),
      f32({2, 8, 10, 32}));
  EXPECT_EQ(infer(OpKind::Attention, {f32({2, 8, 10, 64}), f32({2, 8, 12, 64}), f32({2, 8, 12, 64}),
                                      f32({2, 1, 1, 12})}),
            f32({2, 8, 10, 64}));
  EXPECT_EQ(infer_error(OpKind::Attention, {f32({8, 10, 64}), f32({8, 12, 64}), f32({8, 12, 64})}),
            "'ttir.scaled_dot_product_attention' %3: expected query, key and value of rank 4 "
            "[batch, heads, seq, head_dim], got 8x10x64, 8x12x64 and 8x12x64");
  EXPECT_EQ(infer_error(OpKind::Attention,
                        {f32({1, 8, 10, 64}), f32({1, 3, 12, 64}), f32({1, 3, 12, 64})}),
            "'ttir.scaled_dot_product_attention' %3: expected the query's 8 heads to be a "
            "multiple of the key's 3");
  EXPECT_EQ(infer_error(OpKind::Attention,
                        {f32({1, 8, 10, 64}), f32({1, 8, 12, 32}), f32({1, 8, 12, 64})}),
            "'ttir.scaled_dot_product_attention' %3: expected the key's head_dim 32 to be the "
            "query's 64");
  EXPECT_EQ(infer_error(OpKind::Attention, {f32({1, 8, 10, 64}), f32({1, 8, 12, 64}),
                                            f32({1, 8, 12, 64}), f32({1, 1, 10, 10})}),
            "'ttir.scaled_dot_product_attention' %4: expected a mask that broadcasts to the "
            "scores 1x8x10x12, got 1x1x10x10");
  EXPECT_EQ(infer_error(OpKind::Attention,
                        {f32({1, 8, 10, 64}), f32({1, 8, 12, 64}), f32({1, 8, 12, 64})},
                        attrs({{"mask_kind", std::string("mul")}})),
            "'ttir.scaled_dot_product_attention' %3: expected 'mask_kind' \"add\" or "
            "\"select\", got \"mul\"");
}

TEST(Infer, RotaryEmbedding) {
  // cos and sin [1, 1, S, D] broadcast over batch and heads.
  EXPECT_EQ(
      infer(OpKind::RotaryEmbedding, {f32({2, 8, 10, 64}), f32({1, 1, 10, 64}), f32({10, 64})}),
      f32({2, 8, 10, 64}));
  EXPECT_EQ(
      infer_error(OpKind::RotaryEmbedding, {f32({2, 8, 10, 63}), f32({10, 63}), f32({10, 63})}),
      "'ttir.rotary_embedding' %3: expected an even head_dim, got 63");
  EXPECT_EQ(infer_error(OpKind::RotaryEmbedding, {f32({64}), f32({64}), f32({64})}),
            "'ttir.rotary_embedding' %3: expected an operand of rank >= 2 [..., seq, head_dim], "
            "got 64");
  EXPECT_EQ(
      infer_error(OpKind::RotaryEmbedding, {f32({2, 8, 10, 64}), f32({10, 1}), f32({10, 64})}),
      "'ttir.rotary_embedding' %3: expected cos [..., seq, 64] that broadcasts to the "
      "operand 2x8x10x64, got 10x1");
  EXPECT_EQ(infer_error(OpKind::RotaryEmbedding,
                        {f32({2, 8, 10, 64}), f32({10, 64}), f32({3, 8, 10, 64})}),
            "'ttir.rotary_embedding' %3: expected sin [..., seq, 64] that broadcasts to the "
            "operand 2x8x10x64, got 3x8x10x64");
}

TEST(Infer, RmsNorm) {
  EXPECT_EQ(infer(OpKind::RmsNorm, {f32({1, 128, 256}), f32({256})}), f32({1, 128, 256}));
  EXPECT_EQ(infer(OpKind::RmsNorm, {f32({1, 128, 256})}, attrs({{"axis", int64_t{1}}})),
            f32({1, 128, 256}));
  EXPECT_EQ(infer_error(OpKind::RmsNorm, {f32({1, 128, 256}), f32({128})}),
            "'ttir.rms_norm' %2: expected a weight that broadcasts to the normalized shape 256, "
            "got 128");
}

TEST(Infer, Typecast) {
  EXPECT_EQ(infer(OpKind::Typecast, {f32({2, 3})}, attrs({{"dtype", DType::BF16}})), bf16({2, 3}));
  EXPECT_EQ(infer_error(OpKind::Typecast, {f32({2})}),
            "'ttir.typecast' %1: expected attribute 'dtype' (dtype), got none");
}

TEST(Infer, Reductions) {
  for (OpKind k : {OpKind::Sum, OpKind::Mean, OpKind::Max}) {
    EXPECT_EQ(infer(k, {f32({2, 3, 4})}), f32({})) << op_name(k);
    EXPECT_EQ(infer(k, {f32({2, 3, 4})}, attrs({{"dim_arg", IntList{1}}})), f32({2, 4}));
    EXPECT_EQ(infer(k, {f32({2, 3, 4})}, attrs({{"dim_arg", IntList{-1, 0}}, {"keep_dim", true}})),
              f32({1, 3, 1}));
    EXPECT_EQ(infer(k, {bf16({2, 3})}, attrs({{"keep_dim", true}})), bf16({1, 1}));
  }
  EXPECT_EQ(infer_error(OpKind::Sum, {f32({2, 3})}, attrs({{"dim_arg", IntList{1, -1}}})),
            "'ttir.sum' %1: expected distinct dims in 'dim_arg', got [1, -1]");
  EXPECT_EQ(infer_error(OpKind::Max, {f32({2, 3})}, attrs({{"dim_arg", IntList{2}}})),
            "'ttir.max' %1: expected 'dim_arg' entries in [-2, 2), got 2");
}

TEST(Infer, Softmax) {
  EXPECT_EQ(infer(OpKind::Softmax, {f32({2, 3})}), f32({2, 3}));
  EXPECT_EQ(infer(OpKind::Softmax, {f32({2, 3})}, attrs({{"dimension", int64_t{0}}})), f32({2, 3}));
  EXPECT_EQ(infer_error(OpKind::Softmax, {f32({2, 3})}, attrs({{"dimension", int64_t{2}}})),
            "'ttir.softmax' %1: expected 'dimension' in [-2, 2), got 2");
  EXPECT_EQ(infer_error(OpKind::Softmax, {f32({})}),
            "'ttir.softmax' %1: expected 'dimension' in [0, 0), got -1");
}

} // namespace
} // namespace tilesat
