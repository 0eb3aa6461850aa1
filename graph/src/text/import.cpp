// import.cpp: value scoping, operand resolution and attribute conversion for the importers.
#include "text/import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tilesat::text {

NodeId lookup_value(FunctionScope& s, const OperandRef& ref) {
  auto it = s.values.find(ref.name);
  if (it != s.values.end()) return it->second;
  if (s.outer != nullptr && &s.outer->graph == &s.graph && s.outer->values.count(ref.name) != 0) {
    return lookup_value(*s.outer, ref);
  }
  if (s.empties.count(ref.name) != 0) {
    throw Error(ref.loc, fmt::format("{} is a ttir.empty() destination; it can only be the last "
                                     "operand of an op",
                                     ref.name));
  }
  throw Error(ref.loc, fmt::format("use of undefined value {}", ref.name));
}

namespace {

void check_new_name(FunctionScope& s, const std::string& name, const SourceLoc& loc) {
  auto prev = s.defined_at.find(name);
  if (prev != s.defined_at.end()) {
    throw Error(loc,
                fmt::format("redefinition of {} (first defined at {})", name, prev->second.str()));
  }
  s.defined_at.emplace(name, loc);
}

void check_new_name(FunctionScope& s, const OpRecord& rec) {
  check_new_name(s, rec.result, rec.loc);
}

} // namespace

void define_alias(FunctionScope& s, const OpRecord& rec, NodeId id) {
  check_new_name(s, rec);
  s.values.emplace(rec.result, id);
}

void define_results(FunctionScope& s, const OpRecord& rec, std::span<const NodeId> ids,
                    std::string_view producer) {
  std::span<const std::string> names = rec.results;
  std::span<const TensorType> declared = rec.result_types;
  if (names.empty()) {
    names = std::span<const std::string>(&rec.result, 1);
    declared = std::span<const TensorType>(&rec.result_type, rec.has_result_type ? 1 : 0);
  }
  if (ids.size() != names.size()) {
    throw Error(rec.loc, fmt::format("'{}' has {} result names, but {} {} values", rec.name,
                                     names.size(), producer, ids.size()));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const TensorType& actual = s.graph.node(ids[i]).type;
    if (i < declared.size() && !actual.same_value_type(declared[i])) {
      throw Error(rec.name_loc, fmt::format("'{}': result {} is declared {}, but {} {}", rec.name,
                                            names[i], declared[i].str(), producer, actual.str()));
    }
    check_new_name(s, names[i], rec.loc);
    s.values.emplace(names[i], ids[i]);
  }
}

void define_result(FunctionScope& s, const OpRecord& rec, std::optional<NodeId> id) {
  check_new_name(s, rec);
  if (id) {
    s.values.emplace(rec.result, *id);
    Node& n = s.graph.mutable_node(*id);
    n.name = rec.result.substr(1);
  } else {
    s.empties.emplace(rec.result, rec.result_type);
  }
}

std::vector<NodeId> resolve_operands(FunctionScope& s, OpRecord& rec) {
  if (!rec.operands.empty() && !rec.operands.back().name.empty() &&
      s.empties.count(rec.operands.back().name) != 0 &&
      s.values.count(rec.operands.back().name) == 0) {
    rec.operands.pop_back();
    rec.operand_types.pop_back();
  }
  std::vector<NodeId> ids;
  ids.reserve(rec.operands.size());
  for (size_t i = 0; i < rec.operands.size(); ++i) {
    const OperandRef& ref = rec.operands[i];
    const TensorType& declared = rec.operand_types[i];
    if (ref.name.empty()) {
      if (declared.shape.rank() != 0) {
        throw Error(ref.loc, fmt::format("scalar operand #{} of '{}' must have a scalar type, got "
                                         "{}",
                                         i, rec.name, declared.str()));
      }
      Attrs attrs;
      attrs.set("value", std::vector<double>{ref.scalar});
      attrs.set("shape", std::vector<int64_t>{});
      attrs.set("dtype", declared.dtype);
      ids.push_back(s.graph.add_op_typed(OpKind::Constant, {}, std::move(attrs),
                                         TensorType{declared.dtype, Shape{}, ""}, ref.loc));
      continue;
    }
    NodeId id = lookup_value(s, ref);
    const TensorType& actual = s.graph.node(id).type;
    if (!actual.same_value_type(declared)) {
      throw Error(ref.loc, fmt::format("type of operand #{} of '{}': expected {} (the type of {}), "
                                       "got {}",
                                       i, rec.name, actual.str(), ref.name, declared.str()));
    }
    ids.push_back(id);
  }
  return ids;
}

