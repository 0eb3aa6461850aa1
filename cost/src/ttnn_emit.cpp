// ttnn_emit.cpp: printing plans in tt-mlir's TTNN dialect.
#include "tilesat/cost/ttnn_emit.h"

#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/placement.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/printer.h"

#include <array>
#include <fmt/format.h>
#include <map>
#include <set>

namespace tilesat::cost {
namespace {

int64_t ceil_tiles(int64_t elements) {
  return (elements + 31) / 32;
}

/// The affine map folding the logical dims into 2-D (rows, columns), as tt-mlir writes it:
/// `(d0, d1, d2) -> (d0 * 32 + d1, d2)`.
std::string collapse_map(const Shape& s) {
  int64_t r = s.rank();
  if (r == 0) return "() -> (0, 0)";
  std::vector<std::string> dims;
  for (int64_t i = 0; i < r; ++i) dims.push_back(fmt::format("d{}", i));
  std::string rows = "0";
  if (r >= 2) {
    std::vector<std::string> terms;
    int64_t stride = 1;
    for (int64_t i = r - 2; i >= 0; --i) {
      terms.insert(terms.begin(),
                   stride == 1 ? dims[static_cast<size_t>(i)]
                               : fmt::format("{} * {}", dims[static_cast<size_t>(i)], stride));
      stride *= s[i];
    }
    rows = fmt::format("{}", fmt::join(terms, " + "));
  }
  return fmt::format("({}) -> ({}, {})", fmt::join(dims, ", "), rows, dims.back());
}

std::string_view buffer_word(BufferType b) {
  return b == BufferType::DRAM ? "dram" : "l1";
}

/// `<2x3, (d0, d1) -> (d0, d1)>`: the shard grid (virtual, as tt-mlir lays out height and
/// width sharding over N x 1 and 1 x N) and its map onto physical cores (row, column).
std::string grid_attr(const TensorType& type, const Placement& p) {
  if (p.memory == MemoryLayout::Interleaved) return "<1x1>";
  uint32_t r = p.grid.rows, c = p.grid.cols;
  auto n = static_cast<uint32_t>(shard_count(type, p));
  if (p.memory == MemoryLayout::HeightSharded && c > 1)
    return fmt::format("<{}x1, (d0, d1) -> (d0 floordiv {}, d0 mod {})>", n, c, c);
  if (p.memory == MemoryLayout::WidthSharded && c > 1)
    return fmt::format("<1x{}, (d0, d1) -> (d1 floordiv {}, d1 mod {})>", n, c, c);
  if (p.memory == MemoryLayout::HeightSharded)
    return fmt::format("<{}x1, (d0, d1) -> (d0, d1)>", n);
  if (p.memory == MemoryLayout::WidthSharded) return fmt::format("<1x{}, (d0, d1) -> (d0, d1)>", n);
  return fmt::format("<{}x{}, (d0, d1) -> (d0, d1)>", r, c);
}

/// `memref<2x3x!ttcore.tile<32x32, bf16>, #dram>`: the whole tensor (interleaved) or one
/// shard, in tiles or elements. `buffer` is the buffer alias's name.
std::string memref_attr(const TensorType& type, const Placement& p, std::string_view buffer) {
  std::array<int64_t, 2> extent{};
  if (p.memory != MemoryLayout::Interleaved) {
    extent = p.shard_shape;
    if (p.layout == Layout::Tile) extent = {ceil_tiles(extent[0]), ceil_tiles(extent[1])};
  } else if (p.layout == Layout::Tile) {
    extent = CostModel::tiles_2d(type.shape);
  } else {
    int64_t r = type.shape.rank();
    int64_t rows = 1;
    for (int64_t i = 0; i + 1 < r; ++i) rows *= type.shape[i];
    extent = {rows, r >= 1 ? type.shape[r - 1] : 1};
  }
  std::string element = p.layout == Layout::Tile
                            ? fmt::format("!ttcore.tile<32x32, {}>", dtype_name(type.dtype))
                            : std::string(dtype_name(type.dtype));
  return fmt::format("memref<{}x{}x{}, {}>", extent[0], extent[1], element, buffer);
}

std::string layout_attr(const TensorType& type, const Placement& p, std::string_view buffer) {
  return fmt::format("#ttnn.ttnn_layout<{}, {}, {}, <{}>>", collapse_map(type.shape),
                     grid_attr(type, p), memref_attr(type, p, buffer),
                     memory_layout_name(p.memory));
}

/// The aliases of one output file: names given on first use, definitions in that order.
class Aliases {
public:
  explicit Aliases(std::set<std::string> taken) : taken_(std::move(taken)) {}

