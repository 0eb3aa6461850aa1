// collective_cost.cpp: ring and line all_gather / reduce_scatter / all_reduce times (the
// formulas and their sources are in collective_cost.h).
#include "tilesat/cost/collective_cost.h"

#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace tilesat::cost {

std::string_view collective_name(Collective c) {
  switch (c) {
  case Collective::AllGather:
    return "all_gather";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  case Collective::AllReduce:
    return "all_reduce";
  }
  throw InternalError("bad Collective");
}

Collective parse_collective(std::string_view name) {
  for (Collective c : {Collective::AllGather, Collective::ReduceScatter, Collective::AllReduce})
    if (collective_name(c) == name) return c;
  throw Error(fmt::format(
      "unknown collective '{}' (expected all_gather, reduce_scatter or all_reduce)", name));
}

namespace {

CollectiveGroup group_of(const Device& d, int64_t chips, MeshTopology topology,
                         int64_t available_links, int64_t links, const std::string& where) {
  if (links < 0 || links > available_links)
    throw Error(fmt::format("{}: {} links asked for, the mesh has {} between neighbours{}", d.name,
                            links, available_links, where));
  return CollectiveGroup{.chips = chips,
                         .topology = topology,
                         .links = links == 0 ? available_links : links,
                         .link_bandwidth_gb_s = d.mesh->link_bandwidth_gb_s,
                         .hop_latency_us = d.mesh->hop_latency_us,
                         .launch_us = d.launch_us};
}

CollectiveEstimate one_pass(Collective op, double bytes, const CollectiveGroup& g) {
  CollectiveEstimate e;
  const auto n = static_cast<double>(g.chips);
  // Bytes over the busiest link direction: a ring splits the data both ways round the ring.
  double share = (n - 1) / n * bytes;
  e.link_bytes = g.topology == MeshTopology::Ring ? share / 2 : share;
  e.steps = g.chips - 1;
  e.launch_us = g.launch_us;
  e.latency_us = static_cast<double>(e.steps) * g.hop_latency_us;
  // GB/s is 1e3 bytes per microsecond.
  e.transfer_us = e.link_bytes / (static_cast<double>(g.links) * g.link_bandwidth_gb_s * 1e3);
  e.us = e.launch_us + e.latency_us + e.transfer_us;
  e.detail =
      fmt::format("{} {} of {} chips, {} link(s): {:.0f} B per link direction at {} GB/s "
                  "= {:.2f} us, {} hops x {} us, launch {} us",
                  collective_name(op), topology_name(g.topology), g.chips, g.links, e.link_bytes,
                  g.link_bandwidth_gb_s, e.transfer_us, e.steps, g.hop_latency_us, g.launch_us);
  return e;
}

std::string dominant_of(const CollectiveEstimate& e) {
  if (e.transfer_us >= e.latency_us && e.transfer_us >= e.launch_us) return "transfer";
  return e.latency_us >= e.launch_us ? "latency" : "launch";
}

} // namespace

CollectiveGroup axis_group(const Device& device, int axis, int64_t links) {
  if (axis != 0 && axis != 1)
    throw Error(fmt::format("{}: mesh axis {} (expected 0 or 1)", device.name, axis));
  if (!device.mesh) return CollectiveGroup{.launch_us = device.launch_us};
  const Mesh& m = *device.mesh;
  const auto a = static_cast<size_t>(axis);
  return group_of(device, m.shape[a], m.axis_topology[a], m.links_per_pair[a], links,
                  fmt::format(" along axis {}", axis));
}

CollectiveGroup all_chips_group(const Device& device, int64_t links) {
  if (!device.mesh) return CollectiveGroup{.launch_us = device.launch_us};
  const Mesh& m = *device.mesh;
  if (m.ring_over_all_chips)
    return group_of(device, m.chips(), MeshTopology::Ring,
                    std::min(m.links_per_pair[0], m.links_per_pair[1]), links, "");
  if (m.shape[0] == 1) return axis_group(device, 1, links);
  if (m.shape[1] == 1) return axis_group(device, 0, links);
  throw Error(fmt::format("{}: its {}x{} mesh has no ring through every chip; run the collective "
                          "along an axis",
                          device.name, m.shape[0], m.shape[1]));
}

CollectiveEstimate collective_cost(Collective op, double bytes, const CollectiveGroup& g) {
  if (!(bytes >= 0) || !std::isfinite(bytes))
    throw Error(fmt::format("{}: expected a size of zero or more bytes, got {}",
                            collective_name(op), bytes));
  if (g.chips < 1)
    throw Error(
        fmt::format("{}: expected at least one chip, got {}", collective_name(op), g.chips));
  CollectiveEstimate e;
  if (g.chips == 1) {
    e.dominant = "launch";
    e.detail = fmt::format("{} on one chip: nothing to move", collective_name(op));
    return e;
  }
  if (g.links < 1 || !(g.link_bandwidth_gb_s > 0) || !(g.hop_latency_us >= 0) ||
      !(g.launch_us >= 0))
    throw Error(fmt::format("{} over {} chips: expected at least one link, a positive bandwidth "
                            "and non-negative latency and launch (got {} links, {} GB/s, {} us, "
                            "{} us)",
                            collective_name(op), g.chips, g.links, g.link_bandwidth_gb_s,
                            g.hop_latency_us, g.launch_us));
  if (op != Collective::AllReduce) {
    e = one_pass(op, bytes, g);
  } else {
    CollectiveEstimate rs = one_pass(Collective::ReduceScatter, bytes, g);
    CollectiveEstimate ag = one_pass(Collective::AllGather, bytes, g);
    e.launch_us = rs.launch_us + ag.launch_us;
    e.latency_us = rs.latency_us + ag.latency_us;
    e.transfer_us = rs.transfer_us + ag.transfer_us;
    e.steps = rs.steps + ag.steps;
    e.link_bytes = rs.link_bytes + ag.link_bytes;
    e.us = rs.us + ag.us;
    e.detail = fmt::format("all_reduce = {}; then {}", rs.detail, ag.detail);
  }
  e.dominant = dominant_of(e);
  return e;
}

} // namespace tilesat::cost
