// Seed 001's cosh, (exp(x) + exp(-x)) * 0.5, written as TTIR text, optimized with the
// `eltwise-fusion` rule set: the five ops become one fused_eltwise kernel. The fused graph
// computes the same values as the source under the reference interpreter.
#include <cstdio>
#include <tilesat/graph/interpreter.h>
#include <tilesat/graph/parser.h>
#include <tilesat/graph/printer.h>
#include <tilesat/rewrites/optimize.h>
#include <tilesat/rewrites/rule_sets.h>
#include <tilesat/runtime/compare.h>

constexpr const char* kCosh = R"(
func.func @cosh(%arg0: tensor<32x32xbf16>) -> tensor<32x32xbf16> {
  %0 = ttir.exp %arg0 : tensor<32x32xbf16> -> tensor<32x32xbf16>
  %1 = ttir.neg %arg0 : tensor<32x32xbf16> -> tensor<32x32xbf16>
  %2 = ttir.exp %1 : tensor<32x32xbf16> -> tensor<32x32xbf16>
  %3 = ttir.add %0, %2 : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xbf16>
  %4 = ttir.multiply %3, 0.5 : tensor<32x32xbf16>, f32 -> tensor<32x32xbf16>
  return %4 : tensor<32x32xbf16>
}
)";

int main() {
  using namespace tilesat;
  SourceFile file = parse_text(kCosh, "cosh.mlir");
  const Graph& source = file.modules.at(0).functions.at(0);

  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets({"eltwise-fusion"});
  rewrites::OptimizeResult r = rewrites::optimize(source, rules, rewrites::OptimizeOptions{});
  std::printf("%s\n", r.report.to_table().c_str());
  std::printf("%s", print_graph(r.graph).c_str());

  std::vector<Tensor> args = random_arguments(source, /*seed=*/3);
  runtime::Comparison c =
      runtime::compare(evaluate(r.graph, args)[0], evaluate(source, args)[0], DType::BF16);
  std::printf("%zu ops -> %zu ops, max_rel_err %.3g (%s)\n", source.num_ops(), r.graph.num_ops(),
              c.max_rel, c.ok ? "ok" : "FAIL");
  return c.ok && r.graph.num_ops() == 1 ? 0 : 1;
}
