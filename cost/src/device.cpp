// device.cpp: finding, reading and checking device descriptor files.
#include "tilesat/cost/device.h"

#include "descriptor_json.h"
#include "mesh_json.h"
#include "tilesat/graph/data_files.h"
#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace tilesat::cost {
namespace fs = std::filesystem;
using detail::fail;
using detail::pair_of;
using detail::positive_int;
using detail::positive_number;
using detail::value_of;
using nlohmann::json;

namespace {

// The largest grid side a descriptor may give: the largest Tenstorrent chips have 13x10 Tensix
// grids, and the planner enumerates the sub-grids shards divide (a 1024x1024 grid took minutes).
constexpr int64_t kMaxGridSide = 64;

CoreGrid grid_of(const json& v, const std::string& path, const std::string& field) {
  auto p = pair_of(v, path, field);
  if (p[0] > kMaxGridSide || p[1] > kMaxGridSide)
    fail(path, field,
         fmt::format("expected at most {} cores per side, got {}x{}", kMaxGridSide, p[0], p[1]));
  return CoreGrid{static_cast<uint32_t>(p[0]), static_cast<uint32_t>(p[1])};
}

using Setter = std::function<void(Device&, const json&, const std::string&, const std::string&)>;

// Every numeric field and how it is read, in the order `tilesat devices` prints them.
const std::vector<std::pair<std::string, Setter>>& numeric_fields() {
  static const std::vector<std::pair<std::string, Setter>> fields = {
      {"grid_full",
       [](Device& d, const json& v, auto& p, auto& f) { d.grid_full = grid_of(v, p, f); }},
      {"grid_usable",
       [](Device& d, const json& v, auto& p, auto& f) { d.grid_usable = grid_of(v, p, f); }},
      {"l1_bytes_per_core", [](Device& d, const json& v, auto& p,
                               auto& f) { d.l1_bytes_per_core = positive_int(v, p, f); }},
      {"l1_reserved_bytes", [](Device& d, const json& v, auto& p,
                               auto& f) { d.l1_reserved_bytes = positive_int(v, p, f, true); }},
      {"tile_shape",
       [](Device& d, const json& v, auto& p, auto& f) { d.tile_shape = pair_of(v, p, f); }},
      {"dram_bytes",
       [](Device& d, const json& v, auto& p, auto& f) { d.dram_bytes = positive_int(v, p, f); }},
      {"dram_channels",
       [](Device& d, const json& v, auto& p, auto& f) { d.dram_channels = positive_int(v, p, f); }},
      {"dram_bandwidth_gb_s", [](Device& d, const json& v, auto& p,
                                 auto& f) { d.dram_bandwidth_gb_s = positive_number(v, p, f); }},
      {"dram_stream_gb_s", [](Device& d, const json& v, auto& p,
                              auto& f) { d.dram_stream_gb_s = positive_number(v, p, f); }},
      {"noc_bytes_per_cycle_per_link",
       [](Device& d, const json& v, auto& p, auto& f) {
         d.noc_bytes_per_cycle_per_link = positive_number(v, p, f);
       }},
      {"clock_ghz",
       [](Device& d, const json& v, auto& p, auto& f) { d.clock_ghz = positive_number(v, p, f); }},
      {"fpu_matmul_cycles_per_tile",
       [](Device& d, const json& v, auto& p, auto& f) {
         if (!v.is_object()) fail(p, f, "expected an object {\"LoFi\": n, \"HiFi2\": n, ...}");
         for (const auto& [k, x] : v.items()) {
           MathFidelity fid;
           try {
             fid = parse_fidelity(k);
           } catch (const Error&) {
             fail(p, f,
                  fmt::format("unknown fidelity '{}' (expected LoFi, HiFi2, HiFi3, HiFi4)", k));
           }
           d.fpu_matmul_cycles_per_tile[static_cast<size_t>(fid)] =
               positive_number(x, p, f + "." + k);
         }
         for (MathFidelity fid :
              {MathFidelity::LoFi, MathFidelity::HiFi2, MathFidelity::HiFi3, MathFidelity::HiFi4}) {
           if (d.fpu_matmul_cycles_per_tile[static_cast<size_t>(fid)] <= 0)
             fail(p, f, fmt::format("missing fidelity '{}'", fidelity_name(fid)));
         }
       }},
      {"fpu_eltwise_cycles_per_tile",
       [](Device& d, const json& v, auto& p, auto& f) {
         d.fpu_eltwise_cycles_per_tile = positive_number(v, p, f);
       }},
      {"sfpu_cycles_per_tile", [](Device& d, const json& v, auto& p,
                                  auto& f) { d.sfpu_cycles_per_tile = positive_number(v, p, f); }},
      {"unpack_bytes_per_cycle",
       [](Device& d, const json& v, auto& p, auto& f) {
         d.unpack_bytes_per_cycle = positive_number(v, p, f);
       }},
      {"pack_bytes_per_cycle", [](Device& d, const json& v, auto& p,
                                  auto& f) { d.pack_bytes_per_cycle = positive_number(v, p, f); }},
      {"dst_tiles",
       [](Device& d, const json& v, auto& p, auto& f) { d.dst_tiles = positive_int(v, p, f); }},
      {"max_circular_buffers", [](Device& d, const json& v, auto& p,
                                  auto& f) { d.max_circular_buffers = positive_int(v, p, f); }},
      {"launch_us",
       [](Device& d, const json& v, auto& p, auto& f) { d.launch_us = positive_number(v, p, f); }},
      {"op_gap_us",
       [](Device& d, const json& v, auto& p, auto& f) { d.op_gap_us = positive_number(v, p, f); }},
      {"kernel_floor_us", [](Device& d, const json& v, auto& p,
                             auto& f) { d.kernel_floor_us = positive_number(v, p, f); }},
      {"matmul_block_sync_us", [](Device& d, const json& v, auto& p,
                                  auto& f) { d.matmul_block_sync_us = positive_number(v, p, f); }},
      {"host_dispatch_us", [](Device& d, const json& v, auto& p,
                              auto& f) { d.host_dispatch_us = positive_number(v, p, f); }},
      {"host_dispatch_sharded_us",
       [](Device& d, const json& v, auto& p, auto& f) {
         d.host_dispatch_sharded_us = positive_number(v, p, f);
       }},
  };
  return fields;
}

// A descriptor is a few kilobytes; a file far larger is not one (or is a device like /dev/zero).
constexpr uint64_t kMaxDescriptorBytes = uint64_t{16} << 20;

std::string read_file(const std::string& path) {
  return read_user_file(path, "device descriptor", kMaxDescriptorBytes);
}

json parse_json(const std::string& text, const std::string& path) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // Turn the byte offset into a line number.
    size_t byte = std::min(static_cast<size_t>(e.byte), text.size());
    int line = 1 + static_cast<int>(
                       std::count(text.begin(), text.begin() + static_cast<long>(byte), '\n'));
    throw Error(SourceLoc{path, line, 0}, fmt::format("invalid JSON: {}", e.what()));
  } catch (const json::exception& e) {
    // Such as a number beyond a double (1e99999): the library's message after its tag.
    std::string what = e.what();
    size_t tag = what.find("] ");
    throw Error(fmt::format("{}: invalid JSON: {}", path,
                            tag == std::string::npos ? what : what.substr(tag + 2)));
  }
}

