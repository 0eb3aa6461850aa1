// printer.cpp: canonical generic TTIR text (tt-mlir's printing style).
#include "tilesat/graph/printer.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#include <unordered_set>

namespace tilesat {
namespace {

/// Shortest `%.Ne` spelling (N >= 6, tt-mlir's default) that reads back as exactly `v`;
/// non-finite values use MLIR's hexadecimal f32 bit pattern.
std::string format_float(double v) {
  if (!std::isfinite(v)) {
    auto f = static_cast<float>(v);
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return fmt::format("0x{:08X}", bits);
  }
  for (int precision = 6; precision < 17; ++precision) {
    std::string s = fmt::format("{:.{}e}", v, precision);
    double back = 0;
    std::from_chars(s.data(), s.data() + s.size(), back);
    if (back == v) return s;
  }
  return fmt::format("{:.17e}", v);
}

std::string escape_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      out += fmt::format("\\{:02X}", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

bool is_bare_name(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '$' || c == '.';
    if (!ok) return false;
  }
  return !(s[0] >= '0' && s[0] <= '9');
}

/// tt-mlir's enum attributes, written `#ttcore.<attribute name><value>`.
bool is_enum_attr(std::string_view attr) {
  return attr == "shard_type" || attr == "shard_direction" || attr == "reduce_type";
}

/// Attributes the result type implies, which tt-mlir does not write (the parser restores
/// them): the group size of all_gather and reduce_scatter.
bool implied_by_type(OpKind kind, std::string_view attr) {
  return attr == "cluster_size" && (kind == OpKind::AllGather || kind == OpKind::ReduceScatter);
}

/// Spelling of an integer list: tt-mlir uses dense arrays for some attributes and
/// `[1 : i32, ...]` lists for the others.
std::string format_int_list(OpKind kind, std::string_view attr, const std::vector<int64_t>& v) {
  if (attr == "permutation" || attr == "shard_shape" || attr == "shard_dims")
    return v.empty() ? "array<i64>" : fmt::format("array<i64: {}>", fmt::join(v, ", "));
  if (kind == OpKind::Full && attr == "shape") {
    return v.empty() ? "array<i32>" : fmt::format("array<i32: {}>", fmt::join(v, ", "));
  }
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += fmt::format("{}{} : i32", i ? ", " : "", v[i]);
  return out + "]";
}

std::string format_attr(OpKind kind, std::string_view attr, const AttrValue& value) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          return v ? "true" : "false";
        } else if constexpr (std::is_same_v<T, int64_t>) {
          return fmt::format("{} : {}", v, attr == "cluster_axis" ? "ui32" : "si32");
        } else if constexpr (std::is_same_v<T, double>) {
          return format_float(v) + " : f32";
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (is_enum_attr(attr)) return fmt::format("#ttcore.{}<{}>", attr, v);
          return escape_string(v);
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          return format_int_list(kind, attr, v);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          if (v.empty()) return "array<f64>";
          std::string out = "array<f64: ";
          for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + format_float(v[i]);
          return out + ">";
        } else if constexpr (std::is_same_v<T, DType>) {
          return std::string(dtype_name(v));
        } else {
          return v.text;
        }
      },
      value);
}

/// dense<...> body for `values` laid out in `shape` (nested lists), or a splat.
std::string format_dense(const std::vector<double>& values, const Shape& shape) {
  if (values.size() == 1) return format_float(values[0]);
  if (static_cast<int64_t>(values.size()) != shape.numel() || shape.rank() == 0) {
    std::string out = "[";
    for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + format_float(values[i]);
    return out + "]";
  }
  // A list opens at the start of each block of dim d (block(d) elements) and closes at its end.
  std::vector<int64_t> strides = shape.strides();
  auto block = [&](int64_t d) {
    return d == 0 ? shape.numel() : strides[static_cast<size_t>(d - 1)];
  };
  std::string out;
  for (size_t i = 0; i < values.size(); ++i) {
    auto flat = static_cast<int64_t>(i);
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (block(d) > 0 && flat % block(d) == 0) out += "[";
    }
    out += format_float(values[i]);
    int64_t closes = 0;
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (block(d) > 0 && (flat + 1) % block(d) == 0) ++closes;
    }
    out.append(static_cast<size_t>(closes), ']');
    if (i + 1 < values.size()) out += ", ";
  }
  return out;
}

} // namespace

