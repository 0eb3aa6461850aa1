// Printing runner reports as a text table and as JSON.
#include "tilesat/egraph/runner.h"

#include <fmt/format.h>

namespace tilesat::egraph {

std::string_view to_string(StopReason r) {
  switch (r) {
  case StopReason::kSaturated:
    return "saturated";
  case StopReason::kIterationLimit:
    return "iteration-limit";
  case StopReason::kNodeLimit:
    return "node-limit";
  case StopReason::kTimeLimit:
    return "time-limit";
  case StopReason::kOther:
    return "other";
  }
  return "unknown";
}

std::string Stop::to_string() const {
  switch (reason) {
  case StopReason::kSaturated:
    return "saturated";
  case StopReason::kOther:
    return fmt::format("other: {}", message);
  case StopReason::kTimeLimit:
    return fmt::format("time-limit ({} s)", limit);
  default:
    return fmt::format("{} ({})", egraph::to_string(reason), limit);
  }
}

double Report::search_seconds() const {
  double s = 0;
  for (const auto& it : iterations) s += it.search_seconds;
  return s;
}
double Report::apply_seconds() const {
  double s = 0;
  for (const auto& it : iterations) s += it.apply_seconds;
  return s;
}
double Report::rebuild_seconds() const {
  double s = 0;
  for (const auto& it : iterations) s += it.rebuild_seconds;
  return s;
}

std::string Report::to_table() const {
  std::string out =
      fmt::format("{:>4} {:>10} {:>10} {:>10} {:>9} {:>10} {:>9} {:>10}\n", "iter", "enodes",
                  "eclasses", "matches", "applied", "search_ms", "apply_ms", "rebuild_ms");
  for (const auto& it : iterations)
    out += fmt::format("{:>4} {:>10} {:>10} {:>10} {:>9} {:>10.3f} {:>9.3f} {:>10.3f}\n", it.index,
                       it.egraph_nodes, it.egraph_classes, it.matches, it.applied,
                       it.search_seconds * 1e3, it.apply_seconds * 1e3, it.rebuild_seconds * 1e3);
  out += fmt::format("stop: {} after {} iterations, {} e-nodes, {} e-classes, {:.6f} s "
                     "(search {:.6f}, apply {:.6f}, rebuild {:.6f})\n",
                     stop.to_string(), iterations.size(), egraph_nodes, egraph_classes,
                     total_seconds, search_seconds(), apply_seconds(), rebuild_seconds());
  std::size_t width = 4;
  for (const auto& n : rule_names) width = std::max(width, n.size());
  out += fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>7}\n", "rule", width, "matches", "applied",
                     "declined", "banned");
  for (std::size_t r = 0; r < rule_names.size(); ++r) {
    std::size_t m = 0, a = 0, d = 0, b = 0;
    for (const auto& it : iterations) {
      if (r >= it.rules.size()) continue;
      m += it.rules[r].matches;
      a += it.rules[r].applied;
      d += it.rules[r].declined;
      b += it.rules[r].banned ? 1 : 0;
    }
    out += fmt::format("{:<{}} {:>10} {:>10} {:>10} {:>7}\n", rule_names[r], width, m, a, d, b);
  }
  return out;
}

namespace {

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20)
        out += fmt::format("\\u{:04x}", static_cast<int>(c));
      else
        out += c;
    }
  }
  out += '"';
  return out;
}

} // namespace

std::string Report::to_json() const {
  std::string out = "{";
  out += fmt::format("\"stop\":{{\"reason\":{},\"limit\":{},\"message\":{}}},",
                     json_string(egraph::to_string(stop.reason)), stop.limit,
                     json_string(stop.message));
  out += fmt::format("\"egraph_nodes\":{},\"egraph_classes\":{},\"total_seconds\":{},",
                     egraph_nodes, egraph_classes, total_seconds);
  out += "\"rules\":[";
  for (std::size_t r = 0; r < rule_names.size(); ++r) {
    if (r != 0) out += ',';
    out += json_string(rule_names[r]);
  }
  out += "],\"iterations\":[";
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    const Iteration& it = iterations[i];
    out += fmt::format(
        "{}{{\"index\":{},\"egraph_nodes\":{},\"egraph_classes\":{},"
        "\"matches\":{},\"applied\":{},\"union_pass_applied\":{},\"congruence_restores\":{},"
        "\"rebuild_unions\":{},"
        "\"search_seconds\":{},\"apply_seconds\":{},\"rebuild_seconds\":{},"
        "\"rules\":[",
        i ? "," : "", it.index, it.egraph_nodes, it.egraph_classes, it.matches, it.applied,
        it.union_pass_applied, it.congruence_restores, it.rebuild_unions, it.search_seconds,
        it.apply_seconds, it.rebuild_seconds);
    for (std::size_t r = 0; r < it.rules.size(); ++r)
      out += fmt::format("{}{{\"matches\":{},\"applied\":{},\"declined\":{},\"banned\":{}}}",
                         r ? "," : "", it.rules[r].matches, it.rules[r].applied,
                         it.rules[r].declined, it.rules[r].banned);
    out += "]}";
  }
  out += "]}";
  return out;
}

} // namespace tilesat::egraph