void check_strings(const json& j, const std::string& path, const std::string& prefix,
                   std::initializer_list<const char*> names) {
  for (const char* s : names) {
    if (!j.contains(s)) fail(path, prefix + s, "missing field");
    if (!j[s].is_string())
      fail(path, prefix + s, fmt::format("expected a string, got {}", j[s].type_name()));
  }
  if (j["name"].get<std::string>().empty()) fail(path, prefix + "name", "must not be empty");
}

Device check_chip(const json& j, const std::string& path, const std::string& prefix);
std::string descriptor_file(const std::string& name_or_path, const fs::path& base_dir);

// A file's path with `.` and `..` and links resolved, to tell when two paths name one file.
std::string same_file_key(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(path, ec);
  return ec ? path : p.string();
}

// The chip descriptor `j` (read from `path`) over the descriptor it `extends`: the base's
// fields, each replaced by the one `j` writes; `bases` gets the base files, nearest first. The
// base is checked whole first, so an error in it names its own file; `chain` holds the files
// already on the way, so a descriptor that comes back to one of them is an error.
json with_base(const json& j, const std::string& path, const std::string& prefix,
               std::vector<std::string> chain, std::vector<std::string>& bases) {
  if (!j.contains("extends")) return j;
  const std::string field = prefix + "extends";
  if (!j["extends"].is_string() || j["extends"].get<std::string>().empty())
    fail(path, field, "expected the name or path of the chip descriptor this one extends");
  for (const char* own : {"name", "description"})
    if (!j.contains(own))
      fail(path, prefix + own, "missing field (a descriptor that extends another names itself)");
  chain.push_back(same_file_key(path));
  json base;
  try {
    std::string file =
        descriptor_file(j["extends"].get<std::string>(), fs::path(path).parent_path());
    if (std::find(chain.begin(), chain.end(), same_file_key(file)) != chain.end())
      throw Error(
          fmt::format("'{}' is already on the way here (descriptors extend in a loop)", file));
    json written = parse_json(read_file(file), file);
    if (!written.is_object()) fail(file, "", "expected a JSON object of descriptor fields");
    if (written.contains("mesh"))
      fail(file, "", "is a mesh descriptor; a descriptor extends a single chip");
    bases.push_back(file);
    base = with_base(written, file, "", chain, bases);
    check_chip(base, file, "");
  } catch (const Error& e) {
    const Diagnostic& diag = e.diagnostic();
    fail(path, field,
         diag.loc.known() ? fmt::format("{}: {}", diag.loc.str(), diag.message) : diag.message);
  }
  for (const auto& [k, v] : j.items())
    if (k != "extends") base[k] = v;
  return base;
}