std::string print_attributes(const Node& n) {
  std::vector<std::string> parts;
  const Attrs& a = n.attrs;
  bool dense = n.kind == OpKind::Constant && a.has("value");
  for (const auto& [name, value] : a.entries()) {
    if (dense && (name == "shape" || name == "dtype")) continue;
    if (implied_by_type(n.kind, name)) continue;
    if (dense && name == "value") {
      TensorType t = n.type;
      t.encoding.clear();
      t.shape = Shape(a.get_or<std::vector<int64_t>>("shape", n.type.shape.dims()));
      t.dtype = a.get_or<DType>("dtype", n.type.dtype);
      const auto* values = std::get_if<std::vector<double>>(&value);
      if (values != nullptr) {
        parts.push_back(
            fmt::format("value = dense<{}> : {}", format_dense(*values, t.shape), t.str()));
        continue;
      }
    }
    parts.push_back(fmt::format("{} = {}", name, format_attr(n.kind, name, value)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string print_symbol(std::string_view name) {
  return is_bare_name(name) ? fmt::format("@{}", name) : "@" + escape_string(name);
}

std::string print_module_open(const Module& m) {
  std::string out = "module";
  if (!m.name.empty()) out += " " + print_symbol(m.name);
  if (!m.attributes.empty()) {
    out += " attributes {";
    for (size_t i = 0; i < m.attributes.size(); ++i) {
      const auto& [k, v] = m.attributes[i];
      out += (i ? ", " : "") + k + (v.empty() ? "" : " = " + v);
    }
    out += "}";
  }
  return out + " {\n";
}

namespace {

/// Every node, producers first (ties in id order); dead ops are kept so nothing is lost.
std::vector<NodeId> print_order(const Graph& g) {
  size_t n = g.num_nodes();
  std::vector<uint8_t> state(n, 0); // 0 new, 1 on stack, 2 done
  std::vector<NodeId> order;
  order.reserve(n);
  std::vector<std::pair<NodeId, size_t>> stack;
  for (NodeId root = 0; root < n; ++root) {
    if (state[root] != 0) continue;
    stack.emplace_back(root, 0);
    state[root] = 1;
    while (!stack.empty()) {
      auto& [id, next] = stack.back();
      const std::vector<NodeId>& ops = g.node(id).operands;
      if (next < ops.size()) {
        NodeId op = ops[next++];
        if (op >= n)
          throw Error(fmt::format("cannot print @{}: operand %{} does not exist", g.name(), op));
        if (state[op] == 1) {
          throw Error(fmt::format("cannot print @{}: the graph has a cycle through {}", g.name(),
                                  value_name(g, op)));
        }
        if (state[op] == 0) {
          state[op] = 1;
          stack.emplace_back(op, 0);
        }
        continue;
      }
      state[id] = 2;
      order.push_back(id);
      stack.pop_back();
    }
  }
  return order;
}

/// `destinations`: write tt-mlir's legacy destination-passing form, where every op with
/// operands takes a trailing `ttir.empty()` of its result type.
void print_function(std::string& out, const Graph& g, std::string_view indent, bool destinations) {
  // Arguments print as MLIR numbers them (%arg0, %arg1, ...); a name of the graph's own that
  // differs travels in a `ttir.name` attribute, as tt-mlir keeps names, and reads back.
  std::vector<std::string> names(g.num_nodes());
  std::span<const NodeId> args = g.arguments();
  out += fmt::format("{}func.func {}(", indent, print_symbol(g.name()));
  for (size_t i = 0; i < args.size(); ++i) {
    const Node& a = g.node(args[i]);
    names[args[i]] = fmt::format("%arg{}", i);
    out += fmt::format("{}{}: {}", i ? ", " : "", names[args[i]], a.type.str());
    std::string attrs = print_attributes(a);
    if (a.name != fmt::format("arg{}", i)) {
      attrs = "ttir.name = " + escape_string(a.name) + (attrs.empty() ? "" : ", " + attrs);
    }
    if (a.role == ArgRole::Weight) {
      attrs = "ttcore.argument_type = #ttcore.argument_type<parameter>" +
              (attrs.empty() ? "" : ", " + attrs);
    }
    if (!attrs.empty()) out += " {" + attrs + "}";
  }
  out += ")";
  std::span<const GraphResult> results = g.results();
  if (results.size() == 1) {
    out += " -> " + g.node(results[0].value).type.str();
  } else if (results.size() > 1) {
    out += " -> (";
    for (size_t i = 0; i < results.size(); ++i) {
      out += (i ? ", " : "") + g.node(results[i].value).type.str();
    }
    out += ")";
  }
  out += " {\n";
  int next = 0;
  for (NodeId id : print_order(g)) {
    const Node& n = g.node(id);
    if (n.kind == OpKind::Argument) continue;
    std::string operands, types;
    for (size_t i = 0; i < n.operands.size(); ++i) {
      operands += (i ? ", " : "") + names[n.operands[i]];
      types += (i ? ", " : "") + g.node(n.operands[i]).type.str();
    }
    if (destinations && !n.operands.empty()) {
      std::string empty = fmt::format("%{}", next++);
      out += fmt::format("{}  {} = ttir.empty() : {}\n", indent, empty, n.type.str());
      operands += ", " + empty;
      types += ", " + n.type.str();
    }
    names[id] = fmt::format("%{}", next++);
    std::string attrs = print_attributes(n);
    out +=
        fmt::format("{}  {} = \"ttir.{}\"({}){} : ({}) -> {}\n", indent, names[id], op_name(n.kind),
                    operands, attrs.empty() ? "" : " <{" + attrs + "}>", types, n.type.str());
  }
  out += fmt::format("{}  return", indent);
  for (size_t i = 0; i < results.size(); ++i) out += (i ? ", " : " ") + names[results[i].value];
  for (size_t i = 0; i < results.size(); ++i) {
    out += (i ? ", " : " : ") + g.node(results[i].value).type.str();
  }
  out += fmt::format("\n{}}}\n", indent);
}

void print_module(std::string& out, const Module& m) {
  out += print_module_open(m);
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (i > 0) out += "\n";
    print_function(out, m.functions[i], "  ", m.destination_passing);
  }
  out += "}\n";
}

} // namespace

std::string print_text(const SourceFile& file) {
  std::string out;
  for (const auto& [name, value] : file.aliases) out += name + " = " + value + "\n";
  for (size_t i = 0; i < file.modules.size(); ++i) {
    if (i > 0 || !file.aliases.empty()) out += "\n";
    print_module(out, file.modules[i]);
  }
  return out;
}

std::string print_graph(const Graph& graph) {
  std::string out = "module {\n";
  print_function(out, graph, "  ", false);
  return out + "}\n";
}

} // namespace tilesat
