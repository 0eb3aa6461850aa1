// eltwise_fusion.cpp: growing fused_eltwise kernels one producer level at a time.
//
// For a class holding an elementwise op (or a fused_eltwise), each operand class is inlined
// when seed 001 allows fusing across it — it is not a function argument and has one user —
// and it holds an elementwise op or a fused kernel (the largest one is taken); a rank-0 splat
// constant becomes a literal. Repeated saturation grows kernels up the op tree. Every kernel
// respects the circular-buffer limits: inputs + output <= 32, and at most 7 inputs when any
// tensor involved is wider than 16 bits.
#include "applier_impl.h"
#include "tilesat/graph/fused_body.h"
#include "tilesat/rewrites/payload.h"

#include <algorithm>
#include <unordered_map>

namespace tilesat::rewrites::appliers {
namespace {

constexpr size_t kMaxCircularBuffers = 32;
constexpr size_t kMaxInputsWide = 7;

// An e-node as a fused body over its children (which become %0..%n-1), or nullopt when it is
// not elementwise with default attributes.
std::optional<FusedBody> body_of_node(const egraph::EGraph& eg, const TensorAnalysis& facts,
                                      const egraph::ENode& node) {
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind) return std::nullopt;
  const Attrs& attrs = facts.attrs_of(eg, node);
  if (*kind == OpKind::FusedEltwise) return parse_fused_body(attrs.get<std::string>("body"));
  if (!fusable_in_body(*kind)) return std::nullopt;
  for (const AttrSpec& spec : op_info(*kind).attrs) {
    const AttrValue* v = attrs.find(spec.name);
    if (v != nullptr && spec.default_value && *v != *spec.default_value) return std::nullopt;
  }
  FusedBody b;
  FusedNode op;
  op.kind = FusedNode::Kind::Op;
  op.op = *kind;
  for (size_t i = 0; i < node.arity(); ++i) {
    FusedNode in;
    in.kind = FusedNode::Kind::Operand;
    in.operand = static_cast<int64_t>(i);
    b.nodes.push_back(in);
    op.args.push_back(static_cast<uint32_t>(i));
  }
  b.nodes.push_back(op);
  return b;
}

// Whether a splat value of `dtype` reads back exactly as an f32 literal.
bool exact_as_f32_literal(double v, DType dtype) {
  auto f = static_cast<float>(v);
  if (dtype == DType::F32) return true;
  if (dtype == DType::BF16) return round_to_bf16(f) == f;
  return false;
}

class KernelBuilder {
public:
  KernelBuilder(const egraph::EGraph& eg, const TensorAnalysis& facts) : eg_(eg), facts_(facts) {}

  // Appends `body`, whose operand j is class operands[j] (each inlined when allowed).
  uint32_t append(const FusedBody& body, std::span<const egraph::Id> operands, bool inline_ok) {
    std::vector<uint32_t> map(body.nodes.size());
    for (size_t i = 0; i < body.nodes.size(); ++i) {
      const FusedNode& n = body.nodes[i];
      if (n.kind == FusedNode::Kind::Operand) {
        map[i] = operand(operands[static_cast<size_t>(n.operand)], inline_ok);
        continue;
      }
      FusedNode copy = n;
      for (uint32_t& a : copy.args) a = map[a];
      map[i] = push(copy);
    }
    return map.back();
  }

  std::vector<egraph::Id> inputs;
  FusedBody body;
  size_t inlined = 0;

private:
  uint32_t push(FusedNode n) {
    body.nodes.push_back(std::move(n));
    return body.root();
  }

  uint32_t operand(egraph::Id cls, bool inline_ok) {
    cls = eg_.find(cls);
    const TensorFacts& f = facts_[cls];
    if (f.splat && f.type.shape.rank() == 0 && exact_as_f32_literal(*f.splat, f.type.dtype)) {
      FusedNode lit;
      lit.kind = FusedNode::Kind::Literal;
      lit.literal = static_cast<float>(*f.splat);
      ++inlined;
      return push(lit);
    }
    if (inline_ok && !f.is_argument && shared_users(eg_, facts_, cls) <= 1) {
      if (std::optional<std::pair<FusedBody, egraph::NodeId>> best = best_producer(cls)) {
        egraph::ENode producer = eg_.node(best->second);
        ++inlined;
        return append(best->first, producer.children, false);
      }
    }
    auto it = std::find(inputs.begin(), inputs.end(), cls);
    FusedNode in;
    in.kind = FusedNode::Kind::Operand;
    in.operand = it - inputs.begin();
    if (it == inputs.end()) inputs.push_back(cls);
    return push(in);
  }

  // The elementwise e-node of `cls` with the largest body.
  std::optional<std::pair<FusedBody, egraph::NodeId>> best_producer(egraph::Id cls) const {
    std::optional<std::pair<FusedBody, egraph::NodeId>> best;
    for (egraph::NodeId n : eg_.eclass(cls).nodes) {
      std::optional<FusedBody> b = body_of_node(eg_, facts_, eg_.node(n));
      if (!b) continue;
      if (!best || b->num_ops() > best->first.num_ops()) best.emplace(std::move(*b), n);
    }
    return best;
  }

  const egraph::EGraph& eg_;
  const TensorAnalysis& facts_;
};

bool within_buffer_limits(const TensorAnalysis& facts, const std::vector<egraph::Id>& inputs,
                          const TensorType& result) {
  if (inputs.size() + 1 > kMaxCircularBuffers) return false;
  bool wide = element_bytes(result.dtype) > 2;
  for (egraph::Id in : inputs) wide = wide || element_bytes(facts[in].type.dtype) > 2;
  return !wide || inputs.size() <= kMaxInputsWide;
}

} // namespace

egraph::Id fuse_eltwise(ApplyContext& c) {
  const egraph::EGraph& eg = c.egraph();
  egraph::Id root = c.root_class();
  std::vector<egraph::NodeId> nodes(eg.eclass(root).nodes.begin(), eg.eclass(root).nodes.end());
  std::optional<KernelBuilder> best;
  for (egraph::NodeId n : nodes) {
    egraph::ENode node = eg.node(n);
    std::optional<FusedBody> body = body_of_node(eg, c.analysis(), node);
    if (!body) continue;
    KernelBuilder k(eg, c.analysis());
    k.append(*body, node.children, true);
    if (k.inlined == 0 || k.inputs.empty()) continue;
    if (!within_buffer_limits(c.analysis(), k.inputs, c.root().type)) continue;
    if (!best || k.body.num_ops() > best->body.num_ops()) best.emplace(std::move(k));
  }
  if (!best) return egraph::kNoId;
  Attrs a;
  a.set("body", print_fused_body(best->body));
  return c.if_fits_root(c.add(OpKind::FusedEltwise, best->inputs, a));
}

} // namespace tilesat::rewrites::appliers
