// Helpers shared by the per-op tests of graph/: literal tensors, the message an op's
// construction fails with, and one-result evaluation with the reference interpreter.
//
//   Tensor y = eval1({T({2}, {1, -1})}, [](Builder& b, auto v) { return b.relu(v[0]); });
//   EXPECT_EQ(error_of([](Builder& b) { b.relu(b.input("x", {2}), ...); }), "...");
#pragma once

#include "tilesat/graph/builder.h"
#include "tilesat/graph/interpreter.h"

#include <functional>
#include <string>
#include <vector>

namespace tilesat::op_testing {

/// An f32 tensor type of shape `s`: f32({2, 3}).
inline TensorType f32(Shape s) {
  return TensorType{DType::F32, std::move(s)};
}

/// A tensor of shape `s` holding `v`.
inline Tensor T(Shape s, std::vector<float> v, DType d = DType::F32) {
  return Tensor(TensorType{d, std::move(s)}, std::move(v));
}

/// The diagnostic message `f` throws while building a graph ("no error" when it does not).
inline std::string error_of(const std::function<void(Builder&)>& f) {
  Graph g;
  Builder b(g);
  try {
    f(b);
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
  return "no error";
}

/// The result of the one-result graph `body` builds over inputs shaped like `args`.
inline Tensor eval1(const std::vector<Tensor>& args,
                    const std::function<Value(Builder&, const std::vector<Value>&)>& body) {
  Graph g;
  Builder b(g);
  std::vector<Value> vs;
  for (size_t i = 0; i < args.size(); ++i) {
    vs.push_back(b.input("a" + std::to_string(i), args[i].shape(), args[i].dtype()));
  }
  b.output(body(b, vs));
  return evaluate(g, args).at(0);
}

} // namespace tilesat::op_testing
