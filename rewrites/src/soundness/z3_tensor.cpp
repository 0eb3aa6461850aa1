// z3_tensor.cpp: element-wise Z3 encodings of every op kind. Index maps of data movement and
// broadcasting come from the reference interpreter evaluated on index tensors, so they are
// the op table's own semantics rather than a second implementation.
#include "z3_tensor.h"

#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/fused_body.h"
#include "tilesat/rewrites/payload.h"

#include <fmt/format.h>

namespace tilesat::rewrites::soundness {
namespace {

/// For each result element, 1 + the flat index of operand `which` it reads, or 0 when it reads
/// another operand: the op evaluated on 1 + iota for `which` and zeros for the others.
std::vector<int64_t> gather_map(OpKind kind, const Attrs& complete,
                                const std::vector<TensorType>& operands, const TensorType& result,
                                size_t which) {
  std::vector<Tensor> ins;
  for (size_t i = 0; i < operands.size(); ++i) {
    TensorType t = operands[i];
    t.dtype = DType::F32; // index values must not be rounded
    Tensor x(t);
    if (i == which) {
      for (int64_t e = 0; e < x.numel(); ++e) x[e] = static_cast<float>(e + 1);
    }
    ins.push_back(std::move(x));
  }
  std::vector<const Tensor*> ptrs;
  for (const Tensor& t : ins) ptrs.push_back(&t);
  TensorType rt = result;
  rt.dtype = DType::F32;
  Tensor out = op_info(kind).eval(EvalArgs{ptrs, complete, rt});
  std::vector<int64_t> map;
  for (int64_t e = 0; e < out.numel(); ++e) map.push_back(static_cast<int64_t>(out[e]));
  return map;
}

std::vector<int64_t> multi_index(int64_t flat, const Shape& s) {
  std::vector<int64_t> idx(static_cast<size_t>(s.rank()));
  for (int64_t d = s.rank(); d-- > 0;) {
    idx[static_cast<size_t>(d)] = flat % s[d];
    flat /= s[d];
  }
  return idx;
}

int64_t flat_index(const std::vector<int64_t>& idx, const Shape& s) {
  int64_t f = 0;
  for (int64_t d = 0; d < s.rank(); ++d) f = f * s[d] + idx[static_cast<size_t>(d)];
  return f;
}

[[noreturn]] void unsupported(std::string_view what) {
  throw Error(fmt::format("no Z3 encoding for {}", what));
}

z3::expr real(z3::context& ctx, double v) {
  std::string s = fmt::format("{:.17f}", v);
  return ctx.real_val(s.c_str());
}

/// Groups of input elements reduced into each output element.
std::vector<std::vector<int64_t>> reduce_groups(const Shape& in, const Shape& out,
                                                const std::vector<int64_t>& dims, bool keep) {
  std::vector<bool> reduced(static_cast<size_t>(in.rank()), dims.empty());
  for (int64_t d : dims) {
    std::optional<int64_t> a = normalize_axis(d, in.rank());
    if (!a) unsupported("a reduction axis out of range");
    reduced[static_cast<size_t>(*a)] = true;
  }
  std::vector<std::vector<int64_t>> groups(static_cast<size_t>(out.numel()));
  for (int64_t f = 0; f < in.numel(); ++f) {
    std::vector<int64_t> idx = multi_index(f, in), o;
    for (size_t d = 0; d < idx.size(); ++d) {
      if (!reduced[d])
        o.push_back(idx[d]);
      else if (keep)
        o.push_back(0);
    }
    groups[static_cast<size_t>(flat_index(o, out))].push_back(f);
  }
  return groups;
}

} // namespace

z3::func_decl Z3Tensors::function(const std::string& name, int arity) {
  z3::sort r = ctx_.real_sort();
  if (arity == 1) return ctx_.function(name.c_str(), r, r);
  return ctx_.function(name.c_str(), r, r, r);
}

z3::expr Z3Tensors::binary(OpKind kind, const z3::expr& a, const z3::expr& b) {
  z3::expr zero = ctx_.real_val(0);
  switch (kind) {
  case OpKind::Add:
    return a + b;
  case OpKind::Subtract:
    return a - b;
  case OpKind::Multiply:
    return a * b;
  case OpKind::Divide:
    return a / b;
  case OpKind::Maximum:
    return z3::ite(a >= b, a, b);
  case OpKind::Minimum:
    return z3::ite(a <= b, a, b);
  case OpKind::AddRelu:
    return z3::ite(a + b > zero, a + b, zero);
  case OpKind::Equal:
    return z3::ite(a == b, ctx_.real_val(1), zero);
  case OpKind::Less:
    return z3::ite(a < b, ctx_.real_val(1), zero);
  case OpKind::Greater:
    return z3::ite(a > b, ctx_.real_val(1), zero);
  default:
    unsupported(fmt::format("binary '{}'", op_name(kind)));
  }
}

Elements Z3Tensors::unary(OpKind kind, const Elements& x) {
  Elements out;
  z3::expr zero = ctx_.real_val(0);
  for (const z3::expr& e : x) {
    switch (kind) {
    case OpKind::Relu:
      out.push_back(z3::ite(e > zero, e, zero));
      break;
    case OpKind::Neg:
      out.push_back(-e);
      break;
    case OpKind::Abs:
      out.push_back(z3::ite(e >= zero, e, -e));
      break;
    case OpKind::Reciprocal:
      out.push_back(ctx_.real_val(1) / e);
      break;
    case OpKind::Silu:
      // Its definition over the same uninterpreted sigmoid, so x * sigmoid(x) = silu(x).
      out.push_back(e * function(std::string(op_name(OpKind::Sigmoid)), 1)(e));
      break;
    default:
      // Transcendental ops: only their structure matters.
      out.push_back(function(std::string(op_name(kind)), 1)(e));
    }
  }
  return out;
}

const Elements& Z3Tensors::of_class(egraph::Id cls) {
  cls = eg_.find(cls);
  if (auto it = memo_.find(cls); it != memo_.end()) return it->second;
  egraph::NodeId first = egraph::kNoId;
  for (egraph::NodeId n : eg_.eclass(cls).nodes) first = std::min(first, n);
  egraph::ENode node = eg_.node(first);
  Elements e;
  if (op_of(node.op) == OpKind::Argument) {
    const TensorType& t = facts_[cls].type;
    for (int64_t i = 0; i < t.shape.numel(); ++i) {
      e.push_back(ctx_.real_const(fmt::format("in{}_{}", cls, i).c_str()));
    }
    inputs_[cls] = e;
  } else {
    e = of_node(first);
  }
  return memo_.emplace(cls, std::move(e)).first->second;
}

Elements Z3Tensors::of_node(egraph::NodeId id) {
  egraph::ENode node = eg_.node(id);
  std::optional<OpKind> kind = op_of(node.op);
  if (!kind) unsupported(fmt::format("op '{}'", node.op.str()));
  // An argument's elements are its class's variables (a rule may equate a value with one).
  if (*kind == OpKind::Argument) return of_class(eg_.find(id));
  const Attrs& attrs = facts_.attrs_of(eg_, node);
  std::vector<Elements> kids;
  std::vector<TensorType> types;
  for (egraph::Id c : node.children) {
    kids.push_back(of_class(c));
    types.push_back(facts_[eg_.find(c)].type);
  }
  TensorType result = infer_node_type(eg_, facts_, node);
  const OpInfo& info = op_info(*kind);
  Elements out;
  auto gathered = [&](size_t which) {
    std::vector<int64_t> map = gather_map(*kind, attrs, types, result, which);
    Elements g;
    for (int64_t m : map) g.push_back(kids[which][static_cast<size_t>(m - 1)]);
    return g;
  };
  auto broadcast_binary = [&](OpKind as, const Elements& a, const TensorType& at, const Elements& b,
                              const TensorType& bt, const Attrs& battrs, const TensorType& rt) {
    Attrs complete = complete_attrs(OpKind::Add, battrs);
    std::vector<TensorType> ts = {at, bt};
    std::vector<int64_t> ma = gather_map(OpKind::Add, complete, ts, rt, 0);
    std::vector<int64_t> mb = gather_map(OpKind::Add, complete, ts, rt, 1);
    Elements r;
    for (size_t i = 0; i < ma.size(); ++i) {
      r.push_back(binary(as, a[static_cast<size_t>(ma[i] - 1)], b[static_cast<size_t>(mb[i] - 1)]));
    }
    return r;
  };
  switch (*kind) {
  case OpKind::Constant: {
    const auto& v = attrs.get<std::vector<double>>("value");
    for (int64_t i = 0; i < result.shape.numel(); ++i) {
      out.push_back(real(ctx_, v.size() == 1 ? v[0] : v[static_cast<size_t>(i)]));
    }
    return out;
  }
  case OpKind::Full:
    for (int64_t i = 0; i < result.shape.numel(); ++i) {
      out.push_back(real(ctx_, attrs.get<double>("fill_value")));
    }
    return out;
  case OpKind::Transpose:
  case OpKind::Permute:
  case OpKind::Broadcast:
  case OpKind::Reshape:
  case OpKind::Slice:
  case OpKind::SplitHeads:
  case OpKind::ConcatenateHeads:
    return gathered(0);
  case OpKind::Concat: {
    out.assign(static_cast<size_t>(result.shape.numel()), ctx_.real_val(0));
    for (size_t w = 0; w < kids.size(); ++w) {
      std::vector<int64_t> map = gather_map(*kind, attrs, types, result, w);
      for (size_t i = 0; i < map.size(); ++i) {
        if (map[i] > 0) out[i] = kids[w][static_cast<size_t>(map[i] - 1)];
      }
    }
    return out;
  }
  case OpKind::Typecast:
    if (types[0].dtype == result.dtype) return kids[0];
    return unary(OpKind::Typecast, kids[0]);
  case OpKind::Sum:
  case OpKind::Mean:
  case OpKind::Max: {
    auto groups =
        reduce_groups(types[0].shape, result.shape, attrs.get<std::vector<int64_t>>("dim_arg"),
                      attrs.get<bool>("keep_dim"));
    for (const auto& g : groups) {
      z3::expr acc = kids[0][static_cast<size_t>(g[0])];
      for (size_t i = 1; i < g.size(); ++i) {
        const z3::expr& x = kids[0][static_cast<size_t>(g[i])];
        acc = *kind == OpKind::Max ? z3::ite(acc >= x, acc, x) : acc + x;
      }
      if (*kind == OpKind::Mean) acc = acc / ctx_.real_val(static_cast<int>(g.size()));
      out.push_back(acc);
    }
    return out;
  }
  case OpKind::Softmax: {
    int64_t d = attrs.get<int64_t>("dimension");
    Elements e = unary(OpKind::Exp, kids[0]);
    Shape kept = types[0].shape;
    auto groups = reduce_groups(
        types[0].shape,
        [&] {
          std::optional<int64_t> a = normalize_axis(d, kept.rank());
          if (!a) unsupported("a softmax dimension out of range");
          kept[*a] = 1;
          return kept;
        }(),
        {d}, true);
    out.assign(e.size(), ctx_.real_val(0));
    for (const auto& g : groups) {
      z3::expr s = e[static_cast<size_t>(g[0])];
      for (size_t i = 1; i < g.size(); ++i) s = s + e[static_cast<size_t>(g[i])];
      for (int64_t i : g) out[static_cast<size_t>(i)] = e[static_cast<size_t>(i)] / s;
    }
    return out;
  }
  case OpKind::Matmul:
  case OpKind::Linear: {
    const TensorType& at = types[0];
    const TensorType& bt = types[1];
    if (at.shape.rank() < 2 || bt.shape.rank() < 2) unsupported("a matmul of vectors");
    bool ta = attrs.get<bool>("transpose_a"), tb = attrs.get<bool>("transpose_b");
    int64_t ar = at.shape.rank(), br = bt.shape.rank();
    int64_t k = ta ? at.shape[ar - 2] : at.shape[ar - 1];
    TensorType prod = result;
    if (*kind == OpKind::Linear) {
      Attrs flags;
      flags.set("transpose_a", ta);
      flags.set("transpose_b", tb);
      std::vector<const TensorType*> ab = {&at, &bt};
      Attrs complete = complete_attrs(OpKind::Matmul, flags);
      prod = op_info(OpKind::Matmul).infer(InferArgs{ab, complete});
    }
    Shape ps = prod.shape;
    int64_t pr = ps.rank();
    for (int64_t f = 0; f < ps.numel(); ++f) {
      std::vector<int64_t> o = multi_index(f, ps);
      auto operand_index = [&](const Shape& s, int64_t rank, bool t, int64_t row, int64_t col) {
        std::vector<int64_t> idx(static_cast<size_t>(rank));
        for (int64_t d = 0; d < rank - 2; ++d) {
          int64_t od = pr - rank + d;
          idx[static_cast<size_t>(d)] = s[d] == 1 ? 0 : o[static_cast<size_t>(od)];
        }
        idx[static_cast<size_t>(rank - 2)] = t ? col : row;
        idx[static_cast<size_t>(rank - 1)] = t ? row : col;
        return flat_index(idx, s);
      };
      int64_t i = o[static_cast<size_t>(pr - 2)], j = o[static_cast<size_t>(pr - 1)];
      z3::expr acc = ctx_.real_val(0);
      for (int64_t kk = 0; kk < k; ++kk) {
        acc = acc + kids[0][static_cast<size_t>(operand_index(at.shape, ar, ta, i, kk))] *
                        kids[1][static_cast<size_t>(operand_index(bt.shape, br, tb, kk, j))];
      }
      out.push_back(acc);
    }
    if (*kind == OpKind::Linear && kids.size() == 3) {
      out = broadcast_binary(OpKind::Add, out, prod, kids[2], types[2], Attrs{}, result);
    }
    if (*kind == OpKind::Linear && !attrs.get<std::string>("activation").empty()) {
      out = unary(*op_by_name(attrs.get<std::string>("activation")), out);
    }
    return out;
  }
  case OpKind::FusedEltwise: {
    FusedBody body = parse_fused_body(attrs.get<std::string>("body"));
    std::vector<Elements> vals;
    std::vector<TensorType> vtypes;
    for (const FusedNode& n : body.nodes) {
      if (n.kind == FusedNode::Kind::Operand) {
        vals.push_back(kids[static_cast<size_t>(n.operand)]);
        vtypes.push_back(types[static_cast<size_t>(n.operand)]);
        continue;
      }
      if (n.kind == FusedNode::Kind::Literal) {
        vals.push_back({real(ctx_, n.literal)});
        vtypes.push_back(TensorType{DType::F32, Shape{}, {}});
        continue;
      }
      std::vector<const TensorType*> argt;
      for (uint32_t a : n.args) argt.push_back(&vtypes[a]);
      Attrs defaults = complete_attrs(n.op, Attrs{});
      TensorType t = op_info(n.op).infer(InferArgs{argt, defaults});
      if (n.args.size() == 1) {
        vals.push_back(unary(n.op, vals[n.args[0]]));
      } else {
        vals.push_back(broadcast_binary(n.op, vals[n.args[0]], vtypes[n.args[0]], vals[n.args[1]],
                                        vtypes[n.args[1]], Attrs{}, t));
      }
      vtypes.push_back(t);
    }
    return vals.back();
  }
  default:
    break;
  }
  if (info.has_trait(OpTrait::ElementwiseUnary)) return unary(*kind, kids[0]);
  if (info.has_trait(OpTrait::ElementwiseBinary)) {
    Attrs bd;
    if (const AttrValue* v = attrs.find("broadcast_dims")) bd.set("broadcast_dims", *v);
    return broadcast_binary(*kind, kids[0], types[0], kids[1], types[1], bd, result);
  }
  unsupported(fmt::format("op '{}'", info.name));
}

} // namespace tilesat::rewrites::soundness
