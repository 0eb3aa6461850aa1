// Scatters whose indices are known at import (onnx/src/positions.cpp) with the reductions that
// combine updates with the data (mul, max, min), repeated indices included. ONNX's node tests
// (ctest onnx_conformance) check none and add.
#include "test_util.h"

#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;

// ScatterElements along axis 0 of data [4] at static indices [1, 3, 1] (1 twice).
OnnxModel scatter(const std::string& reduction) {
  OnnxModel m(16);
  m.input("data", {4});
  m.input("upd", {3});
  m.int_initializer("idx", {3}, {1, 3, 1});
  ::onnx::NodeProto* n = m.node("ScatterElements", {"data", "idx", "upd"}, {"y"});
  OnnxModel::attr_s(n, "reduction", reduction);
  m.output("y", std::vector<int64_t>{4});
  return m;
}

TEST(Positions, ScatterReductionsCombineEveryUpdate) {
  std::map<std::string, Tensor> in{{"data", T({4}, {2, 3, 4, 5})}, {"upd", T({3}, {10, -1, 7})}};
  // mul: 3 * 10 * 7 at 1, 5 * -1 at 3.
  EXPECT_THAT(run(import(scatter("mul")), in).data(), ElementsAre(2, 210, 4, -5));
  // max: max(3, 10, 7) at 1, max(5, -1) at 3; min likewise.
  EXPECT_THAT(run(import(scatter("max")), in).data(), ElementsAre(2, 10, 4, 5));
  EXPECT_THAT(run(import(scatter("min")), in).data(), ElementsAre(2, 3, 4, -1));
}

} // namespace
} // namespace tilesat::onnx::testing
