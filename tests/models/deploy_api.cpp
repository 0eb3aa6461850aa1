// deploy_api: the deployable-program path through the C++ API, for deploy_test.py.
//
//   deploy_api MODEL.onnx X.npy OUT.npy
//
// Imports the model with its weights (onnx::import_file), optimizes it with every shipped rule
// set and plans it for wormhole_b0 (cost::optimize_for_device), lowers it with the weights
// stored (lowering::lower_program, a weights file beside the program past 64 bytes), writes
// and loads the program (runtime::Program::load checks the weights file), runs it with X as
// the model's one real input and every other input from its stored value, twice (the second
// inference reuses the one-time results), and writes output 0.
#include "tilesat/cost/device.h"
#include "tilesat/cost/extract.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/npy.h"
#include "tilesat/lowering/device_summary.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/onnx/import.h"
#include "tilesat/rewrites/rule_sets.h"
#include "tilesat/runtime/run.h"

#include <filesystem>
#include <fmt/format.h>

int main(int argc, char** argv) {
  using namespace tilesat;
  if (argc != 4) {
    fmt::print(stderr, "usage: deploy_api MODEL.onnx X.npy OUT.npy\n");
    return 2;
  }
  try {
    onnx::ImportedModel m = onnx::import_file(argv[1]);
    cost::Device device = cost::load_device("wormhole_b0");
    cost::CostModel model(device);
    std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::rule_set_names());
    cost::Plan plan = cost::optimize_for_device(m.graph, rules, {}, model, {}).plan;
    lowering::LowerOptions lo;
    lo.input_values = m.weights;
    lo.inline_values_limit = 64;
    std::string path = std::string(argv[3]) + ".tsprog";
    lo.weights_file = std::filesystem::path(path).filename().string() + ".weights";
    lowering::write_program(path,
                            lowering::lower_program(plan, lowering::DeviceSummary::of(device), lo));
    runtime::Program p = runtime::Program::load(path);
    std::vector<Tensor> inputs;
    for (uint32_t i = 0; i < p.fb().inputs()->size(); ++i) {
      std::optional<std::vector<float>> v = p.stored_value(i);
      Tensor x = read_npy(argv[2]);
      if (v) x = Tensor(m.graph.node(m.graph.arguments()[i]).type, std::move(*v));
      inputs.push_back(std::move(x));
    }
    runtime::Runner runner(p);
    runtime::RunResult first = runner.run(inputs);
    runtime::RunResult again = runner.run(inputs);
    if (!first.profile.const_eval_ran || again.profile.const_eval_ran ||
        first.outputs[0].data() != again.outputs[0].data()) {
      fmt::print(stderr, "deploy_api: the second inference did not reuse the one-time results "
                         "or gave other values\n");
      return 1;
    }
    write_npy(argv[3], again.outputs[0]);
    fmt::print("{}: {} ops, {:.2f} us per inference, {:.2f} us once at load\n", argv[1],
               p.fb().ops()->size(), again.profile.device_total_us,
               first.profile.one_time_device_us);
  } catch (const Error& e) {
    fmt::print(stderr, "deploy_api: {}\n", e.what());
    return 1;
  }
  return 0;
}
