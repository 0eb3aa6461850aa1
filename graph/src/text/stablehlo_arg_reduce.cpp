// stablehlo.reduce of a value and an index operand, as jnp.argmax and jnp.argmin write it:
//
//   %r:2 = stablehlo.reduce(%x init: %ninf), (%iota init: %zero) across dimensions = [1]
//          : (...) -> (tensor<4xf32>, tensor<4xi32>)
//     reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>) {
//       ... compare GT / EQ / LT, or, and, select ...
//       stablehlo.return %v, %k : tensor<f32>, tensor<i32>
//     }
//
// The region is not matched op by op (exporters write it in several ways): it is run on probe
// pairs by the reference interpreter, and read when it picks the larger (argmax) or smaller
// (argmin) value and, on ties, the smaller index. The result is then the extreme value and the
// smallest index holding it, init values included: max(x) and min(where(x == max, i, inf)).
#include "text/import.h"
#include "tilesat/graph/interpreter.h"

#include <array>
#include <cmath>
#include <fmt/format.h>

namespace tilesat::text {
namespace {

enum class Pick { Larger, Smaller };

/// Whether `region` (accumulated value and index, next value and index) selects by `pick`,
/// the smaller index on ties, on every probe.
bool selects(const Graph& region, DType value, DType index, Pick pick) {
  struct Probe {
    double a, i, b, j;
  };
  static constexpr std::array<Probe, 9> kProbes = {{{1, 0, 2, 1},
                                                    {2, 0, 1, 1},
                                                    {1, 0, 1, 1},
                                                    {1, 1, 1, 0},
                                                    {-5, 3, -4, 2},
                                                    {-4, 3, -5, 2},
                                                    {0, 7, 0, 7},
                                                    {3, 9, 3, 2},
                                                    {-1, 4, -1, 6}}};
  auto scalar = [](DType t, double v) {
    return Tensor(TensorType{t, Shape{}, ""}, {static_cast<float>(v)});
  };
  for (const Probe& p : kProbes) {
    std::vector<Tensor> args = {scalar(value, p.a), scalar(index, p.i), scalar(value, p.b),
                                scalar(index, p.j)};
    std::vector<Tensor> out;
    try {
      out = evaluate(region, args);
    } catch (const Error&) {
      return false;
    }
    bool better = pick == Pick::Larger ? p.a > p.b : p.a < p.b;
    bool first = better || (p.a == p.b && p.i < p.j);
    if (out.size() != 2 || out[0].numel() != 1 || out[1].numel() != 1) return false;
    if (out[0].data()[0] != static_cast<float>(first ? p.a : p.b) ||
        out[1].data()[0] != static_cast<float>(first ? p.i : p.j)) {
      return false;
    }
  }
  return true;
}

} // namespace

void import_arg_reduce(FunctionScope& s, OpRecord& rec) {
  reject_positional(rec);
  std::vector<NodeId> operands = resolve_operands(s, rec);
  if (operands.size() != 4) {
    throw Error(rec.loc, fmt::format("'{}' of {} operands is not supported (one operand, or a "
                                     "value and an index as jnp.argmax writes)",
                                     rec.name, operands.size() / 2));
  }
  std::array<TensorType, 4> t;
  for (size_t k = 0; k < 4; ++k) t[k] = s.graph.node(operands[k]).type;
  if (t[1].shape != t[0].shape) {
    throw Error(rec.operands[1].loc, fmt::format("'{}': the index operand {} must have the "
                                                 "value operand's shape {}",
                                                 rec.name, t[1].str(), t[0].shape.str()));
  }
  for (size_t k : {2, 3}) {
    if (t[k].shape.rank() != 0) {
      throw Error(rec.operands[k].loc, fmt::format("'{}': the init value {} must be rank-0, "
                                                   "got {}",
                                                   rec.name, rec.operands[k].name, t[k].str()));
    }
  }
  std::optional<Pick> pick;
  for (Pick p : {Pick::Larger, Pick::Smaller}) {
    if (!pick && selects(*rec.regions.at(0), t[0].dtype, t[1].dtype, p)) pick = p;
  }
  if (!pick) {
    throw Error(rec.loc, fmt::format("'{}': a reducer of a value and an index is read when it "
                                     "picks the larger (argmax) or smaller (argmin) value and "
                                     "the smaller index on ties, as jnp.argmax and jnp.argmin "
                                     "write it; this region does not",
                                     rec.name));
  }
  std::vector<int64_t> dims = reduce_dimensions(rec, t[0].shape.rank());
  if (dims.empty()) {
    throw Error(rec.loc, fmt::format("'{}': a reduce of a value and an index needs at least one "
                                     "dim in 'dimensions'",
                                     rec.name));
  }
  if (rec.results.size() != 2) {
    throw Error(rec.loc, fmt::format("'{}' of a value and an index has two results (write "
                                     "'{}:2 = ...')",
                                     rec.name, rec.result));
  }
  bool larger = *pick == Pick::Larger;
  std::string_view reading = larger ? "max, and the smallest index of it (argmax)"
                                    : "min, and the smallest index of it (argmin)";
  define_expansions(s, rec, reading, [&](Builder& b) {
    Value x{operands[0]}, v{operands[2]};
    auto extreme = [&](Value a, bool keep) {
      ReduceOptions o{.dims = dims, .keep_dim = keep};
      Value r = larger ? b.max(a, o) : b.neg(b.max(b.neg(a), o));
      return larger ? b.maximum(r, v) : b.minimum(r, v);
    };
    Value m = extreme(x, false);
    auto real = [&](Value a) {
      return b.type(a).dtype == DType::F32 ? a : b.typecast(a, DType::F32);
    };
    Value index = real(Value{operands[1]}), init = real(Value{operands[3]});
    Value hit = b.equal(x, extreme(x, true));
    Value candidates = b.where(hit, index, b.scalar(INFINITY, DType::F32));
    Value first = b.neg(b.max(b.neg(candidates), ReduceOptions{.dims = dims}));
    // The init pair takes part like any other: on a tie with the init value, its index counts.
    Value with_init = b.where(b.equal(m, v), b.minimum(first, init), first);
    return std::vector<Value>{m, with_init};
  });
}

} // namespace tilesat::text
