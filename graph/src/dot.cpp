// dot.cpp: Graphviz export through Boost's write_graphviz.
#include "tilesat/graph/dot.h"

#include "boost_graph.h"

#include <algorithm>
#include <sstream>

namespace tilesat {

namespace {

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

struct NodeWriter {
  const Graph* g;
  template <class Vertex>
  void operator()(std::ostream& os, Vertex v) const {
    auto id = static_cast<NodeId>(v);
    const Node& n = g->node(id);
    std::string label = escaped(value_name(*g, id)) + "\\n" + std::string(op_name(n.kind));
    if (!n.attrs.empty()) {
      std::string attrs;
      for (const auto& [name, value] : n.attrs.entries()) {
        attrs += (attrs.empty() ? "" : ", ") + name + "=" + attr_value_str(value);
      }
      label += "\\n{" + escaped(attrs) + "}";
    }
    label += "\\n" + escaped(n.type.str());
    auto results = g->results();
    bool is_result = std::any_of(results.begin(), results.end(),
                                 [id](const GraphResult& r) { return r.value == id; });
    os << "[label=\"" << label << "\"";
    if (n.kind == OpKind::Argument) os << " shape=box";
    if (op_info(n.kind).has_trait(OpTrait::MultiChip)) os << " shape=hexagon";
    if (is_result) os << " peripheries=2";
    os << "]";
  }
};

} // namespace

std::string to_dot(const Graph& g) {
  std::ostringstream os;
  boost::write_graphviz(os, g.boost_graph().g, NodeWriter{&g});
  return os.str();
}

} // namespace tilesat