// One chip's descriptor as written (it may extend another); `prefix` comes before every field
// name in errors ("mesh.chip." for a chip written inside a mesh descriptor).
Device parse_chip(const json& written, const std::string& path, const std::string& prefix) {
  std::vector<std::string> bases;
  Device d = check_chip(with_base(written, path, prefix, {}, bases), path, prefix);
  d.bases = std::move(bases);
  return d;
}

// A chip descriptor with every field written out (after `extends` is applied).
Device check_chip(const json& j, const std::string& path, const std::string& prefix) {
  Device d;
  d.path = path;
  std::set<std::string> known = {"name", "description", "arch"};
  for (const auto& [name, setter] : numeric_fields()) known.insert(name);
  for (const auto& [k, v] : j.items()) {
    if (!known.count(k)) {
      std::vector<std::string> names(known.begin(), known.end());
      fail(path, prefix + k,
           fmt::format("unknown field (known fields: {}; \"extends\" to build on another chip's "
                       "descriptor; or \"mesh\" for a mesh of chips)",
                       fmt::join(names, ", ")));
    }
  }
  check_strings(j, path, prefix, {"name", "description", "arch"});
  d.name = j["name"].get<std::string>();
  d.description = j["description"].get<std::string>();
  d.arch = j["arch"].get<std::string>();
  for (const auto& [name, setter] : numeric_fields()) {
    std::string f = prefix + name;
    if (!j.contains(name)) fail(path, f, "missing field");
    const json& v = value_of(j[name], path, f);
    setter(d, v, path, f);
    d.sources.emplace_back(name, j[name]["source"].get<std::string>());
  }
  if (d.l1_reserved_bytes >= d.l1_bytes_per_core)
    fail(path, prefix + "l1_reserved_bytes",
         fmt::format("{} leaves no usable L1 of the {} bytes per core", d.l1_reserved_bytes,
                     d.l1_bytes_per_core));
  if (d.grid_usable.rows > d.grid_full.rows || d.grid_usable.cols > d.grid_full.cols)
    fail(path, prefix + "grid_usable",
         fmt::format("{}x{} does not fit in grid_full {}x{}", d.grid_usable.rows,
                     d.grid_usable.cols, d.grid_full.rows, d.grid_full.cols));
  if (d.tile_shape != std::array<int64_t, 2>{32, 32})
    fail(path, prefix + "tile_shape", "only 32x32 tiles are supported");
  return d;
}

