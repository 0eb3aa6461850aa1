// check.cpp: `tilesat check INPUT [--device NAME]` runs the whole pipeline on one function --
// saturate, plan for the device, lower to a program, run it on the CPU model -- and compares
// every result with the reference interpreter run on the unoptimized graph, on the same inputs
// (random, or `--input NAME=FILE.npy`). It prints one line per result and exits non-zero when any
// is beyond the tolerance of the lowest-precision dtype the graph computes in (runtime/compare.h).
#include "cli.h"
#include "tilesat/cost/device.h"
#include "tilesat/cost/extract.h"
#include "tilesat/cost/mesh_plan.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/mesh_interpreter.h"
#include "tilesat/graph/module.h"
#include "tilesat/lowering/lower.h"
#include "tilesat/runtime/compare.h"
#include "tilesat/runtime/mesh_run.h"

#include <cstring>
#include <fmt/format.h>
#include <map>

namespace tilesat::cli {
namespace {

/// The least precise dtype any value of `g` has: the tolerance the comparison allows.
DType coarsest_dtype(const Graph& g) {
  auto rank = [](DType d) { return d == DType::BFP8_B ? 2 : d == DType::BF16 ? 1 : 0; };
  DType worst = DType::F32;
  for (NodeId id = 0; id < g.num_nodes(); ++id) {
    if (rank(g.node(id).type.dtype) > rank(worst)) worst = g.node(id).type.dtype;
  }
  return worst;
}

/// Whether two results hold the same bits (a NaN the same NaN: float == would call it unequal).
bool same_bits(const Tensor& a, const Tensor& b) {
  return a.data().size() == b.data().size() &&
         std::memcmp(a.data().data(), b.data().data(), a.data().size() * sizeof(float)) == 0;
}

} // namespace

int run_check(const Options& o) {
  std::map<std::string, Tensor, std::less<>> weights;
  SourceFile file = load_input(o, &weights);
  apply_compile_options(file, o);
  const Graph& source = select_function(file, o.function);
  SelectedRules rules = selected_rules(o);
  cost::CostOptions copts = cost_options(o, rules);
  cost::Device device = device_for_input(o, file);
  cost::CostModel model(device, copts);
  // A per-chip graph (one with multi-chip ops) runs as written on every chip of the device's
  // mesh, compared with interpret_mesh; any other graph on a mesh device is partitioned over
  // the mesh (mesh_plan.h) and compared with the one-device reference.
  MeshShape mesh = device.mesh ? device.mesh->shape : MeshShape{1, 1};
  bool spmd = is_per_chip_graph(source);
  bool partitioned = !spmd && !cost::mesh_groups(device).empty();
  cost::DevicePlanResult planned = plan_for_device(o, source, rules, model);
  if (partitioned) mesh = planned.plan.mesh_shape;
  std::vector<uint8_t> bytes =
      lowering::lower_plan(planned.plan, lowering::DeviceSummary::of(device));
  runtime::Program program = runtime::Program::parse(std::move(bytes), source.name());

  // Inputs: an ONNX model's own weights (moved, so a large model's are held once), the files
  // of --input, every other argument drawn from the seed.
  std::map<std::string, std::string> files = input_files(o, source);
  std::vector<bool> stored(source.arguments().size(), false);
  for (size_t i = 0; i < stored.size(); ++i) {
    const std::string& name = source.node(source.arguments()[i]).name;
    stored[i] = weights.count(name) != 0 || files.count(name) != 0;
  }
  std::vector<Tensor> args = random_arguments(source, o.random_seed.value_or(1),
                                              random_init(o, RandomInit::FanIn), stored);
  for (size_t i = 0; i < stored.size(); ++i) {
    const Node& a = source.node(source.arguments()[i]);
    if (auto f = files.find(a.name); f != files.end()) {
      args[i] = read_argument(a, f->second);
    } else if (stored[i]) {
      args[i] = std::move(weights.find(a.name)->second);
    }
  }
  std::vector<Tensor> reference =
      spmd ? interpret_mesh(source, args, mesh) : evaluate(source, args);

  // The program's inputs are the graph's arguments by name.
  std::map<std::string, size_t, std::less<>> arg_index;
  for (size_t i = 0; i < source.arguments().size(); ++i)
    arg_index.emplace(source.node(source.arguments()[i]).name, i);
  std::vector<Tensor> inputs;
  for (uint32_t i = 0; program.fb().inputs() != nullptr && i < program.fb().inputs()->size(); ++i) {
    const fb::NamedTensor* in = program.fb().inputs()->Get(i);
    auto it = arg_index.find(in->name()->str());
    if (it == arg_index.end())
      throw InternalError(fmt::format("program input '{}' is no argument of @{}", in->name()->str(),
                                      source.name()));
    inputs.push_back(std::move(args[it->second])); // the reference is computed
  }
  runtime::MeshRunner runner(program, o.threads.value_or(0));
  runtime::MeshRunResult got = runner.run(inputs);
  // A second inference reuses the one-time (const-eval) results: it must give the same bits.
  if (got.chips[0].const_eval_ran) {
    runtime::MeshRunResult again = runner.run(inputs);
    for (size_t i = 0; i < again.outputs.size() && i < got.outputs.size(); ++i)
      if (!same_bits(again.outputs[i], got.outputs[i]))
        throw InternalError(fmt::format("output {} differs in the second inference, which reuses "
                                        "the const-eval results",
                                        i));
  }
  if (got.outputs.size() != reference.size())
    throw InternalError(fmt::format("the program has {} outputs, the function {} results",
                                    got.outputs.size(), reference.size()));

  DType dtype = coarsest_dtype(source);
  // Ops on the longest path to each value: bf16 results are compared with a tolerance that
  // grows with it (runtime/compare.h).
  std::vector<size_t> depth(source.num_nodes(), 0);
  for (NodeId n : source.topological_order()) {
    const Node& node = source.node(n);
    if (node.kind == OpKind::Argument) continue;
    for (NodeId o : node.operands) depth[n] = std::max(depth[n], depth[o]);
    ++depth[n];
  }
  fmt::print("check @{} on {}{}: {} ops -> {} device ops, predicted {:.2f} us{}, host {:.1f} us\n",
             source.name(), device.name,
             spmd ? fmt::format(" ({} chips, compared with interpret_mesh)", mesh[0] * mesh[1])
             : partitioned ? fmt::format(" ({} chips as {}x{}, partitioned)", mesh[0] * mesh[1],
                                         mesh[0], mesh[1])
                           : "",
             source.num_ops(), planned.plan.ops.size(), planned.plan.predicted_total_us,
             planned.plan.predicted_one_time_us > 0
                 ? fmt::format(" (+ {:.2f} us once at load)", planned.plan.predicted_one_time_us)
                 : "",
             got.chips[0].host_total_us);
  bool ok = true;
  for (size_t i = 0; i < reference.size(); ++i) {
    runtime::Comparison c =
        runtime::compare(got.outputs[i], reference[i], dtype, depth[source.results()[i].value]);
    std::string name =
        source.results()[i].name.empty() ? fmt::format("result{}", i) : source.results()[i].name;
    if (!c.shape_ok) {
      fmt::print("  {} {}: FAIL shape {} (reference {})\n", name, reference[i].shape().str(),
                 got.outputs[i].shape().str(), reference[i].shape().str());
    } else {
      fmt::print("  {} {}: max_abs_err={:.3g} max_rel_err={:.3g} tolerance={:.3g} ({}) {}{}\n",
                 name, reference[i].shape().str(), c.max_abs, c.max_rel,
                 runtime::tolerance(dtype, depth[source.results()[i].value]), dtype_name(dtype),
                 c.ok ? "ok" : "FAIL",
                 c.nan_in_both == 0
                     ? ""
                     : fmt::format(" ({} of {} values NaN in both: random inputs outside an "
                                   "op's domain?)",
                                   c.nan_in_both, reference[i].numel()));
    }
    ok = ok && c.ok;
  }
  return ok ? 0 : 1;
}

} // namespace tilesat::cli
