// stablehlo.dynamic_slice and stablehlo.dynamic_update_slice whose start indices fold to
// constants, as JAX writes `lax.dynamic_slice(x, (0, shift), sizes)` with a traced but known
// shift (Flax GPT-2's causal mask without a cache). tilesat plans static shapes, so an index
// that depends on an argument is an error naming it.
//
//   %s = stablehlo.dynamic_slice %x, %c0, %c1, sizes = [2, 2]
//          : (tensor<4x4xf32>, tensor<i64>, tensor<i64>) -> tensor<2x2xf32>
//   reads as slice(x, begins = [0, 1], ends = [2, 3]) once %c0 and %c1 fold to 0 and 1.
#include "text/import.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tilesat::text {
namespace {

/// The start indices of `rec` (operands `first`...), each folded to a constant and clamped as
/// StableHLO clamps them: into [0, extent - size] of its dim.
std::vector<int64_t> start_indices(FunctionScope& s, const OpRecord& rec,
                                   const std::vector<NodeId>& operands, size_t first,
                                   const Shape& shape, const std::vector<int64_t>& sizes) {
  std::vector<int64_t> starts;
  for (size_t d = 0; d < sizes.size(); ++d) {
    const OperandRef& ref = rec.operands[first + d];
    std::optional<double> v = folded_scalar(s.graph, operands[first + d]);
    if (!v || !std::isfinite(*v)) {
      throw Error(ref.loc, fmt::format("start index {} of '{}' (dim {}) does not fold to a "
                                       "finite constant: tilesat plans static shapes",
                                       ref.name.empty() ? "literal" : ref.name, rec.name, d));
    }
    int64_t limit = shape[static_cast<int64_t>(d)] - sizes[d];
    auto start = static_cast<int64_t>(std::clamp(std::nearbyint(*v), -1.0, 1e15));
    starts.push_back(std::clamp<int64_t>(start, 0, limit));
  }
  return starts;
}

/// The operands of `rec`: `leading` tensors, then one rank-0 start index per dim of the first.
std::vector<NodeId> sliced_operands(FunctionScope& s, OpRecord& rec, size_t leading) {
  reject_positional(rec);
  std::vector<NodeId> operands = resolve_operands(s, rec);
  if (operands.size() < leading) {
    throw Error(rec.loc, fmt::format("'{}' expects at least {} operands, got {}", rec.name, leading,
                                     operands.size()));
  }
  int64_t rank = s.graph.node(operands[0]).type.shape.rank();
  if (operands.size() != leading + static_cast<size_t>(rank)) {
    throw Error(rec.loc,
                fmt::format("'{}' expects {} start indices (one per dim of {}), got {}", rec.name,
                            rank, s.graph.node(operands[0]).type.str(), operands.size() - leading));
  }
  for (size_t i = leading; i < operands.size(); ++i) {
    if (s.graph.node(operands[i]).type.shape.rank() != 0) {
      throw Error(rec.operands[i].loc,
                  fmt::format("start index {} of '{}' must be rank-0, got {}", rec.operands[i].name,
                              rec.name, s.graph.node(operands[i]).type.str()));
    }
  }
  return operands;
}

/// `x` with `u` written at `starts`: along dim `d` the rows before and after the update are
/// kept and the rows it covers are built the same way along the next dims.
Value place(Builder& b, Value x, Value u, const std::vector<int64_t>& starts, size_t d) {
  if (d == starts.size()) return u;
  std::vector<int64_t> dims = b.type(x).shape.dims();
  int64_t extent = b.type(u).shape[static_cast<int64_t>(d)];
  int64_t begin = starts[d], end = begin + extent;
  auto rows = [&](int64_t from, int64_t to) {
    if (from == 0 && to == dims[d]) return x;
    std::vector<int64_t> lo(dims.size(), 0), hi = dims;
    lo[d] = from;
    hi[d] = to;
    return b.slice(x, lo, hi);
  };
  std::vector<Value> parts;
  if (begin > 0) parts.push_back(rows(0, begin));
  // Past dim d the update may cover every row: then it is the middle part itself.
  bool covers = true;
  for (size_t k = d + 1; k < starts.size(); ++k) {
    covers = covers && starts[k] == 0 && b.type(u).shape[static_cast<int64_t>(k)] == dims[k];
  }
  parts.push_back(covers ? u : place(b, rows(begin, end), u, starts, d + 1));
  if (end < dims[d]) parts.push_back(rows(end, dims[d]));
  return parts.size() > 1 ? b.concat(parts, static_cast<int64_t>(d)) : parts[0];
}

} // namespace

void import_dynamic_slice(FunctionScope& s, OpRecord& rec) {
  std::vector<NodeId> operands = sliced_operands(s, rec, 1);
  Shape shape = s.graph.node(operands[0]).type.shape;
  const ParsedAttr* a = rec.attr("sizes");
  if (a == nullptr) a = rec.attr("slice_sizes");
  if (a == nullptr) throw Error(rec.loc, fmt::format("'{}' needs attribute 'sizes'", rec.name));
  std::vector<int64_t> sizes = int_list(*a, "sizes", rec.name);
  if (sizes.size() != static_cast<size_t>(shape.rank())) {
    throw Error(a->loc, fmt::format("attribute 'sizes' of '{}': expected {} sizes, got {}",
                                    rec.name, shape.rank(), sizes.size()));
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0 || sizes[d] > shape[static_cast<int64_t>(d)]) {
      throw Error(a->loc, fmt::format("attribute 'sizes' of '{}': size {} of dim {} is outside "
                                      "[0, {}]",
                                      rec.name, sizes[d], d, shape[static_cast<int64_t>(d)]));
    }
  }
  std::vector<int64_t> begins = start_indices(s, rec, operands, 1, shape, sizes);
  std::vector<int64_t> ends = begins;
  for (size_t d = 0; d < ends.size(); ++d) ends[d] += sizes[d];
  define_expansion(s, rec, "slice at the folded start indices",
                   [&](Builder& b) { return b.slice(Value{operands[0]}, begins, ends); });
}

void import_dynamic_update_slice(FunctionScope& s, OpRecord& rec) {
  std::vector<NodeId> operands = sliced_operands(s, rec, 2);
  TensorType xt = s.graph.node(operands[0]).type, ut = s.graph.node(operands[1]).type;
  if (ut.shape.rank() != xt.shape.rank() || ut.dtype != xt.dtype) {
    throw Error(rec.operands[1].loc, fmt::format("'{}': the update {} must have the rank and "
                                                 "element type of the operand {}",
                                                 rec.name, ut.str(), xt.str()));
  }
  std::vector<int64_t> sizes = ut.shape.dims();
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] > xt.shape[static_cast<int64_t>(d)]) {
      throw Error(rec.operands[1].loc,
                  fmt::format("'{}': the update {} is larger than the operand {} in dim {}",
                              rec.name, ut.str(), xt.str(), d));
    }
  }
  std::vector<int64_t> starts = start_indices(s, rec, operands, 2, xt.shape, sizes);
  define_expansion(
      s, rec, "slices of the operand around the update, concatenated",
      [&](Builder& b) { return place(b, Value{operands[0]}, Value{operands[1]}, starts, 0); });
}

} // namespace tilesat::text
