// interpreter.cpp: the reference interpreter and its deterministic random arguments.
#include "tilesat/graph/interpreter.h"

#include "eval_node.h"
#include "ops/op_impl.h"

#include <cmath>
#include <fmt/format.h>
#include <optional>
#include <random>

namespace tilesat {

namespace detail {

std::vector<Tensor> checked_arguments(const Graph& g, std::span<const Tensor> arguments) {
  g.verify_or_throw();
  std::span<const NodeId> args = g.arguments();
  if (arguments.size() != args.size()) {
    throw Error(fmt::format("expected {} arguments for @{}, got {}", args.size(), g.name(),
                            arguments.size()));
  }
  std::vector<Tensor> out;
  for (size_t i = 0; i < args.size(); ++i) {
    const TensorType& declared = g.node(args[i]).type;
    if (!declared.same_value_type(arguments[i].type())) {
      throw Error(fmt::format("argument {} ({}): expected {}, got {}", i, value_name(g, args[i]),
                              declared.str(), arguments[i].type().str()));
    }
    out.push_back(arguments[i]);
    out.back().round_to_dtype();
  }
  return out;
}

Tensor eval_node(const Node& n, std::span<const Tensor* const> operands) {
  const OpInfo& info = op_info(n.kind);
  Attrs attrs = ops::with_defaults(info, n.attrs);
  TensorType result{n.type.dtype, n.type.shape, {}};
  Tensor out = info.eval(EvalArgs{operands, attrs, result});
  out.round_to_dtype();
  return out;
}

} // namespace detail

std::vector<Tensor> evaluate(const Graph& g, std::span<const Tensor> arguments) {
  std::vector<Tensor> checked = detail::checked_arguments(g, arguments);
  std::vector<std::optional<Tensor>> values(g.num_nodes());
  for (size_t i = 0; i < checked.size(); ++i) values[g.arguments()[i]] = std::move(checked[i]);
  for (NodeId id : g.topological_order()) {
    const Node& n = g.node(id);
    if (n.kind == OpKind::Argument) continue;
    std::vector<const Tensor*> operands;
    for (NodeId op : n.operands) operands.push_back(&*values[op]);
    values[id] = detail::eval_node(n, operands);
  }
  std::vector<Tensor> results;
  for (const GraphResult& r : g.results()) results.push_back(*values[r.value]);
  return results;
}

std::vector<Tensor> random_arguments(const Graph& g, uint64_t seed, RandomInit init,
                                     const std::vector<bool>& skip) {
  // mt19937_64's output sequence is fixed by the standard; the distributions of <random>
  // are not, so values are derived from the raw bits.
  std::mt19937_64 rng(seed);
  std::vector<int64_t> fan_in;
  std::vector<bool> under_root;
  if (init == RandomInit::FanIn) {
    fan_in = argument_fan_in(g);
    under_root = argument_under_root(g);
  }
  std::vector<Tensor> out;
  for (size_t i = 0; i < g.arguments().size(); ++i) {
    const TensorType& type = g.node(g.arguments()[i]).type;
    if (i < skip.size() && skip[i]) {
      rng.discard(static_cast<unsigned long long>(type.shape.numel()));
      out.emplace_back();
      continue;
    }
    double scale = fan_in.empty() || fan_in[i] == 0 ? 1.0 : std::sqrt(3.0 / fan_in[i]);
    // A variance: [-1, 1) moved to [0.5, 1.5).
    const bool positive = i < under_root.size() && under_root[i];
    Tensor t(TensorType{type.dtype, type.shape, {}});
    for (float& x : t.data()) {
      uint64_t bits = rng();
      if (type.dtype == DType::I32) {
        x = static_cast<float>(static_cast<int64_t>((bits >> 32) % 17) - 8);
      } else {
        double u = static_cast<double>(bits >> 40) * 0x1p-23 - 1.0;
        x = static_cast<float>(positive ? 1.0 + 0.5 * u : u * scale);
      }
    }
    t.round_to_dtype();
    out.push_back(std::move(t));
  }
  return out;
}

} // namespace tilesat
