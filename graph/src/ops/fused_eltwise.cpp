// fused_eltwise.cpp: a fused elementwise kernel, typed and evaluated through the op table
// entries of the ops its body names, so its semantics are exactly theirs.
#include "ops/op_impl.h"
#include "tilesat/graph/fused_body.h"

#include <fmt/format.h>

namespace tilesat::ops {

namespace {

FusedBody body_of(const Attrs& attrs, size_t num_operands) {
  FusedBody body = parse_fused_body(attrs.get<std::string>("body"));
  if (body.max_operand() >= static_cast<int64_t>(num_operands)) {
    fail(fmt::format("expected 'body' to use operands %0..%{}, got %{}", num_operands - 1,
                     body.max_operand()));
  }
  return body;
}

// The type of every body node; literals are rank-0 f32 scalars (a scalar adapts to the dtype
// of the tensor it is combined with, as in the unfused graph).
std::vector<TensorType> body_types(const FusedBody& body,
                                   std::span<const TensorType* const> operands) {
  std::vector<TensorType> types;
  types.reserve(body.nodes.size());
  for (const FusedNode& n : body.nodes) {
    if (n.kind == FusedNode::Kind::Operand) {
      types.push_back(*operands[static_cast<size_t>(n.operand)]);
      continue;
    }
    if (n.kind == FusedNode::Kind::Literal) {
      types.push_back(TensorType{DType::F32, Shape{}, {}});
      continue;
    }
    std::vector<const TensorType*> args;
    for (uint32_t a : n.args) args.push_back(&types[a]);
    const OpInfo& info = op_info(n.op);
    Attrs attrs = with_defaults(info, Attrs{});
    try {
      types.push_back(info.infer(InferArgs{args, attrs}));
    } catch (const Error& e) {
      fail(fmt::format("in body op '{}': {}", info.name, e.diagnostic().message));
    }
  }
  return types;
}

} // namespace

TensorType infer_fused_eltwise(const InferArgs& in) {
  FusedBody body = body_of(in.attrs, in.operands.size());
  std::vector<TensorType> types = body_types(body, in.operands);
  const FusedNode& root = body.nodes[body.root()];
  if (root.kind != FusedNode::Kind::Op) {
    fail("expected 'body' to be an op, got an operand or literal");
  }
  return types.back();
}

Tensor eval_fused_eltwise(const EvalArgs& in) {
  std::vector<const TensorType*> operand_types;
  for (const Tensor* t : in.operands) operand_types.push_back(&t->type());
  FusedBody body = body_of(in.attrs, in.operands.size());
  std::vector<TensorType> types = body_types(body, operand_types);
  std::vector<Tensor> values(body.nodes.size());
  for (size_t i = 0; i < body.nodes.size(); ++i) {
    const FusedNode& n = body.nodes[i];
    if (n.kind == FusedNode::Kind::Operand) {
      values[i] = *in.operands[static_cast<size_t>(n.operand)];
      continue;
    }
    if (n.kind == FusedNode::Kind::Literal) {
      values[i] = Tensor(types[i], {static_cast<float>(n.literal)});
      values[i].round_to_dtype();
      continue;
    }
    std::vector<const Tensor*> args;
    for (uint32_t a : n.args) args.push_back(&values[a]);
    const OpInfo& info = op_info(n.op);
    Attrs attrs = with_defaults(info, Attrs{});
    values[i] = info.eval(EvalArgs{args, attrs, types[i]});
    // The unfused graph rounds every op's result to its dtype; so does the fused kernel.
    values[i].round_to_dtype();
  }
  return std::move(values.back());
}

} // namespace tilesat::ops
