// Tests of rules/canonical.rules.
#include "rewrite_test_support.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace tilesat::rewrites {
namespace {

constexpr const char* kCanonicalRules = "canonical";

REWRITE_TEST(
    Canonical, MaximumWithFullZeroIsRelu, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.input("x", {4, 8}), b.full({4, 8}, 0.0)));
    },
    "relu")

REWRITE_TEST(
    Canonical, MaximumWithZeroFirstIsRelu, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.constant({4, 8}, {0.0}), b.input("x", {4, 8})));
    },
    "relu")

REWRITE_TEST(
    Canonical, MaximumWithReshapedScalarZeroIsRelu, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.input("x", {2, 4, 8}, DType::BF16),
                         b.reshape(b.full({}, 0.0, DType::BF16), {1, 1, 1})));
    },
    "relu")

// max(x, 1) is not a relu.
REWRITE_TEST(
    Canonical, MaximumWithOneStays, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.input("x", {4, 8}), b.full({4, 8}, 1.0)));
    },
    "full maximum")

// The zeros are larger than x: relu(x) would have another shape.
REWRITE_TEST(
    Canonical, MaximumThatBroadcastsXStays, kCanonicalRules,
    [](Builder& b) {
      b.output(b.maximum(b.input("x", {8}), b.full({4, 8}, 0.0)));
    },
    "full maximum")

REWRITE_TEST(
    Canonical, TimesSigmoidIsSilu, kCanonicalRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      b.output(b.multiply(x, b.sigmoid(x)));
    },
    "silu")

REWRITE_TEST(
    Canonical, SigmoidTimesXIsSilu, kCanonicalRules,
    [](Builder& b) {
      Value x = b.input("x", {4, 8});
      b.output(b.multiply(b.sigmoid(x), x));
    },
    "silu")

// y * sigmoid(x) is not a silu.
REWRITE_TEST(
    Canonical, TimesSigmoidOfAnotherStays, kCanonicalRules,
    [](Builder& b) {
      b.output(b.multiply(b.input("y", {4, 8}), b.sigmoid(b.input("x", {4, 8}))));
    },
    "sigmoid multiply")

REWRITE_TEST(
    Canonical, ReshapeChainCollapses, kCanonicalRules,
    [](Builder& b) {
      b.output(b.reshape(b.reshape(b.input("x", {4, 8}), {8, 4}), {2, 16}));
    },
    "reshape")

REWRITE_TEST(
    Canonical, ReshapeBackVanishes, kCanonicalRules,
    [](Builder& b) {
      b.output(b.relu(b.reshape(b.reshape(b.input("x", {4, 8}), {32}), {4, 8})));
    },
    "relu")

REWRITE_TEST(
    Canonical, SoftmaxFromExplicitDecomposition, kCanonicalRules,
    [](Builder& b) {
      Value e = b.exp(b.input("x", {4, 8}));
      b.output(b.divide(e, b.broadcast(b.sum(e, {.dims = {1}, .keep_dim = true}), {4, 8})));
    },
    "softmax")

REWRITE_TEST(
    Canonical, SoftmaxFromImplicitDecomposition, kCanonicalRules,
    [](Builder& b) {
      Value e = b.exp(b.input("x", {4, 8}));
      b.output(b.divide(e, b.sum(e, {.dims = {0}, .keep_dim = true})));
    },
    "softmax")

// The sum reduces another tensor: not a softmax.
REWRITE_TEST(
    Canonical, SoftmaxNeedsTheSameExp, kCanonicalRules,
    [](Builder& b) {
      Value e = b.exp(b.input("x", {4, 8}));
      b.output(b.divide(e, b.sum(b.exp(b.input("y", {4, 8})), {.dims = {1}, .keep_dim = true})));
    },
    "exp exp sum divide")

REWRITE_TEST(
    Canonical, EqualReshapesMoveBelowAdd, "canonical",
    [](Builder& b) {
      Value x = b.input("x", {2, 3, 8});
      Value y = b.input("y", {2, 3, 8});
      b.output(b.add(b.reshape(x, {6, 8}), b.reshape(y, {6, 8})));
    },
    "add reshape")

REWRITE_TEST(
    Canonical, ReshapesOfDifferentShapesStay, "canonical",
    [](Builder& b) {
      Value x = b.input("x", {2, 3, 8});
      Value y = b.input("y", {6, 8, 1});
      b.output(b.add(b.reshape(x, {6, 8}), b.reshape(y, {6, 8})));
    },
    "reshape reshape add")

} // namespace
} // namespace tilesat::rewrites