  std::string buffer(BufferType b) {
    std::string value = fmt::format("#ttnn.buffer_type<{}>", buffer_word(b));
    return name_of(value, fmt::format("#{}", buffer_word(b)));
  }

  std::string layout(const TensorType& type, const Placement& p) {
    return name_of(layout_attr(type, p, buffer(p.buffer)), "#ttnn_layout");
  }

  /// The definitions, buffers first (as tt-mlir prints them).
  std::string definitions() const {
    std::string out;
    for (bool buffers : {true, false})
      for (const auto& [name, value] : defs_)
        if (value.starts_with("#ttnn.buffer_type") == buffers)
          out += fmt::format("{} = {}\n", name, value);
    return out;
  }

private:
  std::string name_of(const std::string& value, const std::string& stem) {
    if (auto it = by_value_.find(value); it != by_value_.end()) return it->second;
    std::string name = stem;
    for (int i = 1; taken_.count(name); ++i) name = fmt::format("{}{}", stem, i);
    taken_.insert(name);
    by_value_.emplace(value, name);
    defs_.emplace_back(name, value);
    return name;
  }

  std::set<std::string> taken_;
  std::map<std::string, std::string> by_value_;
  std::vector<std::pair<std::string, std::string>> defs_;
};

/// `#ttnn.memory_config<#l1, <block_sharded>, #ttnn.shard_spec<...>>` for a conversion.
std::string memory_config(Aliases& aliases, const TensorType& type, const Placement& p) {
  std::string out = fmt::format("#ttnn.memory_config<{}, <{}>", aliases.buffer(p.buffer),
                                memory_layout_name(p.memory));
  if (p.memory != MemoryLayout::Interleaved) {
    // The shards' cores: the grid, or its whole rows and part of the next when a height or
    // width sharding leaves the last row short.
    const int64_t n = shard_count(type, p), c = p.grid.cols;
    std::vector<std::string> ranges;
    if (n >= p.grid.cores() || p.memory == MemoryLayout::BlockSharded) {
      ranges.push_back(fmt::format("#ttnn.core_range<(0,0), ({},{})>", c - 1, p.grid.rows - 1));
    } else {
      if (n / c > 0)
        ranges.push_back(fmt::format("#ttnn.core_range<(0,0), ({},{})>", c - 1, n / c - 1));
      if (n % c > 0)
        ranges.push_back(fmt::format("#ttnn.core_range<(0,{}), ({},{})>", n / c, n % c - 1, n / c));
    }
    out += fmt::format(", #ttnn.shard_spec<<[{}]>, <{}x{}>, <row_major>>", fmt::join(ranges, ", "),
                       p.shard_shape[0], p.shard_shape[1]);
  }
  return out + ">";
}

/// The op name and properties of a planned (non-conversion) op.
std::pair<std::string, std::string> op_text(const Node& n) {
  if (n.kind != OpKind::Matmul && n.kind != OpKind::Linear)
    return {std::string(op_name(n.kind)), print_attributes(n)};
  // tt-mlir's ttnn.matmul carries an activation; ttnn.linear adds the bias.
  std::string attrs;
  std::string act = n.attrs.get_or<std::string>("activation", "");
  if (!act.empty()) attrs = fmt::format("activation = \"{}\", ", act);
  attrs +=
      fmt::format("transpose_a = {}, transpose_b = {}", n.attrs.get_or<bool>("transpose_a", false),
                  n.attrs.get_or<bool>("transpose_b", false));
  return {n.operands.size() == 3 ? "linear" : "matmul", attrs};
}

class FunctionEmitter {
public:
  FunctionEmitter(const Plan& plan, Aliases& aliases)
      : plan_(plan), g_(plan.graph), aliases_(aliases), names_(plan.values.size()) {}

