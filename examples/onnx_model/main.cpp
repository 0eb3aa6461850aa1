// An ONNX model imported through the C++ API (checker, shape inference, BatchNormalization
// folded into the conv), optimized with every shipped rule set, and evaluated with the
// model's own weights before and after: the results agree.
#include <cstdio>
#include <tilesat/graph/interpreter.h>
#include <tilesat/graph/printer.h>
#include <tilesat/onnx/import.h>
#include <tilesat/rewrites/optimize.h>
#include <tilesat/rewrites/rule_sets.h>
#include <tilesat/runtime/compare.h>

int main(int argc, char** argv) {
  using namespace tilesat;
  if (argc != 2) {
    std::fprintf(stderr, "usage: onnx_model MODEL.onnx\n");
    return 2;
  }
  onnx::ImportedModel m = onnx::import_file(argv[1]);
  std::printf("%s (opset %lld, %zu weights): %zu ops\n", argv[1], static_cast<long long>(m.opset),
              m.weights.size(), m.graph.num_ops());

  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::default_rule_set_names());
  rewrites::OptimizeResult r = rewrites::optimize(m.graph, rules, rewrites::OptimizeOptions{});
  std::printf("%s", print_graph(r.graph).c_str());

  std::vector<Tensor> args = onnx::arguments(m, /*seed=*/1);
  runtime::Comparison c =
      runtime::compare(evaluate(r.graph, args)[0], evaluate(m.graph, args)[0], DType::F32);
  std::printf("%zu ops -> %zu ops, max_rel_err %.3g (%s)\n", m.graph.num_ops(), r.graph.num_ops(),
              c.max_rel, c.ok ? "ok" : "FAIL");
  return c.ok ? 0 : 1;
}
