// post_order: a depth-first post-order of a graph that may have cycles, without recursion.
//
// Every node reachable from `roots` comes after the nodes its edges lead to, except along an
// edge back into a node on the current path (a cycle), which is skipped.
//
//   std::vector<int> order = post_order<int>({0}, [&](int v) { return edges[v]; });
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace tilesat::cost {

/// `children(v)` returns the nodes v leads to, in the order to visit them.
template <class Node, class Children>
std::vector<Node> post_order(const std::vector<Node>& roots, Children children) {
  std::vector<Node> order;
  std::unordered_map<Node, uint8_t> mark; // 1: on the path, 2: done
  struct Frame {
    Node node;
    std::vector<Node> next;
    size_t at = 0;
  };
  for (const Node& root : roots) {
    if (mark[root]) continue;
    std::vector<Frame> stack{Frame{root, children(root), 0}};
    mark[root] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      if (f.at < f.next.size()) {
        Node ch = f.next[f.at++];
        if (!mark[ch]) {
          mark[ch] = 1;
          stack.push_back(Frame{ch, children(ch), 0});
        }
        continue;
      }
      mark[f.node] = 2;
      order.push_back(f.node);
      stack.pop_back();
    }
  }
  return order;
}

} // namespace tilesat::cost