namespace {

std::string_view kind_noun(AttrKind k) {
  switch (k) {
  case AttrKind::Bool:
    return "true or false";
  case AttrKind::Int:
    return "an integer";
  case AttrKind::Float:
    return "a number";
  case AttrKind::String:
    return "a string";
  case AttrKind::IntList:
    return "a list of integers";
  case AttrKind::FloatList:
    return "a list of numbers";
  case AttrKind::DType:
    return "an element type";
  case AttrKind::Opaque:
    return "an attribute";
  }
  return "an attribute";
}

[[noreturn]] void bad_attr(const ParsedAttr& a, AttrKind kind, std::string_view attr,
                           std::string_view op) {
  std::string got = render_attr(a);
  if (got.size() > 60) got = got.substr(0, 60) + "...";
  throw Error(a.loc, fmt::format("attribute '{}' of '{}': expected {}, got {}", attr, op,
                                 kind_noun(kind), got));
}

bool is_number(const ParsedAttr& a) {
  return a.kind == ParsedAttr::Kind::Int || a.kind == ParsedAttr::Kind::Float;
}

/// Flattens numbers of nested lists (row-major), for dense<[[1, 2], [3, 4]]>.
bool flatten_numbers(const ParsedAttr& a, std::vector<const ParsedAttr*>& out) {
  using K = ParsedAttr::Kind;
  if (is_number(a) || a.kind == K::Bool) {
    out.push_back(&a);
    return true;
  }
  if (a.kind == K::List || a.kind == K::Array || a.kind == K::Dense) {
    for (const ParsedAttr& e : a.elems) {
      if (!flatten_numbers(e, out)) return false;
    }
    return true;
  }
  return false;
}

/// The value of a tt-mlir enum attribute named like the attribute it sets:
/// `#ttcore.shard_type<devices>` (or the older `#tt.` prefix) for `shard_type` is "devices".
std::string enum_value(const ParsedAttr& a, AttrKind kind, std::string_view attr,
                       std::string_view op) {
  const std::string& t = a.spelling;
  for (std::string_view dialect : {"#ttcore.", "#tt."}) {
    std::string head = fmt::format("{}{}<", dialect, attr);
    if (t.size() > head.size() && t.compare(0, head.size(), head) == 0 && t.back() == '>') {
      return t.substr(head.size(), t.size() - head.size() - 1);
    }
  }
  bad_attr(a, kind, attr, op);
}

double number_of(const ParsedAttr& a) {
  if (a.kind == ParsedAttr::Kind::Bool) return a.b ? 1.0 : 0.0;
  return a.f; // integers carry their value (or hex float bits) in f too
}

} // namespace

std::vector<int64_t> int_list(const ParsedAttr& a, std::string_view attr, std::string_view op) {
  using K = ParsedAttr::Kind;
  if (a.kind != K::List && a.kind != K::Array && a.kind != K::Dense) {
    bad_attr(a, AttrKind::IntList, attr, op);
  }
  std::vector<const ParsedAttr*> nums;
  if (!flatten_numbers(a, nums)) bad_attr(a, AttrKind::IntList, attr, op);
  std::vector<int64_t> out;
  out.reserve(nums.size());
  for (const ParsedAttr* n : nums) {
    if (n->kind != K::Int) bad_attr(a, AttrKind::IntList, attr, op);
    out.push_back(n->i);
  }
  return out;
}

