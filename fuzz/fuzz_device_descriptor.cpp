// fuzz_device_descriptor.cpp: arbitrary bytes as a device descriptor (chip or mesh, possibly
// extending a shipped one). A tilesat::Error naming the file and field is a correct answer; a
// crash, a hang or a sanitizer report is a bug. A descriptor that loads also prices a matmul, an
// eltwise op and a softmax, so numbers the loader accepts cannot crash the cost model.
#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/placement.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/op.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  tilesat::cost::Device device;
  try {
    device = tilesat::cost::parse_device(text, "fuzz.json");
  } catch (const tilesat::Error&) {
    return 0;
  }
  using namespace tilesat;
  using namespace tilesat::cost;
  CostModel model(device);
  TensorType x{DType::BF16, Shape{256, 512}}, w{DType::BF16, Shape{512, 384}};
  TensorType y{DType::BF16, Shape{256, 384}};
  std::vector<TensorUse> mm{{x, dram_tile_placement()}, {w, dram_tile_placement()}};
  std::vector<TensorUse> one{{y, dram_tile_placement()}};
  try {
    (void)model.op(OpKind::Matmul, {}, mm, {y, dram_tile_placement()});
    (void)model.op(OpKind::Relu, {}, one, {y, dram_tile_placement()});
    (void)model.op(OpKind::Softmax, complete_attrs(OpKind::Softmax, {}), one,
                   {y, dram_tile_placement()});
  } catch (const tilesat::Error&) {
    // An op the device cannot run (e.g. operands beyond its L1) is reported, not a crash.
  }
  return 0;
}
