// Tests of StableHLO import (stablehlo.h): seed 000's listing and each conversion rule.
#include "text_seed_listings.h"
#include "text_test_support.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/stablehlo.h"
#include "tilesat/graph/ttir_composites.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <limits>

namespace tilesat {
namespace {

/// A one-op function `%0 = <op>` over arguments `args`, returning `%0 : result`.
std::string one_op(const std::string& args, const std::string& op, const std::string& result) {
  return "func.func @main(" + args + ") -> " + result + " {\n  %0 = " + op +
         "\n  return %0 : " + result + "\n}\n";
}

TEST(TextStableHlo, Seed000BecomesTheTtirOfSection33) {
  const Graph shlo = only(parse_text(test::kSeed000StableHlo, "shlo.mlir"));
  const Graph ttir = only(parse_text(test::kSeed000TtirInitial, "ttir.mlir"));
  // §3.3 computes relu(x) where §3.2 computes maximum(x, 0); otherwise op for op the same.
  std::vector<OpKind> kinds;
  for (NodeId id = 5; id < shlo.num_nodes(); ++id) kinds.push_back(shlo.node(id).kind);
  std::vector<OpKind> expected = {
      OpKind::Transpose, OpKind::Matmul,    OpKind::Broadcast, OpKind::Add,       OpKind::Constant,
      OpKind::Maximum,   OpKind::Transpose, OpKind::Matmul,    OpKind::Broadcast, OpKind::Add};
  EXPECT_EQ(kinds, expected);
  const Node& t = shlo.node(5);
  ASSERT_EQ(t.kind, OpKind::Transpose);
  EXPECT_EQ(t.attrs.get<int64_t>("dim0"), ttir.node(5).attrs.get<int64_t>("dim0"));
  EXPECT_EQ(t.attrs.get<int64_t>("dim1"), ttir.node(5).attrs.get<int64_t>("dim1"));
  EXPECT_EQ(shlo.node(7).attrs.get<std::vector<int64_t>>("dims"),
            ttir.node(7).attrs.get<std::vector<int64_t>>("dims"));
  EXPECT_EQ(shlo.node(7).attrs.get<std::vector<int64_t>>("shape"),
            ttir.node(7).attrs.get<std::vector<int64_t>>("shape"));
  EXPECT_EQ(shlo.node(9).attrs.get<std::vector<double>>("value"), (std::vector<double>{0.0}));
}

TEST(TextStableHlo, DotGeneralTransposeFlags) {
  struct Case {
    std::string lhs, rhs, dims;
    bool ta, tb;
  };
  for (const Case& c :
       {Case{"4x8", "8x2", "[1] x [0]", false, false}, Case{"8x4", "8x2", "[0] x [0]", true, false},
        Case{"4x8", "2x8", "[1] x [1]", false, true},
        Case{"8x4", "2x8", "[0] x [1]", true, true}}) {
    SCOPED_TRACE(c.dims);
    std::string args = "%a: tensor<" + c.lhs + "xf32>, %b: tensor<" + c.rhs + "xf32>";
    std::string op = "stablehlo.dot_general %a, %b, contracting_dims = " + c.dims + " : (tensor<" +
                     c.lhs + "xf32>, tensor<" + c.rhs + "xf32>) -> tensor<4x2xf32>";
    const Graph g = only(parse_text(one_op(args, op, "tensor<4x2xf32>"), "t.mlir"));
    const Node& mm = g.node(2);
    EXPECT_EQ(mm.kind, OpKind::Matmul);
    EXPECT_EQ(mm.attrs.get<bool>("transpose_a"), c.ta);
    EXPECT_EQ(mm.attrs.get<bool>("transpose_b"), c.tb);
  }
}

TEST(TextStableHlo, BatchedDotGeneral) {
  std::string op = "stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = "
                   "[2] x [1] : (tensor<3x4x8xf32>, tensor<3x8x2xf32>) -> tensor<3x4x2xf32>";
  const Graph g = only(parse_text(
      one_op("%a: tensor<3x4x8xf32>, %b: tensor<3x8x2xf32>", op, "tensor<3x4x2xf32>"), "t.mlir"));
  EXPECT_EQ(g.node(2).kind, OpKind::Matmul);
}

TEST(TextStableHlo, GenericDotGeneral) {
  // As --mlir-print-op-generic writes a batched dot_general with the rhs contracted on its
  // last dim: the same matmul as the custom form, checked on values.
  std::string op = "\"stablehlo.dot_general\"(%a, %b) {dot_dimension_numbers = "
                   "#stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], "
                   "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [2]>, "
                   "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision "
                   "DEFAULT>]} : (tensor<2x1x3xf32>, tensor<2x2x3xf32>) -> tensor<2x1x2xf32>";
  std::string text =
      one_op("%a: tensor<2x1x3xf32>, %b: tensor<2x2x3xf32>", op, "tensor<2x1x2xf32>");
  EXPECT_EQ(run(text, {{1, 2, 3, 4, 5, 6}, {1, 0, 0, 0, 1, 1, 1, 1, 1, 2, 0, 0}}),
            (std::vector<float>{1, 5, 15, 8}));
  EXPECT_EQ(parse_error(one_op("%a: tensor<2x3xf32>",
                               "\"stablehlo.dot_general\"(%a, %a) {dot_dimension_numbers = "
                               "#stablehlo.dot<lhs_contracting_dimensions = [1], "
                               "rhs_contracting = [1]>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> "
                               "tensor<2x2xf32>",
                               "tensor<2x2xf32>")),
            "t.mlir:2:65: error: attribute 'dot_dimension_numbers' of 'stablehlo.dot_general': "
            "unknown field 'rhs_contracting'");
}

/// dot_general by its definition: result dims [batch..., lhs free..., rhs free...].
std::vector<float> dot_by_definition(const std::vector<float>& a, const std::vector<int64_t>& as,
                                     const std::vector<float>& b, const std::vector<int64_t>& bs,
                                     const std::vector<int64_t>& lb, const std::vector<int64_t>& rb,
                                     const std::vector<int64_t>& lc,
                                     const std::vector<int64_t>& rc) {
  auto free_of = [](size_t rank, const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
    std::vector<size_t> out;
    for (size_t i = 0; i < rank; ++i) {
      auto d = static_cast<int64_t>(i);
      if (std::find(x.begin(), x.end(), d) == x.end() &&
          std::find(y.begin(), y.end(), d) == y.end())
        out.push_back(i);
    }
    return out;
  };
  std::vector<size_t> lf = free_of(as.size(), lb, lc), rf = free_of(bs.size(), rb, rc);
  auto flat = [](const std::vector<int64_t>& idx, const std::vector<int64_t>& dims) {
    int64_t f = 0;
    for (size_t i = 0; i < dims.size(); ++i) f = f * dims[i] + idx[i];
    return static_cast<size_t>(f);
  };
  // Walk every index of a and b; accumulate where batch and contracted dims agree.
  std::vector<int64_t> out_dims;
  for (int64_t d : lb) out_dims.push_back(as[static_cast<size_t>(d)]);
  for (size_t d : lf) out_dims.push_back(as[d]);
  for (size_t d : rf) out_dims.push_back(bs[d]);
  int64_t n_out = 1, n_a = 1, n_b = 1;
  for (int64_t d : out_dims) n_out *= d;
  for (int64_t d : as) n_a *= d;
  for (int64_t d : bs) n_b *= d;
  std::vector<double> out(static_cast<size_t>(n_out), 0.0);
  auto unflat = [](int64_t f, const std::vector<int64_t>& dims) {
    std::vector<int64_t> idx(dims.size());
    for (size_t i = dims.size(); i-- > 0;) {
      idx[i] = f % dims[i];
      f /= dims[i];
    }
    return idx;
  };
  for (int64_t i = 0; i < n_a; ++i) {
    std::vector<int64_t> ia = unflat(i, as);
    for (int64_t j = 0; j < n_b; ++j) {
      std::vector<int64_t> ib = unflat(j, bs);
      bool match = true;
      for (size_t k = 0; k < lb.size(); ++k) match = match && ia[lb[k]] == ib[rb[k]];
      for (size_t k = 0; k < lc.size(); ++k) match = match && ia[lc[k]] == ib[rc[k]];
      if (!match) continue;
      std::vector<int64_t> io;
      for (int64_t d : lb) io.push_back(ia[static_cast<size_t>(d)]);
      for (size_t d : lf) io.push_back(ia[d]);
      for (size_t d : rf) io.push_back(ib[d]);
      out[flat(io, out_dims)] +=
          static_cast<double>(a[static_cast<size_t>(i)]) * b[static_cast<size_t>(j)];
    }
  }
  return std::vector<float>(out.begin(), out.end());
}

std::string tensor_of(const std::vector<int64_t>& dims) {
  std::string s = "tensor<";
  for (int64_t d : dims) s += std::to_string(d) + "x";
  return s + "f32>";
}

std::string ints(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i > 0 ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

TEST(TextStableHlo, GeneralDotGeneral) {
  struct Case {
    std::vector<int64_t> as, bs, lb, rb, lc, rc, out;
  };
  const Case cases[] = {
      // flax attention scores, "bqhd,bkhd->bhqk"
      {{2, 3, 2, 4}, {2, 5, 2, 4}, {0, 2}, {0, 2}, {3}, {3}, {2, 2, 3, 5}},
      // and its values, "bhqk,bkhd->bhqd"
      {{2, 2, 3, 5}, {2, 5, 2, 4}, {0, 1}, {0, 2}, {3}, {1}, {2, 2, 3, 4}},
      // two contracted dims, no batch
      {{2, 3, 4}, {3, 4, 5}, {}, {}, {1, 2}, {0, 1}, {2, 5}},
      // an outer product over a free leading dim of each side
      {{2, 4, 3}, {2, 3, 4}, {}, {}, {2}, {1}, {2, 4, 2, 4}},
  };
  for (const Case& c : cases) {
    std::string op = "stablehlo.dot_general %a, %b, " +
                     (c.lb.empty() ? std::string()
                                   : "batching_dims = " + ints(c.lb) + " x " + ints(c.rb) + ", ") +
                     "contracting_dims = " + ints(c.lc) + " x " + ints(c.rc) + " : (" +
                     tensor_of(c.as) + ", " + tensor_of(c.bs) + ") -> " + tensor_of(c.out);
    std::string text =
        one_op("%a: " + tensor_of(c.as) + ", %b: " + tensor_of(c.bs), op, tensor_of(c.out));
    std::vector<float> a, b;
    int64_t na = 1, nb = 1;
    for (int64_t d : c.as) na *= d;
    for (int64_t d : c.bs) nb *= d;
    for (int64_t i = 0; i < na; ++i) a.push_back(static_cast<float>((i * 7) % 11) - 5.0f);
    for (int64_t i = 0; i < nb; ++i) b.push_back(static_cast<float>((i * 5) % 13) - 6.0f);
    EXPECT_EQ(run(text, {a, b}), dot_by_definition(a, c.as, b, c.bs, c.lb, c.rb, c.lc, c.rc)) << op;
  }
  EXPECT_EQ(parse_error(one_op("%a: tensor<2x3x4xf32>, %b: tensor<3x5x6xf32>",
                               "stablehlo.dot_general %a, %b, contracting_dims = [1, 2] x [0, 1] "
                               ": (tensor<2x3x4xf32>, tensor<3x5x6xf32>) -> tensor<2x6xf32>",
                               "tensor<2x6xf32>")),
            "t.mlir:2:3: error: 'stablehlo.dot_general' with contracting dims [1, 2] x [0, 1] "
            "and batching dims [] x [] on 2x3x4 and 3x5x6: dim 2 (4) and dim 1 (5) differ");
}

TEST(TextStableHlo, OtherOps) {
  const char* text = R"(
func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x3x4xf32>) -> tensor<24xbf16> {
  %0 = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %2 = stablehlo.multiply %1, %b : tensor<2x3x4xf32>
  %3 = stablehlo.subtract %2, %b : tensor<2x3x4xf32>
  %4 = stablehlo.divide %3, %b : tensor<2x3x4xf32>
  %5 = stablehlo.exponential %4 : tensor<2x3x4xf32>
  %6 = stablehlo.negate %5 : tensor<2x3x4xf32>
  %7 = stablehlo.logistic %6 : tensor<2x3x4xf32>
  %8 = stablehlo.concatenate %7, %b, dim = 0 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<4x3x4xf32>
  %9 = stablehlo.reshape %8 : (tensor<4x3x4xf32>) -> tensor<48xf32>
  %10 = "stablehlo.transpose"(%a) {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %11 = stablehlo.reshape %10 : (tensor<2x4x3xf32>) -> tensor<24xf32>
  %12 = stablehlo.convert %11 : (tensor<24xf32>) -> tensor<24xbf16>
  return %12 : tensor<24xbf16>
})";
  const Graph g = only(parse_text(text, "t.mlir"));
  EXPECT_EQ(g.node(2).kind, OpKind::Permute);
  EXPECT_EQ(g.node(2).attrs.get<std::vector<int64_t>>("permutation"),
            (std::vector<int64_t>{2, 0, 1}));
  EXPECT_EQ(g.node(3).attrs.get<std::vector<int64_t>>("shape"), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(g.node(4).kind, OpKind::Multiply);
  EXPECT_EQ(g.node(7).kind, OpKind::Exp);
  EXPECT_EQ(g.node(8).kind, OpKind::Neg);
  EXPECT_EQ(g.node(9).kind, OpKind::Sigmoid);
  EXPECT_EQ(g.node(10).kind, OpKind::Concat);
  EXPECT_EQ(g.node(12).kind, OpKind::Transpose);
  EXPECT_EQ(g.node(12).attrs.get<int64_t>("dim0"), 2);
  EXPECT_EQ(g.node(12).attrs.get<int64_t>("dim1"), 1);
  EXPECT_EQ(g.node(14).kind, OpKind::Typecast);
  EXPECT_EQ(g.node(14).attrs.get<DType>("dtype"), DType::BF16);
}

TEST(TextStableHlo, Errors) {
  EXPECT_EQ(
      parse_error(one_op("%a: tensor<4xf32>",
                         "stablehlo.cbrt %a : (tensor<4xf32>) -> tensor<4xf32>", "tensor<4xf32>")),
      "t.mlir:2:3: error: unsupported StableHLO op 'stablehlo.cbrt'");
  EXPECT_EQ(parse_error(one_op("%a: tensor<4x4xf32>",
                               "stablehlo.transpose %a, dims = [0, 0] : (tensor<4x4xf32>) -> "
                               "tensor<4x4xf32>",
                               "tensor<4x4xf32>")),
            "t.mlir:2:39: error: attribute 'dims' of 'stablehlo.transpose': expected a "
            "permutation of 0..1, got [0, 0]");
  EXPECT_EQ(parse_error(one_op("%a: tensor<4x4xf32>",
                               "stablehlo.dot_general %a, %a : (tensor<4x4xf32>, tensor<4x4xf32>) "
                               "-> tensor<4x4xf32>",
                               "tensor<4x4xf32>")),
            "t.mlir:2:3: error: 'stablehlo.dot_general' needs attribute 'contracting_dims' "
            "(generic form: 'dot_dimension_numbers')");
}

// --- Ops read as compositions (compare, select, clamp, elementwise, iota, slice, pad, reduce) ---

const std::string f3 = "tensor<3xf32>", f4 = "tensor<4xf32>";

/// `%0 = stablehlo.<op> %a[, %b] : (t, ...) -> result` over arguments %a, %b, ... of `types`.
std::string shlo(const std::vector<std::string>& types, const std::string& op,
                 const std::string& result) {
  std::string args, names, list;
  for (size_t i = 0; i < types.size(); ++i) {
    std::string sep = i == 0 ? "" : ", ";
    std::string name = std::string("%") + static_cast<char>('a' + i);
    args += sep + name + ": " + types[i];
    names += sep + name;
    list += sep + types[i];
  }
  return one_op(args, "stablehlo." + op + " " + names + " : (" + list + ") -> " + result, result);
}

TEST(TextStableHlo, CompareEveryDirection) {
  std::vector<std::vector<float>> in = {{1, 2, 3}, {2, 2, 2}};
  struct Case {
    std::string dir;
    std::vector<float> expected;
  };
  for (const Case& c : {Case{"EQ", {0, 1, 0}}, Case{"NE", {1, 0, 1}}, Case{"LT", {1, 0, 0}},
                        Case{"LE", {1, 1, 0}}, Case{"GT", {0, 0, 1}}, Case{"GE", {0, 1, 1}}}) {
    SCOPED_TRACE(c.dir);
    std::string args = "%a: tensor<3xf32>, %b: tensor<3xf32>";
    std::string pretty = "stablehlo.compare  " + c.dir +
                         ", %a, %b,  FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>";
    EXPECT_EQ(run(one_op(args, pretty, "tensor<3xi1>"), in), c.expected);
    std::string generic = "\"stablehlo.compare\"(%a, %b) {comparison_direction = "
                          "#stablehlo<comparison_direction " +
                          c.dir +
                          ">, compare_type = #stablehlo<comparison_type FLOAT>} : "
                          "(tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>";
    EXPECT_EQ(run(one_op(args, generic, "tensor<3xi1>"), in), c.expected);
  }
  // i1 is read as i32: the comparison's 1 and 0 are typecast to it.
  const SourceFile f = parse_text(shlo({f3, f3}, "compare GE,", "tensor<3xi1>"), "t.mlir");
  const Graph& g = only(f);
  EXPECT_EQ(g.node(g.results()[0].value).kind, OpKind::Typecast);
  EXPECT_EQ(g.node(g.results()[0].value).type.dtype, DType::I32);
}

TEST(TextStableHlo, CompareErrors) {
  std::string args = "%a: tensor<3xf32>, %b: tensor<3xf32>";
  std::string types = " : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>";
  EXPECT_EQ(parse_error(one_op(args, "stablehlo.compare %a, %b" + types, "tensor<3xi1>")),
            "t.mlir:2:3: error: 'stablehlo.compare' needs attribute 'comparison_direction'");
  EXPECT_EQ(parse_error(one_op(args, "stablehlo.compare GQ, %a, %b" + types, "tensor<3xi1>")),
            "t.mlir:2:26: error: attribute 'comparison_direction' of 'stablehlo.compare': "
            "expected EQ, NE, LT, LE, GT or GE, got GQ");
  EXPECT_EQ(
      parse_error(one_op(args, "stablehlo.compare GE, %a, %b, FLOATY" + types, "tensor<3xi1>")),
      "t.mlir:2:38: error: unexpected value FLOATY in 'stablehlo.compare' (expected FLOAT, "
      "SIGNED, UNSIGNED or TOTALORDER)");
  EXPECT_EQ(parse_error(one_op(args,
                               "\"stablehlo.compare\"(%a, %b) {comparison_direction = "
                               "#stablehlo<comparison_direction XX>}" +
                                   types,
                               "tensor<3xi1>")),
            "t.mlir:2:60: error: attribute 'comparison_direction' of 'stablehlo.compare': "
            "expected EQ, NE, LT, LE, GT or GE, got #stablehlo<comparison_direction XX>");
}

TEST(TextStableHlo, SelectClampPower) {
  // The pretty form of select names the predicate's type and the result's.
  std::string args = "%p: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>";
  EXPECT_EQ(run(one_op(args, "stablehlo.select %p, %a, %b : tensor<3xi1>, tensor<3xf32>", f3),
                {{1, 0, 1}, {1, 2, 3}, {4, 5, 6}}),
            (std::vector<float>{1, 5, 3}));
  // A rank-0 predicate picks one operand whole.
  EXPECT_EQ(run(shlo({"tensor<i1>", f3, f3}, "select", f3), {{0}, {1, 2, 3}, {4, 5, 6}}),
            (std::vector<float>{4, 5, 6}));
  // clamp(min, operand, max), the bounds rank-0.
  EXPECT_EQ(
      run(shlo({"tensor<f32>", f4, "tensor<f32>"}, "clamp", f4), {{0}, {-2, 0.5f, 3, 1}, {1}}),
      (std::vector<float>{0, 0.5f, 1, 1}));
  EXPECT_EQ(run(shlo({f3, f3, f3}, "clamp", f3), {{0, 0, 0}, {-1, 0.25f, 3}, {1, 0.1f, 2}}),
            (std::vector<float>{0, 0.1f, 2}));
  EXPECT_EQ(
      run(shlo({"tensor<2xf32>", "tensor<2xf32>"}, "power", "tensor<2xf32>"), {{2, 3}, {3, 2}}),
      (std::vector<float>{8, 9}));
}

TEST(TextStableHlo, ElementwiseComposites) {
  auto unary = [](const std::string& op, std::vector<float> x) {
    std::string t = "tensor<" + std::to_string(x.size()) + "xf32>";
    return run(one_op("%a: " + t, "stablehlo." + op + " %a : " + t, t), {x});
  };
  EXPECT_EQ(unary("floor", {-1.5f, -1, 0.25f, 2.75f}), (std::vector<float>{-2, -1, 0, 2}));
  EXPECT_EQ(unary("ceil", {-1.5f, -1, 0.25f, 2.75f}), (std::vector<float>{-1, -1, 1, 3}));
  EXPECT_EQ(unary("sign", {-1.5f, 0, 0.25f, 2}), (std::vector<float>{-1, 0, 1, 1}));
  EXPECT_EQ(unary("exponential_minus_one", {0}), (std::vector<float>{0}));
  EXPECT_NEAR(unary("exponential_minus_one", {1})[0], 1.7182818f, 1e-6);
  EXPECT_EQ(unary("log_plus_one", {0}), (std::vector<float>{0}));
  EXPECT_NEAR(unary("log_plus_one", {1})[0], 0.6931472f, 1e-6);
  EXPECT_EQ(unary("tan", {0}), (std::vector<float>{0}));
  EXPECT_NEAR(unary("tan", {0.5f})[0], 0.5463025f, 1e-6);
  float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(run(one_op("%a: tensor<3xf32>",
                       "stablehlo.is_finite %a : (tensor<3xf32>) -> "
                       "tensor<3xi1>",
                       "tensor<3xi1>"),
                {{1.5f, inf, std::nanf("")}}),
            (std::vector<float>{1, 0, 0}));
  // The logical ops on booleans.
  std::string b4 = "tensor<4xi1>";
  std::vector<std::vector<float>> in = {{0, 1, 0, 1}, {0, 0, 1, 1}};
  EXPECT_EQ(run(shlo({b4}, "not", b4), {in[0]}), (std::vector<float>{1, 0, 1, 0}));
  EXPECT_EQ(run(shlo({b4, b4}, "and", b4), in), (std::vector<float>{0, 0, 0, 1}));
  EXPECT_EQ(run(shlo({b4, b4}, "or", b4), in), (std::vector<float>{0, 1, 1, 1}));
  EXPECT_EQ(run(shlo({b4, b4}, "xor", b4), in), (std::vector<float>{0, 1, 1, 0}));
  EXPECT_EQ(
      run(one_op("%a: tensor<4xi1>, %b: tensor<4xi1>", "stablehlo.and %a, %b : tensor<4xi1>", b4),
          in),
      (std::vector<float>{0, 0, 0, 1}));
  // Integers are rejected: on them StableHLO's and, or, xor and not are bitwise.
  std::string i4 = "tensor<4xi32>";
  EXPECT_EQ(parse_error(shlo({i4, i4}, "and", i4)),
            "t.mlir:2:22: error: operand #0 of 'stablehlo.and' has element type i32: only "
            "booleans (i1) are supported (bitwise integer ops are not)");
  EXPECT_EQ(parse_error(shlo({f4}, "floor", f3)),
            "t.mlir:2:3: error: 'stablehlo.floor': declared result type tensor<3xf32>, but the "
            "operands give tensor<4xf32>");
  EXPECT_EQ(parse_error(shlo({f4, f4}, "floor", f4)),
            "t.mlir:2:3: error: 'stablehlo.floor' expects 1 operand, got 2");
}

TEST(TextStableHlo, Iota) {
  std::string t = "tensor<2x3xi32>";
  EXPECT_EQ(run(one_op("", "stablehlo.iota dim = 1 : " + t, t), {}),
            (std::vector<float>{0, 1, 2, 0, 1, 2}));
  std::string f = "tensor<2x3xf32>";
  EXPECT_EQ(run(one_op("", "\"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> " + f, f), {}),
            (std::vector<float>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(parse_error(one_op("", "stablehlo.iota dim = 2 : " + t, t)),
            "t.mlir:2:29: error: attribute 'dim' of 'stablehlo.iota': dim 2 is out of range for "
            "rank 2");
  EXPECT_EQ(parse_error(one_op("", "stablehlo.iota : " + t, t)),
            "t.mlir:2:3: error: 'stablehlo.iota' needs attribute 'dim'");
}

TEST(TextStableHlo, Slice) {
  std::vector<float> x = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  std::string args = "%x: tensor<3x4xf32>";
  EXPECT_EQ(run(one_op(args,
                       "stablehlo.slice %x [0:2, 1:4:2] : (tensor<3x4xf32>) -> "
                       "tensor<2x2xf32>",
                       "tensor<2x2xf32>"),
                {x}),
            (std::vector<float>{1, 3, 5, 7}));
  EXPECT_EQ(run(one_op(args,
                       "\"stablehlo.slice\"(%x) {start_indices = array<i64: 1, 0>, limit_indices "
                       "= array<i64: 3, 4>, strides = array<i64: 1, 3>} : (tensor<3x4xf32>) -> "
                       "tensor<2x2xf32>",
                       "tensor<2x2xf32>"),
                {x}),
            (std::vector<float>{4, 7, 8, 11}));
  EXPECT_EQ(parse_error(one_op(args,
                               "stablehlo.slice %x [0 2] : (tensor<3x4xf32>) -> "
                               "tensor<1x4xf32>",
                               "tensor<1x4xf32>")),
            "t.mlir:2:30: error: expected ':', got '2'");
  EXPECT_EQ(parse_error(one_op(args,
                               "stablehlo.slice %x [0:a] : (tensor<3x4xf32>) -> "
                               "tensor<1x4xf32>",
                               "tensor<1x4xf32>")),
            "t.mlir:2:30: error: expected an integer, got 'a'");
}

TEST(TextStableHlo, Pad) {
  const char* pretty = R"(
func.func @main(%x: tensor<2xf32>) -> tensor<5xf32> {
  %v = stablehlo.constant dense<9.0> : tensor<f32>
  %0 = stablehlo.pad %x, %v, low = [1], high = [2], interior = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
})";
  EXPECT_EQ(run(pretty, {{1, 2}}), (std::vector<float>{9, 1, 2, 9, 9}));
  const char* generic = R"(
func.func @main(%x: tensor<2x2xf32>) -> tensor<3x3xf32> {
  %v = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = "stablehlo.pad"(%x, %v) {edge_padding_low = array<i64: 0, 1>, edge_padding_high = array<i64: 1, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x2xf32>, tensor<f32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
})";
  EXPECT_EQ(run(generic, {{1, 2, 3, 4}}), (std::vector<float>{0, 1, 2, 0, 3, 4, 0, 0, 0}));
  auto pad = [](const std::string& attrs, const std::string& value_def) {
    return "func.func @main(%x: tensor<2xf32>, %w: tensor<f32>) -> tensor<5xf32> {\n  " +
           value_def + "\n  %0 = stablehlo.pad %x, %v, " + attrs +
           " : (tensor<2xf32>, tensor<f32>) -> tensor<5xf32>\n  return %0 : tensor<5xf32>\n}\n";
  };
  std::string cst = "%v = stablehlo.constant dense<0.0> : tensor<f32>";
  EXPECT_EQ(parse_error(pad("low = [1], high = [1], interior = [1]", cst)),
            "t.mlir:3:64: error: attribute 'interior' of 'stablehlo.pad': only zeros are "
            "supported, got [1]");
  EXPECT_EQ(parse_error(pad("low = [-1], high = [4], interior = [0]", cst)),
            "t.mlir:3:36: error: attribute 'low' of 'stablehlo.pad': negative padding -1 for dim "
            "0 is not supported");
  EXPECT_EQ(parse_error(pad("low = [1, 0], high = [2], interior = [0]", cst)),
            "t.mlir:3:36: error: attribute 'low' of 'stablehlo.pad': expected 1 values (one per "
            "dim), got 2");
  EXPECT_EQ(parse_error(pad("low = [1], high = [2], interior = [0]",
                            "%v = stablehlo.add %w, %w : tensor<f32>")),
            "t.mlir:3:26: error: 'stablehlo.pad': the padding value %v must be a rank-0 "
            "constant");
}

/// A function reducing %x: tensor<2x3xf32> with `reduce` (its `%0 = ...` line) from the
/// init value `init` (a constant).
std::string reduce_fn(const std::string& init, const std::string& reduce,
                      const std::string& result = "tensor<2xf32>") {
  return "func.func @main(%x: tensor<2x3xf32>) -> " + result +
         " {\n  %c = stablehlo.constant dense<" + init + "> : tensor<f32>\n  %0 = " + reduce +
         "\n  return %0 : " + result + "\n}\n";
}

std::string applies(const std::string& op, const std::string& dims = "[1]",
                    const std::string& result = "tensor<2xf32>") {
  return "stablehlo.reduce(%x init: %c) applies stablehlo." + op + " across dimensions = " + dims +
         " : (tensor<2x3xf32>, tensor<f32>) -> " + result;
}

TEST(TextStableHlo, ReduceAppliesAddMaxMin) {
  std::vector<std::vector<float>> x = {{1, -2, 3, 4, 5, -6}};
  EXPECT_EQ(run(reduce_fn("0.0", applies("add")), x), (std::vector<float>{2, 3}));
  EXPECT_EQ(run(reduce_fn("0xFF800000", applies("maximum")), x), (std::vector<float>{3, 5}));
  EXPECT_EQ(run(reduce_fn("0x7F800000", applies("minimum")), x), (std::vector<float>{-2, -6}));
  EXPECT_EQ(run(reduce_fn("0.0", applies("add", "[0]", "tensor<3xf32>"), "tensor<3xf32>"), x),
            (std::vector<float>{5, 3, -3}));
  EXPECT_EQ(run(reduce_fn("0.0", applies("add", "[0, 1]", "tensor<f32>"), "tensor<f32>"), x),
            (std::vector<float>{5}));
  // The identity as the type's extreme value (as some exporters write it).
  EXPECT_EQ(run(reduce_fn("-3.40282347E+38", applies("maximum")), x), (std::vector<float>{3, 5}));
  // No dims: the operand itself.
  EXPECT_EQ(run(reduce_fn("0.0", applies("add", "[]", "tensor<2x3xf32>"), "tensor<2x3xf32>"), x),
            (std::vector<float>{1, -2, 3, 4, 5, -6}));
  // Another init value is combined with the result.
  EXPECT_EQ(run(reduce_fn("10.0", applies("add")), x), (std::vector<float>{12, 13}));
  EXPECT_EQ(run(reduce_fn("4.0", applies("maximum")), x), (std::vector<float>{4, 5}));
  EXPECT_EQ(run(reduce_fn("-3.0", applies("minimum")), x), (std::vector<float>{-3, -6}));
  // An init value that is no constant is combined too.
  const char* arg_init = R"(
func.func @main(%x: tensor<2x3xf32>, %c: tensor<f32>) -> tensor<2xf32> {
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
})";
  EXPECT_EQ(run(arg_init, {x[0], {0.5f}}), (std::vector<float>{2.5f, 3.5f}));
  // i32: the identity of max is the least i32.
  const char* ints = R"(
func.func @main(%x: tensor<2x2xi32>) -> tensor<2xi32> {
  %c = stablehlo.constant dense<-2147483648> : tensor<i32>
  %0 = stablehlo.reduce(%x init: %c) applies stablehlo.maximum across dimensions = [0] : (tensor<2x2xi32>, tensor<i32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
})";
  const SourceFile f = parse_text(ints, "t.mlir");
  EXPECT_EQ(only(f).node(only(f).results()[0].value).kind, OpKind::Max);
  EXPECT_EQ(run(ints, {{1, 7, 3, -2}}), (std::vector<float>{3, 7}));
}

TEST(TextStableHlo, ReduceRegionForms) {
  std::vector<std::vector<float>> x = {{1, -2, 3, 4, 5, -6}};
  std::string region = applies("add").substr(0, 0) +
                       "stablehlo.reduce(%x init: %c) across dimensions = [1] : (tensor<2x3xf32>, "
                       "tensor<f32>) -> tensor<2xf32>\n"
                       "   reducer(%a: tensor<f32>, %b: tensor<f32>)  {\n"
                       "    %r = stablehlo.maximum %b, %a : tensor<f32>\n"
                       "    stablehlo.return %r : tensor<f32>\n  }";
  EXPECT_EQ(run(reduce_fn("0xFF800000", region), x), (std::vector<float>{3, 5}));
  std::string generic = "\"stablehlo.reduce\"(%x, %c) ({\n"
                        "  ^bb0(%a: tensor<f32>, %b: tensor<f32>):\n"
                        "    %r = \"stablehlo.add\"(%a, %b) : (tensor<f32>, tensor<f32>) -> "
                        "tensor<f32>\n"
                        "    \"stablehlo.return\"(%r) : (tensor<f32>) -> ()\n"
                        "  }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> "
                        "tensor<2xf32>";
  EXPECT_EQ(run(reduce_fn("0.0", generic), x), (std::vector<float>{2, 3}));
}

TEST(TextStableHlo, ReduceErrors) {
  EXPECT_EQ(parse_error(reduce_fn("1.0", applies("multiply"))),
            "t.mlir:3:46: error: reducer 'stablehlo.multiply' of 'stablehlo.reduce' is not "
            "supported (expected stablehlo.add, stablehlo.maximum or stablehlo.minimum)");
  EXPECT_EQ(parse_error(reduce_fn("0.0", applies("add", "[1, 1]"))),
            "t.mlir:3:80: error: attribute 'dimensions' of 'stablehlo.reduce': dim 1 is out of "
            "range or repeated for rank 2");
  EXPECT_EQ(parse_error(reduce_fn("0.0", applies("add", "[0]"))),
            "t.mlir:3:3: error: 'stablehlo.reduce': declared result type tensor<2xf32>, but the "
            "operands give tensor<3xf32>");
  EXPECT_EQ(parse_error(reduce_fn("0.0", "stablehlo.reduce(%x init: %c), (%x init: %c) applies "
                                         "stablehlo.add across dimensions = [1] : "
                                         "(tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>")),
            "t.mlir:3:53: error: a reduce of several operands needs a reducer region ('applies' "
            "names one op)");
  EXPECT_EQ(parse_error(reduce_fn("0.0", "stablehlo.reduce(%x, %c) applies stablehlo.add")),
            "t.mlir:3:27: error: expected 'init', got ','");
  std::string head = "stablehlo.reduce(%x init: %c) across dimensions = [1] : (tensor<2x3xf32>, "
                     "tensor<f32>) -> tensor<2xf32>";
  EXPECT_EQ(parse_error(reduce_fn("0.0", head)),
            "t.mlir:4:3: error: expected 'reducer' (or 'applies <op>' before 'across'), got "
            "'return'");
  auto body = [&](const std::string& args, const std::string& ops) {
    return reduce_fn("0.0", head + " reducer(" + args + ") { " + ops + " }");
  };
  std::string ab = "%a: tensor<f32>, %b: tensor<f32>";
  EXPECT_EQ(parse_error(body("%a: tensor<f32>", "")),
            "t.mlir:3:112: error: expected 2 reducer arguments per operand, got 1");
  EXPECT_EQ(parse_error(body(ab, "stablehlo.return %a : tensor<f32>")),
            "t.mlir:3:156: error: the reducer has no op (expected one op on its two arguments)");
  EXPECT_EQ(parse_error(body(ab, "%r = stablehlo.add %a, %a : tensor<f32> stablehlo.return %r : "
                                 "tensor<f32>")),
            "t.mlir:3:161: error: the reducer's op must combine its two arguments %a and %b");
  EXPECT_EQ(parse_error(body(ab, "%r = stablehlo.add %a, %b : tensor<f32> stablehlo.return %a : "
                                 "tensor<f32>")),
            "t.mlir:3:213: error: the reducer must return %r, the result of its op");
  EXPECT_EQ(parse_error(body(ab, "%r = stablehlo.add %a, %b : tensor<f32> %s = stablehlo.add "
                                 "%a, %b : tensor<f32>")),
            "t.mlir:3:196: error: expected 'stablehlo.return' (a reducer of one op is supported), "
            "got '%s'");
  EXPECT_EQ(parse_error(reduce_fn("0.0", "\"stablehlo.reduce\"(%x, %c) {dimensions = array<i64: "
                                         "1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>")),
            "t.mlir:3:3: error: 'stablehlo.reduce' needs a reducer region");
  EXPECT_EQ(parse_error(one_op("%a: tensor<4xf32>",
                               "\"stablehlo.add\"(%a, %a) ({ ^bb0(%p: tensor<f32>): }) : "
                               "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
                               "tensor<4xf32>")),
            "t.mlir:2:32: error: 'stablehlo.add' cannot have a region");
}

/// A function of one generic gather over %x and %i.
std::string gather_fn(const std::string& x, const std::string& i, const std::string& numbers,
                      const std::string& sizes, const std::string& result) {
  return one_op("%x: " + x + ", %i: " + i,
                "\"stablehlo.gather\"(%x, %i) {dimension_numbers = #stablehlo.gather<" + numbers +
                    ">, indices_are_sorted = false, slice_sizes = array<i64: " + sizes + ">} : (" +
                    x + ", " + i + ") -> " + result,
                result);
}

TEST(TextStableHlo, GatherLookups) {
  std::vector<float> table(15);
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<float>(i) + 0.5f;
  // jnp.take(table, ids, axis=0) as JAX lowers it; out-of-range ids are clamped (7 -> 4,
  // -1 -> 0), as StableHLO clamps start indices.
  std::string embed = gather_fn("tensor<5x3xf32>", "tensor<2x2x1xi32>",
                                "offset_dims = [2], collapsed_slice_dims = [0], start_index_map = "
                                "[0], index_vector_dim = 2",
                                "1, 3", "tensor<2x2x3xf32>");
  EXPECT_EQ(run(embed, {table, {2, 4, 7, -1}}),
            (std::vector<float>{6.5, 7.5, 8.5, 12.5, 13.5, 14.5, 12.5, 13.5, 14.5, 0.5, 1.5, 2.5}));
  // Along axis 1 with an implicit index vector dim.
  std::string middle = gather_fn("tensor<1x5x3xf32>", "tensor<2xi32>",
                                 "offset_dims = [0, 2], collapsed_slice_dims = [1], "
                                 "start_index_map = [1], index_vector_dim = 1",
                                 "1, 1, 3", "tensor<1x2x3xf32>");
  EXPECT_EQ(run(middle, {table, {3, 0}}), (std::vector<float>{9.5, 10.5, 11.5, 0.5, 1.5, 2.5}));
  // offset_dims ahead of the batch dim: the take is permuted.
  std::string ahead = gather_fn("tensor<5x3xf32>", "tensor<2x1xi32>",
                                "offset_dims = [0], collapsed_slice_dims = [0], start_index_map "
                                "= [0], index_vector_dim = 1",
                                "1, 3", "tensor<3x2xf32>");
  EXPECT_EQ(run(ahead, {table, {1, 4}}), (std::vector<float>{3.5, 12.5, 4.5, 13.5, 5.5, 14.5}));
}

TEST(TextStableHlo, GatherErrors) {
  auto error = [](const std::string& numbers, const std::string& sizes) {
    return parse_error(
        gather_fn("tensor<5x3xf32>", "tensor<2x1xi32>", numbers, sizes, "tensor<2x3xf32>"));
  };
  std::string lookup = "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], "
                       "index_vector_dim = 1";
  const char* expected_form = " is not supported (a lookup along one axis is: start_index_map = "
                              "collapsed_slice_dims = [a], slice_sizes 1 at a and whole "
                              "elsewhere, one index per position)";
  EXPECT_EQ(error(lookup, "1, 2"), "t.mlir:2:56: error: 'stablehlo.gather': slice_sizes [1, 2] "
                                   "of a 5x3 operand" +
                                       std::string(expected_form));
  EXPECT_EQ(error("offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], "
                  "index_vector_dim = 1",
                  "1, 3"),
            "t.mlir:2:56: error: 'stablehlo.gather': start_index_map [0, 1] with "
            "collapsed_slice_dims [0]" +
                std::string(expected_form));
  EXPECT_EQ(
      error(lookup + ", operand_batching_dims = [1], start_indices_batching_dims = [0]", "1, 3"),
      "t.mlir:2:56: error: 'stablehlo.gather': a batched gather" + std::string(expected_form));
  EXPECT_EQ(error(lookup + ", index_depth = 1", "1, 3"),
            "t.mlir:2:56: error: attribute 'dimension_numbers' of 'stablehlo.gather': unknown "
            "field 'index_depth'");
  EXPECT_EQ(error("offset_dims = [1] collapsed_slice_dims = [0]", "1, 3"),
            "t.mlir:2:56: error: attribute 'dimension_numbers' of 'stablehlo.gather': expected "
            "'}', got 'collapsed_slice_dims' (in #stablehlo.gather<offset_dims = [1] "
            "collapsed_slice_dims = [0]>)");
  EXPECT_EQ(error(lookup, "1, 3, 1"),
            "t.mlir:2:209: error: attribute 'slice_sizes' of 'stablehlo.gather': expected 2 values "
            "(one per dim), got 3");
}

// JAX's private functions (jax.nn.relu, _where, ...): each call is inlined, also when the
// callee is defined after the caller or calls another function.
const char* kCalls = R"(module @jit_f {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @scaled_relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = func.call @relu(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @scaled_relu(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %a, %a : tensor<4xf32>
    %1 = call @relu(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @relu(%a: tensor<4xf32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<0.0> : tensor<4xf32>
    %0 = stablehlo.maximum %a, %c : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
)";

TEST(TextStableHlo, CallsAreInlined) {
  const SourceFile file = parse_text(kCalls, "t.mlir");
  const Graph& main = select_function(file, "main");
  for (NodeId id = 0; id < main.num_nodes(); ++id) {
    EXPECT_TRUE(main.node(id).kind == OpKind::Argument || main.node(id).kind == OpKind::Add ||
                main.node(id).kind == OpKind::Maximum || main.node(id).kind == OpKind::Constant)
        << op_name(main.node(id).kind);
  }
  std::vector<Tensor> args{Tensor(main.node(0).type, {-1, 0.5, 2, -3})};
  std::vector<Tensor> out = evaluate(main, args);
  EXPECT_EQ(out.at(0).data(), (std::vector<float>{0, 1, 4, 0}));
  // The inlined nodes keep their place in the callee.
  EXPECT_EQ(main.node(main.results()[0].value).loc.line, 14);
}

TEST(TextStableHlo, CallErrors) {
  std::string calls = kCalls;
  auto with = [&](const std::string& from, const std::string& to) {
    std::string t = calls;
    t.replace(t.find(from), from.size(), to);
    return parse_error(t);
  };
  EXPECT_EQ(with("call @scaled_relu", "call @gelu"),
            "t.mlir:3:15: error: call of unknown function @gelu");
  EXPECT_EQ(with("%1 = call @relu(%0)", "%1 = call @scaled_relu(%0)"),
            "t.mlir:9:15: error: recursive call of @scaled_relu (calls are inlined)");
  EXPECT_EQ(with("%0 = call @scaled_relu(%x) : (tensor<4xf32>)",
                 "%0 = call @scaled_relu(%x, %x) : (tensor<4xf32>, tensor<4xf32>)"),
            "t.mlir:3:10: error: 'call' of @scaled_relu with 2 operands and 1 result: "
            "@scaled_relu takes 1 arguments and has 1 results");
  EXPECT_EQ(
      with("-> tensor<4xf32> {\n    %c", "-> tensor<4xi32> {\n    %c"),
      "t.mlir:15:12: error: type of return value #0: expected tensor<4xf32> (the type of %0), "
      "got tensor<4xi32>");
  EXPECT_EQ(with("%1 = func.call @relu(%0) : (tensor<4xf32>) -> tensor<4xf32>",
                 "%1 = func.call @relu(%0) : (tensor<4xf32>) -> tensor<2x2xf32>"),
            "t.mlir:4:10: error: 'func.call': result %1 is declared tensor<2x2xf32>, but @relu "
            "returns tensor<4xf32>");
}

TEST(TextStableHlo, ChloErf) {
  // HF Flax BERT's exact gelu, x * (1 + erf(x / sqrt(2))) / 2, writes chlo.erf.
  std::string text =
      one_op("%a: tensor<3xf32>", "chlo.erf %a : tensor<3xf32> -> tensor<3xf32>", "tensor<3xf32>");
  std::vector<float> got = run(text, {{-1, 0, 0.5}});
  EXPECT_NEAR(got[0], std::erf(-1.0f), 1e-6);
  EXPECT_EQ(got[1], 0.0f);
  EXPECT_NEAR(got[2], std::erf(0.5f), 1e-6);
}

TEST(TextStableHlo, BatchNormInference) {
  // As torch-xla exports an eval-mode BatchNorm2d (channels at feature_index 1).
  std::string t = "tensor<2xf32>";
  std::string text = one_op(
      "%x: tensor<1x2x1x2xf32>, %s: " + t + ", %o: " + t + ", %m: " + t + ", %v: " + t,
      "\"stablehlo.batch_norm_inference\"(%x, %s, %o, %m, %v) {epsilon = 9.99999974E-6 : f32, "
      "feature_index = 1 : i64} : (tensor<1x2x1x2xf32>, " +
          t + ", " + t + ", " + t + ", " + t + ") -> tensor<1x2x1x2xf32>",
      "tensor<1x2x1x2xf32>");
  std::vector<float> got = run(text, {{1, 2, 3, 4}, {2, 0.5}, {1, -1}, {1, 2}, {4, 0.25}});
  std::vector<float> want = {
      (1 - 1) * 2 / std::sqrt(4 + 1e-5f) + 1, (2 - 1) * 2 / std::sqrt(4 + 1e-5f) + 1,
      (3 - 2) * 0.5f / std::sqrt(0.25f + 1e-5f) - 1, (4 - 2) * 0.5f / std::sqrt(0.25f + 1e-5f) - 1};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(TextStableHlo, Reverse) {
  std::string pretty =
      one_op("%a: tensor<2x3xf32>", "stablehlo.reverse %a, dims = [1] : tensor<2x3xf32>",
             "tensor<2x3xf32>");
  EXPECT_EQ(run(pretty, {{1, 2, 3, 4, 5, 6}}), (std::vector<float>{3, 2, 1, 6, 5, 4}));
  std::string generic = one_op("%a: tensor<2x3xf32>",
                               "\"stablehlo.reverse\"(%a) {dimensions = array<i64: 0, 1>} : "
                               "(tensor<2x3xf32>) -> tensor<2x3xf32>",
                               "tensor<2x3xf32>");
  EXPECT_EQ(run(generic, {{1, 2, 3, 4, 5, 6}}), (std::vector<float>{6, 5, 4, 3, 2, 1}));
}

TEST(TextStableHlo, MappingTable) {
  for (const StableHloOpMapping& m : stablehlo_op_mappings()) {
    EXPECT_TRUE(m.stablehlo.starts_with("stablehlo.") || m.stablehlo.starts_with("chlo."))
        << m.stablehlo;
    EXPECT_EQ(find_stablehlo_op(m.stablehlo), &m);
    // A table op, a tt-mlir op read as a composition of table ops, or none (the results are
    // operands).
    if (m.ttir.empty()) continue;
    std::string_view ttir = m.ttir.substr(5);
    EXPECT_TRUE(op_by_name(ttir).has_value() || find_ttir_composite(ttir) != nullptr) << m.ttir;
  }
  EXPECT_EQ(find_stablehlo_op("stablehlo.cbrt"), nullptr);
}

} // namespace
} // namespace tilesat