AttrValue convert_attr(const ParsedAttr& a, AttrKind kind, std::string_view attr,
                       std::string_view op) {
  using K = ParsedAttr::Kind;
  switch (kind) {
  case AttrKind::Bool:
    if (a.kind != K::Bool) bad_attr(a, kind, attr, op);
    return a.b;
  case AttrKind::Int:
    if (a.kind != K::Int) bad_attr(a, kind, attr, op);
    return a.i;
  case AttrKind::Float:
    if (!is_number(a)) bad_attr(a, kind, attr, op);
    return a.f;
  case AttrKind::String:
    if (a.kind == K::Alias) return enum_value(a, kind, attr, op);
    if (a.kind != K::String) bad_attr(a, kind, attr, op);
    return a.text;
  case AttrKind::IntList:
    return int_list(a, attr, op);
  case AttrKind::FloatList: {
    std::vector<const ParsedAttr*> nums;
    if (!flatten_numbers(a, nums)) bad_attr(a, kind, attr, op);
    std::vector<double> out;
    out.reserve(nums.size());
    for (const ParsedAttr* n : nums) out.push_back(number_of(*n));
    return out;
  }
  case AttrKind::DType: {
    std::optional<DType> t;
    if (a.kind == K::Keyword) t = parse_dtype(a.text);
    if (!t) bad_attr(a, kind, attr, op);
    return *t;
  }
  case AttrKind::Opaque:
    return OpaqueAttr{render_attr(a)};
  }
  bad_attr(a, kind, attr, op);
}

bool matmul_transposes(const OpRecord& rec, const DotDims& d, Attrs& attrs) {
  const std::vector<int64_t>& lc = d.lhs_contract;
  const std::vector<int64_t>& rc = d.rhs_contract;
  const std::vector<int64_t>& lb = d.lhs_batch;
  const std::vector<int64_t>& rb = d.rhs_batch;
  int64_t ra = rec.operand_types.size() == 2 ? rec.operand_types[0].shape.rank() : 0;
  int64_t rb_rank = rec.operand_types.size() == 2 ? rec.operand_types[1].shape.rank() : 0;
  auto leading = [](const std::vector<int64_t>& dims, int64_t n) {
    if (static_cast<int64_t>(dims.size()) != n) return false;
    for (int64_t i = 0; i < n; ++i) {
      if (dims[static_cast<size_t>(i)] != i) return false;
    }
    return true;
  };
  bool ok = ra >= 2 && rb_rank >= 2 && lc.size() == 1 && rc.size() == 1 &&
            ((ra == rb_rank && leading(lb, ra - 2) && leading(rb, rb_rank - 2)) ||
             (rb_rank == 2 && lb.empty() && rb.empty())) &&
            (lc[0] == ra - 1 || lc[0] == ra - 2) && (rc[0] == rb_rank - 2 || rc[0] == rb_rank - 1);
  if (rb_rank == 2 && ra > 2 && lb.empty() && lc.size() == 1 && lc[0] != ra - 1) ok = false;
  if (!ok) return false;
  attrs.set("transpose_a", lc[0] == ra - 2);
  attrs.set("transpose_b", rc[0] == rb_rank - 1);
  return true;
}