namespace tilesat::rewrites {
namespace {

REWRITE_TEST(
    Canonical, PermuteReshapePermuteIsAReshape, "canonical",
    [](Builder& b) {
      Value p = b.permute(b.input("x", {2, 3, 3, 4}), {0, 3, 1, 2});
      b.output(b.permute(b.reshape(p, {2, 1, 4, 9}), {0, 1, 3, 2}));
    },
    "reshape")

// The last permute moves elements the reshape did not bring back: not a reshape.
REWRITE_TEST(
    Canonical, PermuteReshapePermuteThatMovesElementsStays, "canonical",
    [](Builder& b) {
      Value p = b.permute(b.input("x", {2, 3, 3, 4}), {0, 3, 1, 2});
      b.output(b.permute(b.reshape(p, {2, 1, 4, 9}), {0, 2, 1, 3}));
    },
    "permute reshape permute")

// Where element i of x lands after permute p, reshape and permute q (the result's shape
// `out`), traced the obvious way: the reference for the rule's decision.
bool chain_moves_nothing(const std::vector<int64_t>& shape, const std::vector<int64_t>& p,
                         const std::vector<int64_t>& out, const std::vector<int64_t>& q) {
  auto strides_of = [](const std::vector<int64_t>& dims) {
    std::vector<int64_t> st(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) st[i - 1] = st[i] * dims[i];
    return st;
  };
  auto permute = [&](const std::vector<int64_t>& data, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& perm, std::vector<int64_t>& out_dims) {
    out_dims.clear();
    for (int64_t k : perm) out_dims.push_back(dims[static_cast<size_t>(k)]);
    std::vector<int64_t> in_st = strides_of(dims), res(data.size());
    std::vector<int64_t> out_st = strides_of(out_dims);
    for (size_t j = 0; j < data.size(); ++j) {
      int64_t from = 0;
      for (size_t d = 0; d < perm.size(); ++d)
        from += (static_cast<int64_t>(j) / out_st[d] % out_dims[d]) *
                in_st[static_cast<size_t>(perm[d])];
      res[j] = data[static_cast<size_t>(from)];
    }
    return res;
  };
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int64_t> data(static_cast<size_t>(n)), dims;
  std::iota(data.begin(), data.end(), 0);
  std::vector<int64_t> after = permute(data, shape, p, dims);
  std::vector<int64_t> mid(q.size());
  for (size_t i = 0; i < q.size(); ++i) mid[static_cast<size_t>(q[i])] = out[i];
  after = permute(after, mid, q, dims);
  return after == data;
}

// Random permute-reshape-permute chains over small shapes with unit dims: the rule turns the
// chain into a reshape (no permute left) exactly when tracing every element moves none.
TEST(Canonical, PermuteReshapePermuteDecidedAsTracingDecides) {
  std::mt19937 rng(5);
  const std::vector<int64_t> sizes = {1, 1, 2, 2, 3, 4, 6};
  int reshapes = 0, cases = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<int64_t> shape(1 + rng() % 4);
    for (int64_t& d : shape) d = sizes[rng() % sizes.size()];
    std::vector<int64_t> p(shape.size());
    std::iota(p.begin(), p.end(), 0);
    // Half the time only unit dims move, so that many chains are reshapes.
    if (rng() % 2) std::shuffle(p.begin(), p.end(), rng);
    std::vector<int64_t> permuted;
    for (int64_t k : p) permuted.push_back(shape[static_cast<size_t>(k)]);
    // The reshape regroups the permuted dims: adjacent ones merged, or a unit dim added.
    std::vector<int64_t> mid;
    for (int64_t d : permuted) {
      if (!mid.empty() && rng() % 3 == 0)
        mid.back() *= d;
      else
        mid.push_back(d);
      if (rng() % 4 == 0) mid.push_back(1);
    }
    std::vector<int64_t> q(mid.size());
    std::iota(q.begin(), q.end(), 0);
    if (rng() % 2) std::shuffle(q.begin(), q.end(), rng);
    std::vector<int64_t> out;
    for (int64_t k : q) out.push_back(mid[static_cast<size_t>(k)]);
    const bool expected = chain_moves_nothing(shape, p, out, q);
    Graph g;
    Builder b(g);
    b.output(b.permute(b.reshape(b.permute(b.input("x", Shape(shape)), p), mid), q));
    const std::string ops = testing::op_list(testing::optimize_with(g, kCanonicalRules));
    const bool reshape = ops.find("permute") == std::string::npos;
    EXPECT_EQ(reshape, expected) << "round " << round << ": " << ops;
    reshapes += expected;
    ++cases;
  }
  EXPECT_GT(reshapes, cases / 10);
  EXPECT_LT(reshapes, cases * 9 / 10);
}

} // namespace
} // namespace tilesat::rewrites