bool is_descriptor_path(const std::string& name_or_path) {
  return name_or_path.find('/') != std::string::npos ||
         (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
}

// The file a descriptor name or path means; a relative path is taken from `base_dir`.
std::string descriptor_file(const std::string& name_or_path, const fs::path& base_dir) {
  if (is_descriptor_path(name_or_path)) {
    fs::path p(name_or_path);
    return (p.is_relative() ? base_dir / p : p).string();
  }
  fs::path p = fs::path(devices_dir()) / (name_or_path + ".json");
  if (!fs::is_regular_file(p))
    throw Error(fmt::format("unknown device '{}' (devices: {}; or give a descriptor file path)",
                            name_or_path, fmt::join(device_names(), ", ")));
  return p.string();
}

// The chip a mesh descriptor names: a shipped chip descriptor, a chip file, or an object. An
// error in a chip file names the mesh file and `mesh.chip`, then the chip file and its field.
Device mesh_chip(const json& chip, const Mesh& mesh, const std::string& path) {
  if (chip.is_object()) return parse_chip(chip, path, "mesh.chip.");
  try {
    std::string file = descriptor_file(mesh.chip, fs::path(path).parent_path());
    json j = parse_json(read_file(file), file);
    if (!j.is_object()) fail(file, "", "expected a JSON object of descriptor fields");
    if (!j.contains("mesh")) return parse_chip(j, file, "");
  } catch (const Error& e) {
    const Diagnostic& diag = e.diagnostic();
    fail(path, "mesh.chip",
         diag.loc.known() ? fmt::format("{}: {}", diag.loc.str(), diag.message) : diag.message);
  }
  fail(path, "mesh.chip",
       fmt::format("'{}' is itself a mesh; a mesh's chip must be a single chip", mesh.chip));
}

// A mesh descriptor: its name and description, and the chip and wiring of its `mesh`.
Device parse_mesh_device(const json& j, const std::string& path) {
  for (const auto& [k, v] : j.items()) {
    if (k != "name" && k != "description" && k != "mesh")
      fail(path, k,
           "unknown field in a mesh descriptor (it has name, description and mesh; the "
           "chip's fields belong in mesh.chip)");
  }
  check_strings(j, path, "", {"name", "description"});
  Mesh mesh = detail::parse_mesh_fields(j["mesh"], path);
  Device d = mesh_chip(j["mesh"]["chip"]["value"], mesh, path);
  d.name = j["name"].get<std::string>();
  d.description = j["description"].get<std::string>();
  d.path = path;
  d.mesh = std::move(mesh);
  return d;
}

} // namespace

std::string_view fidelity_name(MathFidelity f) {
  switch (f) {
  case MathFidelity::LoFi:
    return "LoFi";
  case MathFidelity::HiFi2:
    return "HiFi2";
  case MathFidelity::HiFi3:
    return "HiFi3";
  case MathFidelity::HiFi4:
    return "HiFi4";
  }
  throw InternalError("bad MathFidelity");
}

MathFidelity parse_fidelity(std::string_view name) {
  for (MathFidelity f :
       {MathFidelity::LoFi, MathFidelity::HiFi2, MathFidelity::HiFi3, MathFidelity::HiFi4}) {
    if (fidelity_name(f) == name) return f;
  }
  throw Error(
      fmt::format("unknown math fidelity '{}' (expected LoFi, HiFi2, HiFi3 or HiFi4)", name));
}

Device parse_device(const std::string& text, const std::string& path) {
  json j = parse_json(text, path);
  if (!j.is_object()) fail(path, "", "expected a JSON object of descriptor fields");
  if (j.contains("mesh")) return parse_mesh_device(j, path);
  return parse_chip(j, path, "");
}

std::string devices_dir() {
  return find_data_dir("devices", {TILESAT_SOURCE_DEVICES_DIR, TILESAT_INSTALL_DEVICES_DIR});
}

std::vector<std::string> device_names() {
  return data_file_names(devices_dir(), ".json");
}

Device load_device(const std::string& name_or_path) {
  return load_device(name_or_path, "");
}

Device load_device(const std::string& name_or_path, const std::string& base_dir) {
  std::string file = descriptor_file(name_or_path, base_dir);
  return parse_device(read_file(file), file);
}

} // namespace tilesat::cost