namespace {

Value general_dot(Builder& b, Value lhs, Value rhs, const DotDims& d, const OpRecord& rec) {
  const Shape ls = b.type(lhs).shape, rs = b.type(rhs).shape;
  auto list = [](const std::vector<int64_t>& v) { return fmt::format("[{}]", fmt::join(v, ", ")); };
  auto fail = [&](const std::string& why) {
    throw Error(rec.loc,
                fmt::format("'{}' with contracting dims {} x {} and batching dims {} x {} "
                            "on {} and {}: {}",
                            rec.name, list(d.lhs_contract), list(d.rhs_contract), list(d.lhs_batch),
                            list(d.rhs_batch), ls.str(), rs.str(), why));
  };
  if (d.lhs_batch.size() != d.rhs_batch.size() || d.lhs_contract.size() != d.rhs_contract.size())
    fail("expected as many dims on each side");
  // The dims neither batched nor contracted, in order; each listed dim in range, once.
  auto free_dims = [&](const Shape& s, const std::vector<int64_t>& batch,
                       const std::vector<int64_t>& contract) {
    std::vector<bool> used(static_cast<size_t>(s.rank()), false);
    for (const std::vector<int64_t>* v : {&batch, &contract}) {
      for (int64_t x : *v) {
        if (x < 0 || x >= s.rank() || used[static_cast<size_t>(x)])
          fail(fmt::format("dim {} is out of range or listed twice", x));
        used[static_cast<size_t>(x)] = true;
      }
    }
    std::vector<int64_t> out;
    for (int64_t i = 0; i < s.rank(); ++i)
      if (!used[static_cast<size_t>(i)]) out.push_back(i);
    return out;
  };
  std::vector<int64_t> lf = free_dims(ls, d.lhs_batch, d.lhs_contract);
  std::vector<int64_t> rf = free_dims(rs, d.rhs_batch, d.rhs_contract);
  for (auto [l, r] : {std::pair{&d.lhs_batch, &d.rhs_batch}, {&d.lhs_contract, &d.rhs_contract}}) {
    for (size_t i = 0; i < l->size(); ++i) {
      if (ls[(*l)[i]] != rs[(*r)[i]])
        fail(fmt::format("dim {} ({}) and dim {} ({}) differ", (*l)[i], ls[(*l)[i]], (*r)[i],
                         rs[(*r)[i]]));
    }
  }
  auto extents = [](const Shape& s, const std::vector<int64_t>& dims) {
    std::vector<int64_t> out;
    for (int64_t x : dims) out.push_back(s[x]);
    return out;
  };
  auto product = [](const std::vector<int64_t>& v) {
    int64_t p = 1;
    for (int64_t x : v) p *= x;
    return p;
  };
  // One side as [batch..., rows, cols] from its dims in the order `first` then `second`.
  auto arrange = [&](Value v, const Shape& s, const std::vector<int64_t>& batch,
                     const std::vector<int64_t>& first, const std::vector<int64_t>& second) {
    std::vector<int64_t> perm = batch;
    perm.insert(perm.end(), first.begin(), first.end());
    perm.insert(perm.end(), second.begin(), second.end());
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i)
      identity = identity && perm[i] == static_cast<int64_t>(i);
    if (!identity) v = b.permute(v, perm);
    std::vector<int64_t> shape = extents(s, batch);
    shape.push_back(product(extents(s, first)));
    shape.push_back(product(extents(s, second)));
    return b.reshape(v, shape);
  };
  Value x = arrange(lhs, ls, d.lhs_batch, lf, d.lhs_contract);
  Value y = arrange(rhs, rs, d.rhs_batch, d.rhs_contract, rf);
  Value z = b.matmul(x, y);
  std::vector<int64_t> shape = extents(ls, d.lhs_batch);
  for (int64_t e : extents(ls, lf)) shape.push_back(e);
  for (int64_t e : extents(rs, rf)) shape.push_back(e);
  return b.reshape(z, shape);
}

} // namespace

void define_general_dot(FunctionScope& s, OpRecord& rec, const DotDims& d) {
  std::vector<NodeId> operands = resolve_operands(s, rec);
  if (operands.size() != 2) {
    throw Error(rec.loc, fmt::format("'{}' expects 2 operands, got {}", rec.name, operands.size()));
  }
  define_expansion(s, rec, "permute, reshape, matmul, reshape", [&](Builder& b) {
    return general_dot(b, Value{operands[0]}, Value{operands[1]}, d, rec);
  });
}

} // namespace tilesat::text
