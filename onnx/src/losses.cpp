// losses.cpp: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss with targets known at
// import time (initializers, or integer inputs a model is specialized to): the targets become
// a one-hot constant, so the loss is a product and sums of graph ops.
#include "converters.h"

#include <fmt/format.h>
#include <numeric>

namespace tilesat::onnx {
namespace {

// The loss of scores `x` ([N, C, d...], log-probabilities) against `target` ([N, d...]) with
// optional class weights (input `weight_input` of the node), reduced as `reduction` says.
Value nll(NodeContext& c, Value x, const HostTensor& target, size_t weight_input) {
  Builder& b = c.builder();
  TensorType t = b.type(x);
  const Shape& s = t.shape;
  if (s.rank() < 2)
    c.fail(fmt::format("expected scores of rank >= 2 (N, C, ...), got {}", s.rank()));
  int64_t n = s[0], classes = s[1];
  int64_t inner = s.numel() / std::max<int64_t>(n * classes, 1);
  std::vector<int64_t> want{n};
  for (int64_t d = 2; d < s.rank(); ++d) want.push_back(s[d]);
  if (target.dims != want)
    c.fail(fmt::format("expected targets of shape [{}], got [{}]", fmt::join(want, ", "),
                       fmt::join(target.dims, ", ")));
  std::optional<int64_t> ignore;
  if (c.has_attr("ignore_index")) ignore = c.attr_int("ignore_index", 0);
  // One-hot of the targets over C, 0 where a target is ignored.
  std::vector<double> hot(static_cast<size_t>(s.numel()), 0.0);
  std::vector<int64_t> idx = target.ints();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < inner; ++j) {
      int64_t k = idx[static_cast<size_t>(i * inner + j)];
      if (ignore && k == *ignore) continue;
      if (k < 0 || k >= classes)
        c.fail(fmt::format("expected targets in [0, {}), got {}", classes, k));
      hot[static_cast<size_t>((i * classes + k) * inner + j)] = 1.0;
    }
  Value mask = b.constant(s, std::move(hot), t.dtype);
  if (c.has_input(weight_input)) {
    Value w = operand_like(c, weight_input, t.dtype, false);
    if (b.type(w).shape != Shape{classes})
      c.fail(fmt::format("expected class weights of shape [{}], got {}", classes,
                         b.type(w).shape.str()));
    std::vector<int64_t> wdims(static_cast<size_t>(s.rank()), 1);
    wdims[1] = classes;
    mask = b.multiply(mask, b.reshape(w, wdims));
  }
  ReduceOptions over_c{{1}, false};
  Value loss = b.neg(b.sum(b.multiply(x, mask), over_c));
  std::string reduction = c.attr_string("reduction", "mean");
  if (reduction == "none") return loss;
  if (reduction == "sum") return b.sum(loss, ReduceOptions{});
  if (reduction != "mean")
    c.fail(fmt::format("expected 'reduction' none, sum or mean, got '{}'", reduction));
  // The mean weighs each element by its target's weight (0 where ignored).
  Value total = b.sum(loss, ReduceOptions{});
  return b.divide(total, b.sum(mask, ReduceOptions{}));
}

} // namespace

void convert_nll_loss(NodeContext& c) {
  c.set_output(0, nll(c, c.operand(0), c.input_data(1, "target"), 2));
}

void convert_softmax_cross_entropy(NodeContext& c) {
  // log_softmax over the class dim (1).
  Value log_prob = log_softmax(c.builder(), c.operand(0), 1);
  c.set_output(0, nll(c, log_prob, c.input_data(1, "labels"), 2));
  if (c.wants_output(1)) c.set_output(1, log_prob);
}

} // namespace tilesat::onnx
