// devices.cpp: `tilesat devices [NAME|FILE]...` lists the shipped device descriptors (a mesh
// with its shape), or shows the given ones field by field with each number's source.
#include "cli.h"
#include "tilesat/cost/device.h"

#include <algorithm>
#include <fmt/format.h>

namespace tilesat::cli {
namespace {

// The mesh section's fields as `tilesat devices NAME` prints them.
std::vector<std::pair<std::string, std::string>> mesh_fields(const cost::Mesh& m) {
  auto per_axis = [](const auto& v) { return fmt::format("{} (axis 0), {} (axis 1)", v[0], v[1]); };
  return {
      {"mesh.chip", m.chip},
      {"mesh.shape", fmt::format("{}x{} ({} chips)", m.shape[0], m.shape[1], m.chips())},
      {"mesh.topology", per_axis(std::array{cost::topology_name(m.axis_topology[0]),
                                            cost::topology_name(m.axis_topology[1])})},
      {"mesh.ring_over_all_chips", m.ring_over_all_chips ? "true" : "false"},
      {"mesh.links_per_pair", per_axis(m.links_per_pair)},
      {"mesh.link_bandwidth_gb_s", fmt::format("{}", m.link_bandwidth_gb_s)},
      {"mesh.hop_latency_us", fmt::format("{}", m.hop_latency_us)},
  };
}

std::string describe(const cost::Device& d) {
  std::string out = fmt::format("{} ({}): {}\n  file: {}\n", d.name, d.arch, d.description, d.path);
  for (const std::string& base : d.bases)
    out += fmt::format("  extends: {} (the fields this file does not write)\n", base);
  auto grid = [](const cost::CoreGrid& g) {
    return fmt::format("{}x{} ({} cores)", g.rows, g.cols, g.cores());
  };
  std::vector<std::pair<std::string, std::string>> values = {
      {"grid_full", grid(d.grid_full)},
      {"grid_usable", grid(d.grid_usable)},
      {"l1_bytes_per_core", fmt::format("{}", d.l1_bytes_per_core)},
      {"l1_reserved_bytes",
       fmt::format("{} (usable {})", d.l1_reserved_bytes, d.usable_l1_bytes())},
      {"tile_shape", fmt::format("{}x{}", d.tile_shape[0], d.tile_shape[1])},
      {"dram_bytes", fmt::format("{}", d.dram_bytes)},
      {"dram_channels", fmt::format("{}", d.dram_channels)},
      {"dram_bandwidth_gb_s", fmt::format("{}", d.dram_bandwidth_gb_s)},
      {"dram_stream_gb_s", fmt::format("{}", d.dram_stream_gb_s)},
      {"noc_bytes_per_cycle_per_link", fmt::format("{}", d.noc_bytes_per_cycle_per_link)},
      {"clock_ghz", fmt::format("{}", d.clock_ghz)},
      {"fpu_matmul_cycles_per_tile",
       fmt::format("LoFi {} HiFi2 {} HiFi3 {} HiFi4 {}", d.fpu_matmul_cycles_per_tile[0],
                   d.fpu_matmul_cycles_per_tile[1], d.fpu_matmul_cycles_per_tile[2],
                   d.fpu_matmul_cycles_per_tile[3])},
      {"fpu_eltwise_cycles_per_tile", fmt::format("{}", d.fpu_eltwise_cycles_per_tile)},
      {"sfpu_cycles_per_tile", fmt::format("{}", d.sfpu_cycles_per_tile)},
      {"unpack_bytes_per_cycle", fmt::format("{}", d.unpack_bytes_per_cycle)},
      {"pack_bytes_per_cycle", fmt::format("{}", d.pack_bytes_per_cycle)},
      {"dst_tiles", fmt::format("{}", d.dst_tiles)},
      {"max_circular_buffers", fmt::format("{}", d.max_circular_buffers)},
      {"launch_us", fmt::format("{}", d.launch_us)},
      {"op_gap_us", fmt::format("{}", d.op_gap_us)},
      {"kernel_floor_us", fmt::format("{}", d.kernel_floor_us)},
      {"matmul_block_sync_us", fmt::format("{}", d.matmul_block_sync_us)},
      {"host_dispatch_us", fmt::format("{}", d.host_dispatch_us)},
      {"host_dispatch_sharded_us", fmt::format("{}", d.host_dispatch_sharded_us)},
  };
  auto print = [&out](const auto& fields, const auto& sources) {
    for (const auto& [field, value] : fields) {
      std::string source;
      for (const auto& [f, s] : sources)
        if (f == field) source = s;
      out += fmt::format("  {} = {}\n      source: {}\n", field, value, source);
    }
  };
  if (d.mesh) print(mesh_fields(*d.mesh), d.mesh->sources);
  print(values, d.sources);
  return out;
}

} // namespace

int run_devices(const Options& o) {
  std::string out;
  if (o.device_names.empty()) {
    const std::vector<std::string> names = cost::device_names();
    size_t width = 0;
    for (const std::string& name : names) width = std::max(width, name.size());
    for (const std::string& name : names) {
      cost::Device d = cost::load_device(name);
      if (d.mesh) {
        const cost::Mesh& m = *d.mesh;
        out += fmt::format("{:<{}} mesh {}x{} ({} chips of {}x{} cores), {} GB/s per Ethernet "
                           "link  {}\n",
                           d.name, width, m.shape[0], m.shape[1], m.chips(), d.grid_usable.rows,
                           d.grid_usable.cols, m.link_bandwidth_gb_s, d.description);
        continue;
      }
      out += fmt::format("{:<{}} {:>3}x{:<3} cores, {:>8} B L1/core usable, {:>6.1f} GB/s DRAM, "
                         "{:.2f} GHz  {}\n",
                         d.name, width, d.grid_usable.rows, d.grid_usable.cols, d.usable_l1_bytes(),
                         d.dram_bandwidth_gb_s, d.clock_ghz, d.description);
    }
  } else {
    for (const std::string& name : o.device_names) out += describe(cost::load_device(name));
  }
  write_text("-", out);
  return 0;
}

} // namespace tilesat::cli