  std::string run(std::string_view indent) {
    std::span<const NodeId> args = g_.arguments();
    std::vector<std::string> params;
    for (size_t i = 0; i < args.size(); ++i) {
      names_[i] = fmt::format("%arg{}", i);
      params.push_back(fmt::format("{}: {}", names_[i], type_of(static_cast<uint32_t>(i))));
    }
    std::vector<std::string> result_types;
    for (uint32_t v : plan_.results) result_types.push_back(type_of(v));
    std::string out = fmt::format(
        "{}// {} on {}{}: {} device op{}, {:.2f} us predicted{}\n", indent, print_symbol(g_.name()),
        plan_.device,
        plan_.mesh_shape[0] * plan_.mesh_shape[1] > 1
            ? fmt::format(" (mesh {}x{}, every chip this program)", plan_.mesh_shape[0],
                          plan_.mesh_shape[1])
            : "",
        plan_.ops.size(), plan_.ops.size() == 1 ? "" : "s", plan_.predicted_total_us,
        plan_.predicted_one_time_us > 0 ? fmt::format(" (+ {:.2f} us of one-time const-eval ops "
                                                      "first)",
                                                      plan_.predicted_one_time_us)
                                        : "");
    out +=
        fmt::format("{}func.func {}({})", indent, print_symbol(g_.name()), fmt::join(params, ", "));
    if (result_types.size() == 1)
      out += " -> " + result_types[0];
    else if (result_types.size() > 1)
      out += fmt::format(" -> ({})", fmt::join(result_types, ", "));
    out += " {\n";
    body_indent_ = std::string(indent) + "  ";
    for (const PlannedOp& op : plan_.ops) emit_op(out, op);
    std::vector<std::string> results;
    for (uint32_t v : plan_.results) results.push_back(use(out, v));
    out += body_indent_ + "return";
    if (!results.empty())
      out += fmt::format(" {} : {}", fmt::join(results, ", "), fmt::join(result_types, ", "));
    return out + fmt::format("\n{}}}\n", indent);
  }

private:
  std::string type_of(uint32_t v) {
    TensorType t = g_.node(plan_.values[v].node).type;
    t.encoding = aliases_.layout(t, plan_.values[v].placement);
    return t.str();
  }

  /// The name of value `v`, first emitting the constant it holds when nothing defined it.
  std::string use(std::string& out, uint32_t v) {
    if (!names_[v].empty()) return names_[v];
    const Node& n = g_.node(plan_.values[v].node);
    if (n.kind != OpKind::Constant)
      throw InternalError(fmt::format("plan of @{}: value {} ({}) is used before it is defined",
                                      g_.name(), v, value_name(g_, plan_.values[v].node)));
    names_[v] = fmt::format("%{}", next_++);
    out += fmt::format("{}{} = \"ttnn.constant\"() <{{{}}}> : () -> {}\n", body_indent_, names_[v],
                       print_attributes(n), type_of(v));
    return names_[v];
  }

  // A split_heads of a fused Q/K/V projection whose three parts are all in the plan (only the
  // key transposed, if any) is ttnn's one split_query_key_value_and_split_heads: emitted at
  // its first part with three results, which the later parts name. False when `op` is not
  // such a part.
  bool emit_qkv_split(std::string& out, const PlannedOp& op) {
    const Node& n = g_.node(op.node);
    if (n.kind != OpKind::SplitHeads || n.attrs.get_or<int64_t>("parts", 1) != 3) return false;
    if (!names_[op.result].empty()) return true;
    const int64_t heads = n.attrs.get<int64_t>("num_heads");
    std::array<const PlannedOp*, 3> part{};
    for (const PlannedOp& o : plan_.ops) {
      if (o.is_to_layout() || o.operands.empty() || o.operands[0] != op.operands[0]) continue;
      const Node& m = g_.node(o.node);
      if (m.kind != OpKind::SplitHeads || m.attrs.get_or<int64_t>("parts", 1) != 3 ||
          m.attrs.get<int64_t>("num_heads") != heads)
        continue;
      auto k = static_cast<size_t>(m.attrs.get_or<int64_t>("part", 0));
      if (k < 3 && !part[k]) part[k] = &o;
    }
    auto transposed = [&](size_t k) {
      return g_.node(part[k]->node).attrs.get_or<bool>("transpose", false);
    };
    if (!part[0] || !part[1] || !part[2] || transposed(0) || transposed(2)) return false;
    std::string x = use(out, op.operands[0]), base = fmt::format("%{}", next_++);
    std::vector<std::string> types;
    for (size_t k = 0; k < 3; ++k) {
      names_[part[k]->result] = fmt::format("{}#{}", base, k);
      types.push_back(type_of(part[k]->result));
    }
    out += fmt::format("{}{}:3 = \"ttnn.split_query_key_value_and_split_heads\"({}) <{{num_heads = "
                       "{} : ui32, transpose_key = {}}}> : ({}) -> ({})\n",
                       body_indent_, base, x, heads, transposed(1), type_of(op.operands[0]),
                       fmt::join(types, ", "));
    return true;
  }

