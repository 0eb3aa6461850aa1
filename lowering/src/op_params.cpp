// op_params.cpp: graph op attributes -> program op parameters, with broadcasting, batch
// and axis conventions resolved so the runtime need not know the graph's rules.
#include "op_params.h"

#include "tilesat/graph/fused_body.h"
#include "tilesat/graph/heads.h"
#include "tilesat/graph/op.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <numeric>

namespace tilesat::lowering::detail {

[[noreturn]] void unsupported(const Graph& g, NodeId id, const std::string& why) {
  const Node& n = g.node(id);
  throw Error(n.loc, fmt::format("lowering {} = {}: {}", value_name(g, id), op_name(n.kind), why));
}

std::optional<fb::UnaryKind> unary_kind(OpKind k) {
  switch (k) {
  case OpKind::Relu:
    return fb::UnaryKind::Relu;
  case OpKind::Gelu:
    return fb::UnaryKind::Gelu;
  case OpKind::Exp:
    return fb::UnaryKind::Exp;
  case OpKind::Log:
    return fb::UnaryKind::Log;
  case OpKind::Neg:
    return fb::UnaryKind::Neg;
  case OpKind::Abs:
    return fb::UnaryKind::Abs;
  case OpKind::Sin:
    return fb::UnaryKind::Sin;
  case OpKind::Cos:
    return fb::UnaryKind::Cos;
  case OpKind::Tanh:
    return fb::UnaryKind::Tanh;
  case OpKind::Sigmoid:
    return fb::UnaryKind::Sigmoid;
  case OpKind::Sqrt:
    return fb::UnaryKind::Sqrt;
  case OpKind::Rsqrt:
    return fb::UnaryKind::Rsqrt;
  case OpKind::Reciprocal:
    return fb::UnaryKind::Reciprocal;
  case OpKind::Erf:
    return fb::UnaryKind::Erf;
  case OpKind::Silu:
    return fb::UnaryKind::Silu;
  default:
    return std::nullopt;
  }
}

std::optional<fb::UnaryKind> activation_kind(const Graph& g, NodeId id, const Attrs& attrs) {
  const std::string& act = attrs.get<std::string>("activation");
  if (act.empty()) return std::nullopt;
  std::optional<OpKind> k = op_by_name(act);
  std::optional<fb::UnaryKind> uk = k ? unary_kind(*k) : std::nullopt;
  if (!uk) unsupported(g, id, fmt::format("activation '{}' has no kernel", act));
  return uk;
}

namespace {

using IntList = std::vector<int64_t>;

std::optional<fb::BinaryKind> binary_kind(OpKind k) {
  switch (k) {
  case OpKind::Add:
    return fb::BinaryKind::Add;
  case OpKind::Subtract:
    return fb::BinaryKind::Subtract;
  case OpKind::Multiply:
    return fb::BinaryKind::Multiply;
  case OpKind::Divide:
    return fb::BinaryKind::Divide;
  case OpKind::Maximum:
    return fb::BinaryKind::Maximum;
  case OpKind::Minimum:
    return fb::BinaryKind::Minimum;
  case OpKind::AddRelu:
    return fb::BinaryKind::AddRelu;
  case OpKind::Pow:
    return fb::BinaryKind::Pow;
  case OpKind::Equal:
    return fb::BinaryKind::Equal;
  case OpKind::Less:
    return fb::BinaryKind::Less;
  case OpKind::Greater:
    return fb::BinaryKind::Greater;
  default:
    return std::nullopt;
  }
}

IntList right_aligned(int64_t rank, int64_t out_rank) {
  IntList m;
  for (int64_t i = 0; i < rank; ++i) m.push_back(out_rank - rank + i);
  return m;
}

const Shape& shape_of(const Graph& g, NodeId id) {
  return g.node(id).type.shape;
}

std::unique_ptr<fb::MatmulT> matmul_params(const Graph& g, NodeId id, const Attrs& attrs) {
  const Node& n = g.node(id);
  const Shape& a = shape_of(g, n.operands[0]);
  const Shape& b = shape_of(g, n.operands[1]);
  const Shape& o = n.type.shape;
  if (a.rank() < 2 || b.rank() < 2) {
    unsupported(g, id,
                "expected operands of rank >= 2 (the runtime's tile matmul has no "
                "vector form), got ranks " +
                    std::to_string(a.rank()) + " and " + std::to_string(b.rank()));
  }
  auto m = std::make_unique<fb::MatmulT>();
  m->transpose_a = attrs.get<bool>("transpose_a");
  m->transpose_b = attrs.get<bool>("transpose_b");
  // Batch index of each operand for each output batch index (NumPy broadcasting).
  IntList ob(o.dims().begin(), o.dims().end() - 2);
  IntList abd(a.dims().begin(), a.dims().end() - 2), bbd(b.dims().begin(), b.dims().end() - 2);
  int64_t count = 1;
  for (int64_t d : ob) count *= d;
  for (int64_t f = 0; f < count; ++f) {
    IntList idx(ob.size());
    int64_t rest = f;
    for (size_t d = ob.size(); d-- > 0;) {
      idx[d] = rest % ob[d];
      rest /= ob[d];
    }
    auto flat = [&](const IntList& own) {
      int64_t off = 0;
      size_t shift = ob.size() - own.size();
      for (size_t d = 0; d < own.size(); ++d)
        off = off * own[d] + (own[d] == 1 ? 0 : idx[d + shift]);
      return static_cast<uint32_t>(off);
    };
    m->a_batch.push_back(flat(abd));
    m->b_batch.push_back(flat(bbd));
  }
  return m;
}

fb::OpParamsUnion binary_params(const Graph& g, NodeId id, const Attrs& attrs, fb::BinaryKind k) {
  const Node& n = g.node(id);
  const Shape& a = shape_of(g, n.operands[0]);
  const Shape& b = shape_of(g, n.operands[1]);
  int64_t out = n.type.shape.rank();
  IntList bd = attrs.get<IntList>("broadcast_dims");
  fb::BinaryT p;
  p.kind = k;
  p.lhs_dims = right_aligned(a.rank(), out);
  p.rhs_dims = right_aligned(b.rank(), out);
  if (!bd.empty() && a.rank() != b.rank() && a.rank() > 0 && b.rank() > 0) {
    IntList mapped;
    for (int64_t d : bd) mapped.push_back(norm_axis(d, out));
    (a.rank() < b.rank() ? p.lhs_dims : p.rhs_dims) = mapped;
  }
  fb::OpParamsUnion u;
  u.Set(std::move(p));
  return u;
}

fb::OpParamsUnion fused_params(const Graph& g, NodeId id, const Attrs& attrs) {
  FusedBody body = parse_fused_body(attrs.get<std::string>("body"));
  fb::FusedEltwiseT f;
  for (const FusedNode& n : body.nodes) {
    auto node = std::make_unique<fb::FusedNodeT>();
    switch (n.kind) {
    case FusedNode::Kind::Operand:
      node->kind = fb::FusedNodeKind::Input;
      node->input = static_cast<uint32_t>(n.operand);
      break;
    case FusedNode::Kind::Literal:
      node->kind = fb::FusedNodeKind::Literal;
      node->literal = static_cast<float>(n.literal);
      break;
    case FusedNode::Kind::Op:
      if (auto u = unary_kind(n.op); u && n.args.size() == 1) {
        node->kind = fb::FusedNodeKind::Unary;
        node->unary = *u;
      } else if (auto b = binary_kind(n.op); b && n.args.size() == 2) {
        node->kind = fb::FusedNodeKind::Binary;
        node->binary = *b;
      } else {
        unsupported(g, id, fmt::format("body op '{}' has no fused kernel", op_name(n.op)));
      }
      node->args.assign(n.args.begin(), n.args.end());
      break;
    }
    f.nodes.push_back(std::move(node));
  }
  fb::OpParamsUnion u;
  u.Set(std::move(f));
  return u;
}

} // namespace

bool is_matrix_product(OpKind k) {
  return k == OpKind::Matmul || k == OpKind::Linear;
}

int64_t inner_tiles(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  if (!is_matrix_product(n.kind)) return 1;
  Attrs attrs = complete_attrs(n.kind, n.attrs);
  const Shape& a = shape_of(g, n.operands[0]);
  int64_t k = attrs.get<bool>("transpose_a") ? a[a.rank() - 2] : a[a.rank() - 1];
  return (k + 31) / 32;
}

fb::OpParamsUnion op_params(const Graph& g, NodeId id) {
  const Node& n = g.node(id);
  Attrs attrs = complete_attrs(n.kind, n.attrs);
  fb::OpParamsUnion u;
  if (auto k = unary_kind(n.kind)) {
    fb::UnaryT p;
    p.kind = *k;
    u.Set(std::move(p));
    return u;
  }
  if (auto k = binary_kind(n.kind)) return binary_params(g, id, attrs, *k);
  int64_t rank = n.type.shape.rank();
  switch (n.kind) {
  case OpKind::Matmul:
    u.Set(std::move(*matmul_params(g, id, attrs)));
    return u;
  case OpKind::Linear: {
    fb::LinearT p;
    p.matmul = matmul_params(g, id, attrs);
    set_activation(p, g, id, attrs);
    u.Set(std::move(p));
    return u;
  }
  case OpKind::FusedEltwise:
    return fused_params(g, id, attrs);
  case OpKind::Sum:
  case OpKind::Mean:
  case OpKind::Max: {
    fb::ReduceT p;
    p.kind = n.kind == OpKind::Sum    ? fb::ReduceKind::Sum
             : n.kind == OpKind::Mean ? fb::ReduceKind::Mean
                                      : fb::ReduceKind::Max;
    int64_t in_rank = shape_of(g, n.operands[0]).rank();
    IntList dims = attrs.get<IntList>("dim_arg");
    if (dims.empty()) {
      dims.resize(static_cast<size_t>(in_rank));
      std::iota(dims.begin(), dims.end(), 0);
    }
    for (int64_t& d : dims) d = norm_axis(d, in_rank);
    std::sort(dims.begin(), dims.end());
    p.dims = dims;
    p.keep_dim = attrs.get<bool>("keep_dim");
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Softmax: {
    fb::SoftmaxT p;
    p.dim = norm_axis(attrs.get<int64_t>("dimension"), rank);
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Transpose:
  case OpKind::Permute: {
    fb::PermuteT p;
    if (n.kind == OpKind::Permute) {
      p.permutation = attrs.get<IntList>("permutation");
      for (int64_t& d : p.permutation) d = norm_axis(d, rank);
    } else {
      p.permutation.resize(static_cast<size_t>(rank));
      std::iota(p.permutation.begin(), p.permutation.end(), 0);
      std::swap(p.permutation[static_cast<size_t>(norm_axis(attrs.get<int64_t>("dim0"), rank))],
                p.permutation[static_cast<size_t>(norm_axis(attrs.get<int64_t>("dim1"), rank))]);
    }
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Broadcast: {
    fb::BroadcastT p;
    int64_t in_rank = shape_of(g, n.operands[0]).rank();
    p.dims = attrs.get<IntList>("dims");
    if (p.dims.empty()) p.dims = right_aligned(in_rank, rank);
    for (int64_t& d : p.dims) d = norm_axis(d, rank);
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Reshape:
    u.Set(fb::ReshapeT{});
    return u;
  case OpKind::Typecast:
    u.Set(fb::TypecastT{});
    return u;
  case OpKind::Concat: {
    fb::ConcatT p;
    p.dim = norm_axis(attrs.get<int64_t>("dim"), rank);
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Slice: {
    fb::SliceT p;
    const Shape& x = shape_of(g, n.operands[0]);
    IntList begins = attrs.get<IntList>("begins"), steps = attrs.get<IntList>("step");
    if (steps.empty()) steps.assign(static_cast<size_t>(x.rank()), 1);
    for (size_t d = 0; d < begins.size(); ++d)
      if (begins[d] < 0) begins[d] += x[static_cast<int64_t>(d)];
    p.begins = begins;
    p.steps = steps;
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Constant: {
    fb::ConstantT p;
    for (double v : attrs.get<std::vector<double>>("value"))
      p.values.push_back(static_cast<float>(v));
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Full: {
    fb::FullT p;
    p.value = static_cast<float>(attrs.get<double>("fill_value"));
    u.Set(std::move(p));
    return u;
  }
  case OpKind::SplitHeads:
  case OpKind::ConcatenateHeads: {
    HeadView v = head_view(n.kind, attrs, shape_of(g, n.operands[0]));
    fb::StridedCopyT p;
    p.shape = std::move(v.shape);
    p.strides = std::move(v.strides);
    p.base = v.base;
    u.Set(std::move(p));
    return u;
  }
  case OpKind::Attention: {
    fb::AttentionT p;
    double scale = attrs.get<double>("scale");
    int64_t head_dim = shape_of(g, n.operands[0])[3];
    p.scale =
        static_cast<float>(scale != 0 ? scale : 1.0 / std::sqrt(static_cast<double>(head_dim)));
    p.is_causal = attrs.get<bool>("is_causal");
    p.select_mask = attrs.get<std::string>("mask_kind") == "select";
    p.mask_fill = static_cast<float>(attrs.get<double>("mask_fill"));
    u.Set(std::move(p));
    return u;
  }
  case OpKind::RotaryEmbedding:
    u.Set(fb::RotaryEmbeddingT{});
    return u;
  default:
    if (std::optional<fb::OpParamsUnion> nn = nn_params(g, id, attrs)) return std::move(*nn);
    if (std::optional<fb::OpParamsUnion> m = mesh_params(g, id, attrs)) return std::move(*m);
    unsupported(g, id, "the runtime has no kernel for this op");
  }
}

} // namespace tilesat::lowering::detail
