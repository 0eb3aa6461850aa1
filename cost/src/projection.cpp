// projection.cpp: the DP's choices projected to one e-node per class (projection.h).
#include "projection.h"

#include "tilesat/graph/diagnostic.h"

#include <deque>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <set>

namespace tilesat::cost {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class Projector {
public:
  Projector(const egraph::EGraph& eg, const ChoiceTable& dp,
            std::span<const std::pair<egraph::Id, uint32_t>> demands)
      : eg_(eg), dp_(dp), demands_(demands) {}

  Projection run() {
    if (walk()) return std::move(out_);
    // No e-node of some class will do: start again by depth, where every class takes the
    // choice of its placement shallowest in the DP's choices. Those are acyclic (the DP makes
    // a choice only on a strict improvement), so each class reads shallower classes only and
    // the walk cannot fail.
    out_ = Projection{};
    out_.by_depth = true;
    seen_.clear();
    path_.clear();
    walk();
    return std::move(out_);
  }

private:
  enum : uint8_t { kUnseen, kOpen, kDone };
  struct Frame {
    egraph::Id c;
    const Choice* choice;
    size_t next = 0; // operands visited, from the last
  };

  bool has_choice(egraph::Id c, uint32_t k) const {
    return dp_.cost(c, k) < kInf && dp_.choice(c, k).node != egraph::kNoId;
  }

  bool reads_open(egraph::NodeId n) {
    for (egraph::Id child : eg_.node(n).children)
      if (seen_[eg_.find(child)] == kOpen) return true;
    return false;
  }

  // An e-node of `c` that reads no open class, each operand at its cheapest placement.
  const Choice* detour(egraph::Id c) {
    for (egraph::NodeId n : eg_.eclass(c).nodes) {
      if (!dp_.computes(n) || reads_open(n)) continue;
      Choice ch{n, {}};
      for (egraph::Id child : eg_.node(n).children) {
        egraph::Id cc = eg_.find(child);
        std::optional<uint32_t> k = cc == c ? std::nullopt : dp_.cheapest(cc);
        if (!k) break;
        ch.child_placement.push_back(*k);
      }
      if (ch.child_placement.size() == eg_.node(n).children.size())
        return &detours_.emplace_back(std::move(ch));
    }
    return nullptr;
  }

  // Depth of placement `k0` of class `c0` in the DP's choices: 0 for a leaf, else one more
  // than the deepest operand placement it reads. Iterative (a deep model's chain of choices).
  uint32_t depth(egraph::Id c0, uint32_t k0) {
    std::vector<std::pair<egraph::Id, uint32_t>> pending{{c0, k0}};
    std::set<std::pair<egraph::Id, uint32_t>> expanded;
    while (!pending.empty()) {
      auto [c, k] = pending.back();
      if (depths_.count({c, k})) {
        pending.pop_back();
        continue;
      }
      expanded.insert({c, k});
      const Choice& ch = dp_.choice(c, k);
      const egraph::ENode node = eg_.node(ch.node);
      uint32_t deepest = 0;
      bool ready = true;
      for (size_t i = 0; i < node.children.size(); ++i) {
        std::pair<egraph::Id, uint32_t> at{eg_.find(node.children[i]), ch.child_placement[i]};
        if (auto it = depths_.find(at); it != depths_.end()) {
          deepest = std::max(deepest, it->second + 1);
        } else if (expanded.count(at) || !has_choice(at.first, at.second)) {
          throw InternalError(
              fmt::format("extraction: the DP's choice for class {} reads class {} {}", c, at.first,
                          expanded.count(at) ? "which reads it" : "without a choice"));
        } else {
          ready = false;
          pending.push_back(at);
        }
      }
      if (ready) {
        depths_[{c, k}] = deepest;
        pending.pop_back();
      }
    }
    return depths_.at({c0, k0});
  }

  uint32_t shallowest(egraph::Id c) {
    std::optional<std::pair<uint32_t, double>> best; // depth and cost
    uint32_t best_k = 0;
    for (uint32_t k = 0; k < dp_.placements(c); ++k) {
      if (!has_choice(c, k)) continue;
      std::pair<uint32_t, double> at{depth(c, k), dp_.cost(c, k)};
      if (!best || at < *best) {
        best = at;
        best_k = k;
      }
    }
    if (!best) throw InternalError(fmt::format("extraction: class {} has no choice", c));
    return best_k;
  }

  // Fixes class `c`'s e-node for a demand of placement `k`; false when none will do.
  bool open(egraph::Id c, uint32_t k) {
    if (out_.by_depth) k = shallowest(c);
    if (!has_choice(c, k))
      throw InternalError(fmt::format("extraction: placement {} of class {} has no choice", k, c));
    const Choice* ch = &dp_.choice(c, k);
    if (!out_.by_depth && reads_open(ch->node)) {
      std::optional<uint32_t> other;
      for (uint32_t j = 0; j < dp_.placements(c); ++j)
        if (has_choice(c, j) && !reads_open(dp_.choice(c, j).node) &&
            (!other || dp_.cost(c, j) < dp_.cost(c, *other)))
          other = j;
      if (other) {
        k = *other;
        ch = &dp_.choice(c, k);
      } else if (!(ch = detour(c))) {
        return false;
      }
      ++out_.detours;
    }
    out_.chosen[c] = {ch->node, k};
    seen_[c] = kOpen;
    path_.push_back(Frame{c, ch});
    return true;
  }

  bool walk() {
    for (auto it = demands_.rbegin(); it != demands_.rend(); ++it) {
      egraph::Id r = eg_.find(it->first);
      if (seen_[r] == kUnseen && !open(r, it->second)) return false;
      while (!path_.empty()) {
        Frame& f = path_.back();
        const egraph::ENode node = eg_.node(f.choice->node);
        if (f.next < node.children.size()) {
          size_t i = node.children.size() - 1 - f.next++;
          egraph::Id child = eg_.find(node.children[i]);
          if (seen_[child] == kUnseen && !open(child, f.choice->child_placement[i])) return false;
          continue;
        }
        seen_[f.c] = kDone;
        path_.pop_back();
      }
    }
    return true;
  }

  const egraph::EGraph& eg_;
  const ChoiceTable& dp_;
  std::span<const std::pair<egraph::Id, uint32_t>> demands_;
  Projection out_;
  std::unordered_map<egraph::Id, uint8_t> seen_;
  std::vector<Frame> path_;
  std::deque<Choice> detours_; // choices made outside the DP's, kept for the frames
  std::map<std::pair<egraph::Id, uint32_t>, uint32_t> depths_;
};

} // namespace

Projection project_choices(const egraph::EGraph& eg, const ChoiceTable& dp,
                           std::span<const std::pair<egraph::Id, uint32_t>> demands) {
  return Projector(eg, dp, demands).run();
}

} // namespace tilesat::cost