  void emit_op(std::string& out, const PlannedOp& op) {
    if (emit_qkv_split(out, op)) return;
    std::vector<std::string> operands, types;
    for (uint32_t v : op.operands) {
      operands.push_back(use(out, v));
      types.push_back(type_of(v));
    }
    std::string name, attrs;
    if (op.is_to_layout()) {
      const Placement& from = plan_.values[op.operands.at(0)].placement;
      const Placement& to = plan_.values[op.result].placement;
      bool moves = from.buffer != to.buffer || from.memory != to.memory || from.grid != to.grid ||
                   from.shard_shape != to.shard_shape;
      if (from.layout != to.layout) {
        name = "to_layout";
        attrs = fmt::format("layout = #ttnn.layout<{}>", layout_name(to.layout));
        if (moves)
          attrs += ", memory_config = " +
                   memory_config(aliases_, g_.node(plan_.values[op.result].node).type, to);
      } else {
        name = "to_memory_config";
        attrs = "memory_config = " +
                memory_config(aliases_, g_.node(plan_.values[op.result].node).type, to);
      }
    } else {
      std::tie(name, attrs) = op_text(g_.node(op.node));
    }
    names_[op.result] = fmt::format("%{}", next_++);
    // On a mesh: how the result is spread over the chips, and each collective's time.
    std::string mesh;
    if (const std::string& d = plan_.distribution(op.result); !d.empty()) {
      bool collective =
          op.kind == "all_gather" || op.kind == "reduce_scatter" || op.kind == "all_reduce";
      mesh = collective ? fmt::format(" // {}, {:.2f} us", d, op.predicted_us)
                        : fmt::format(" // {}", d);
    }
    out += fmt::format("{}{} = \"ttnn.{}\"({}){} : ({}) -> {}{}\n", body_indent_, names_[op.result],
                       name, fmt::join(operands, ", "), attrs.empty() ? "" : " <{" + attrs + "}>",
                       fmt::join(types, ", "), type_of(op.result), mesh);
  }

  const Plan& plan_;
  const Graph& g_;
  Aliases& aliases_;
  std::vector<std::string> names_;
  std::string body_indent_;
  int next_ = 0;
};

bool is_ttnn_layout_alias(const std::string& value) {
  return value.starts_with("#ttnn.ttnn_layout") || value.starts_with("#ttnn.buffer_type");
}

} // namespace

std::string ttnn_layout_attr(const TensorType& type, const Placement& p) {
  return layout_attr(type, p, fmt::format("#{}", buffer_word(p.buffer)));
}

std::string emit_ttnn(const SourceFile& file, std::span<const Plan> plans) {
  size_t functions = 0;
  for (const Module& m : file.modules) functions += m.functions.size();
  if (functions != plans.size())
    throw InternalError(
        fmt::format("emit_ttnn: {} plans for {} functions", plans.size(), functions));
  // The file's own aliases stay, except TTNN layouts of its input, which the plans replace.
  std::string kept;
  std::set<std::string> taken;
  for (const auto& [name, value] : file.aliases) {
    if (is_ttnn_layout_alias(value)) continue;
    kept += fmt::format("{} = {}\n", name, value);
    taken.insert(name);
  }
  Aliases aliases(taken);
  std::string body;
  size_t next = 0;
  for (const Module& m : file.modules) {
    body += "\n" + print_module_open(m);
    for (size_t i = 0; i < m.functions.size(); ++i) {
      if (i > 0) body += "\n";
      body += FunctionEmitter(plans[next++], aliases).run("  ");
    }
    body += "}\n";
  }
  return kept + aliases.definitions() + body;
}

std::string emit_ttnn(const Plan& plan) {
  SourceFile file;
  file.modules.emplace_back();
  file.modules[0].functions.push_back(plan.graph);
  return emit_ttnn(file, std::span<const Plan>(&plan, 1));
}

} // namespace tilesat::cost
