// Graphviz export.
#include "tilesat/egraph/dot.h"

#include "tilesat/egraph/egraph.h"

#include <fmt/format.h>

namespace tilesat::egraph {
namespace {

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

} // namespace

std::string to_dot(const EGraph& eg) {
  std::string out = "digraph egraph {\n  compound=true\n  clusterrank=local\n";
  for (Id c : eg.classes()) {
    EClassRef cls = eg.eclass(c);
    out += fmt::format("  subgraph cluster_{} {{\n    style=dotted\n    label=\"e{}\"\n", c, c);
    for (std::size_t i = 0; i < cls.nodes.size(); ++i) {
      ENode n = eg.node(cls.nodes[i]);
      out += fmt::format("    {}.{}[label=\"{}\" shape=box]\n", c, i,
                         escape(node_head(n.op, eg.attrs(n.attrs))));
    }
    out += "  }\n";
  }
  for (Id c : eg.classes()) {
    EClassRef cls = eg.eclass(c);
    for (std::size_t i = 0; i < cls.nodes.size(); ++i) {
      ENode n = eg.node(cls.nodes[i]);
      for (std::size_t k = 0; k < n.children.size(); ++k) {
        Id child = eg.find(n.children[k]);
        // Point at the child's first node, clipped to its cluster.
        out +=
            fmt::format("  {}.{} -> {}.0 [lhead=cluster_{} label=\"{}\"]\n", c, i, child, child, k);
      }
    }
  }
  out += "}\n";
  return out;
}

} // namespace tilesat::egraph
