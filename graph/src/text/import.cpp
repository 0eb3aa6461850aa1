// import.cpp: value scoping, operand resolution and attribute conversion for the importers.
#include "text/import.h"

#include <fmt/format.h>

namespace tilesat::text {

NodeId lookup_value(FunctionScope& s, const OperandRef& ref) {
  auto it = s.values.find(ref.name);
  if (it != s.values.end()) return it->second;
  if (s.empties.count(ref.name) != 0) {
    throw Error(ref.loc, fmt::format("{} is a ttir.empty() destination; it can only be the last "
                                     "operand of an op",
                                     ref.name));
  }
  throw Error(ref.loc, fmt::format("use of undefined value {}", ref.name));
}

namespace {

void check_new_name(FunctionScope& s, const OpRecord& rec) {
  auto prev = s.defined_at.find(rec.result);
  if (prev != s.defined_at.end()) {
    throw Error(rec.loc, fmt::format("redefinition of {} (first defined at {})", rec.result,
                                     prev->second.str()));
  }
  s.defined_at.emplace(rec.result, rec.loc);
}

} // namespace

void define_alias(FunctionScope& s, const OpRecord& rec, NodeId id) {
  check_new_name(s, rec);
  s.values.emplace(rec.result, id);
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

void set_matmul_transposes(const OpRecord& rec, const DotDims& d, Attrs& attrs) {
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
  if (!ok) {
    auto list = [](const std::vector<int64_t>& v) {
      return fmt::format("[{}]", fmt::join(v, ", "));
    };
    throw Error(rec.loc,
                fmt::format("cannot convert '{}' to ttir.matmul: contracting dims {} x {} "
                            "and batching dims {} x {} on operands of rank {} and {} "
                            "(expected one of the last two dims of each operand, with "
                            "batching dims leading)",
                            rec.name, list(lc), list(rc), list(lb), list(rb), ra, rb_rank));
  }
  attrs.set("transpose_a", lc[0] == ra - 2);
  attrs.set("transpose_b", rc[0] == rb_rank - 1);
}

} // namespace tilesat::text
