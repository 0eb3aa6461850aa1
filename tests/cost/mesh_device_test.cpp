// Mesh descriptors: the shipped meshes load with their chips; every bad mesh field is an error
// naming the file and the field.
#include "tilesat/cost/device.h"
#include "tilesat/graph/diagnostic.h"

#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tilesat::cost {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json field(json value) {
  return {{"value", std::move(value)}, {"source", "a test"}};
}

// A valid 2x4 mesh of wormhole_b0_n300 chips with a ring through all eight.
json good_mesh() {
  return {{"name", "mine"},
          {"description", "a test mesh"},
          {"mesh",
           {{"chip", field("wormhole_b0_n300")},
            {"shape", field({2, 4})},
            {"topology", field({"line", "line"})},
            {"ring_over_all_chips", field(true)},
            {"links_per_pair", field({1, 2})},
            {"link_bandwidth_gb_s", field(12.5)},
            {"hop_latency_us", field(0.65)}}}};
}

std::string error_of(const json& j) {
  try {
    parse_device(j.dump(), "my.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(MeshDevice, ShippedMeshesLoad) {
  struct Expect {
    const char* name;
    std::array<int64_t, 2> shape;
    bool ring;
    std::array<int64_t, 2> links;
  };
  for (const Expect& x :
       {Expect{"n300", {1, 2}, false, {1, 1}}, Expect{"t3k", {2, 4}, true, {1, 1}},
        Expect{"galaxy", {8, 4}, false, {4, 3}}}) {
    Device d = load_device(x.name);
    ASSERT_TRUE(d.mesh) << x.name;
    EXPECT_EQ(d.name, x.name);
    EXPECT_EQ(d.mesh->shape, x.shape) << x.name;
    EXPECT_EQ(d.mesh->ring_over_all_chips, x.ring) << x.name;
    EXPECT_EQ(d.mesh->links_per_pair, x.links) << x.name;
    EXPECT_EQ(d.mesh->link_bandwidth_gb_s, 12.5) << x.name;
    EXPECT_EQ(d.mesh->hop_latency_us, 0.65) << x.name;
    EXPECT_EQ(d.mesh->sources.size(), 7u) << "every mesh field names a source";
    for (const auto& [f, source] : d.mesh->sources) EXPECT_FALSE(source.empty()) << f;
    EXPECT_EQ(d.sources.size(), 24u) << "the chip's fields keep their sources";
  }
  Device t3k = load_device("t3k");
  EXPECT_EQ(t3k.mesh->chips(), 8);
  EXPECT_EQ(t3k.mesh->chip, "wormhole_b0_n300");
  EXPECT_EQ(t3k.grid_usable.cores(), 56u) << "each T3000 chip is an n300 chip";
  EXPECT_EQ(load_device("galaxy").grid_usable.cores(), 64u);
}

TEST(MeshDevice, SingleChipDescriptorsHaveNoMesh) {
  for (const char* n : {"wormhole_b0", "wormhole_b0_n300", "blackhole_p150", "tiny"})
    EXPECT_FALSE(load_device(n).mesh) << n;
}

TEST(MeshDevice, GoodMeshTakesTheChipsFields) {
  Device d = parse_device(good_mesh().dump(), "my.json");
  ASSERT_TRUE(d.mesh);
  EXPECT_EQ(d.name, "mine");
  EXPECT_EQ(d.description, "a test mesh");
  EXPECT_EQ(d.path, "my.json");
  EXPECT_EQ(d.arch, "wormhole_b0");
  EXPECT_EQ(d.mesh->links_per_pair, (std::array<int64_t, 2>{1, 2}));
  EXPECT_EQ(d.mesh->axis_topology[1], MeshTopology::Line);
}

TEST(MeshDevice, ChipInlineOrByRelativePath) {
  json j = good_mesh();
  std::ifstream in(devices_dir() + "/tiny.json");
  j["mesh"]["chip"] = field(json::parse(in));
  Device d = parse_device(j.dump(), "my.json");
  EXPECT_EQ(d.mesh->chip, "inline");
  EXPECT_EQ(d.grid_usable.cores(), 1u);

  j["mesh"]["chip"] = field("tiny.json");
  Device by_path = parse_device(j.dump(), devices_dir() + "/mine.json");
  EXPECT_EQ(by_path.grid_usable.cores(), 1u) << "a chip path is taken from the mesh file's folder";
}

TEST(MeshDevice, EachBadFieldIsNamed) {
  struct Case {
    const char* what;
    std::function<void(json&)> change;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"unknown mesh field", [](json& j) { j["mesh"]["rings"] = field(1); },
       "field 'mesh.rings': unknown field"},
      {"mesh not an object", [](json& j) { j["mesh"] = 3; }, "field 'mesh': expected an object"},
      {"chip field beside a mesh", [](json& j) { j["dram_channels"] = field(12); },
       "field 'dram_channels': unknown field in a mesh descriptor"},
      {"no source",
       [](json& j) {
         j["mesh"]["shape"] = {{"value", {2, 4}}};
       },
       "field 'mesh.shape': expected an object {\"value\""},
      {"shape not a pair",
       [](json& j) {
         j["mesh"]["shape"] = field({2, 4, 1});
       },
       "field 'mesh.shape': expected a list of two positive integers"},
      {"shape zero",
       [](json& j) {
         j["mesh"]["shape"] = field({0, 4});
       },
       "field 'mesh.shape': expected a positive integer, got 0"},
      {"shape huge",
       [](json& j) {
         j["mesh"]["shape"] = field({2, 5000});
       },
       "field 'mesh.shape': expected at most 1024 chips per side"},
      {"topology word",
       [](json& j) {
         j["mesh"]["topology"] = field({"line", "star"});
       },
       "field 'mesh.topology': axis 1: unknown topology 'star'"},
      {"topology one axis", [](json& j) { j["mesh"]["topology"] = field({"line"}); },
       "field 'mesh.topology': expected a list of two"},
      {"ring of two",
       [](json& j) {
         j["mesh"]["topology"] = field({"ring", "line"});
       },
       "field 'mesh.topology': axis 0 has 2 chip(s): a ring needs at least 3"},
      {"ring flag type", [](json& j) { j["mesh"]["ring_over_all_chips"] = field("yes"); },
       "field 'mesh.ring_over_all_chips': expected true or false, got string"},
      {"ring over an odd grid",
       [](json& j) {
         j["mesh"]["shape"] = field({3, 3});
       },
       "field 'mesh.ring_over_all_chips': a 3x3 grid has an odd number of chips"},
      {"ring over a line",
       [](json& j) {
         j["mesh"]["shape"] = field({1, 4});
       },
       "field 'mesh.ring_over_all_chips': a 1x4 mesh is one line of chips"},
      {"links zero",
       [](json& j) {
         j["mesh"]["links_per_pair"] = field({1, 0});
       },
       "field 'mesh.links_per_pair': expected a positive integer, got 0"},
      {"bandwidth negative", [](json& j) { j["mesh"]["link_bandwidth_gb_s"] = field(-12.5); },
       "field 'mesh.link_bandwidth_gb_s': expected a positive number, got -12.5"},
      {"latency type", [](json& j) { j["mesh"]["hop_latency_us"] = field("fast"); },
       "field 'mesh.hop_latency_us': expected a number, got string"},
      {"chip unknown", [](json& j) { j["mesh"]["chip"] = field("wormhole_c0"); },
       "field 'mesh.chip': unknown device 'wormhole_c0'"},
      {"chip empty", [](json& j) { j["mesh"]["chip"] = field(""); },
       "field 'mesh.chip': expected a chip descriptor's name or path"},
      {"chip a mesh", [](json& j) { j["mesh"]["chip"] = field("t3k"); },
       "field 'mesh.chip': 't3k' is itself a mesh"},
      {"chip file missing", [](json& j) { j["mesh"]["chip"] = field("no/such/chip.json"); },
       "field 'mesh.chip': no/such/chip.json: cannot open the device descriptor"},
      {"chip file not JSON",
       [](json& j) { j["mesh"]["chip"] = field(devices_dir() + "/../README.md"); },
       "README.md:1:0: invalid JSON"},
      {"inline chip bad field",
       [](json& j) {
         j["mesh"]["chip"] = field(json::parse(R"({"name": "c", "description": "d"})"));
       },
       "field 'mesh.chip.arch': missing field"},
      {"no name", [](json& j) { j.erase("name"); }, "field 'name': missing field"},
  };
  for (const Case& c : cases) {
    json j = good_mesh();
    c.change(j);
    std::string e = error_of(j);
    EXPECT_THAT(e, HasSubstr("my.json")) << c.what;
    EXPECT_THAT(e, HasSubstr(c.message)) << c.what;
  }
  for (const char* f : {"chip", "shape", "topology", "ring_over_all_chips", "links_per_pair",
                        "link_bandwidth_gb_s", "hop_latency_us"}) {
    json j = good_mesh();
    j["mesh"].erase(f);
    EXPECT_THAT(error_of(j), HasSubstr(fmt::format("field 'mesh.{}': missing field", f)));
  }
}

TEST(MeshDevice, ChipFileErrorNamesMeshAndChipFiles) {
  std::ifstream in(devices_dir() + "/tiny.json");
  json chip = json::parse(in);
  chip.erase("dram_channels");
  std::string chip_file =
      (std::filesystem::temp_directory_path() / "tilesat_bad_chip.json").string();
  std::ofstream(chip_file) << chip.dump();
  json j = good_mesh();
  j["mesh"]["chip"] = field(chip_file);
  std::string e = error_of(j);
  std::filesystem::remove(chip_file);
  EXPECT_THAT(e, HasSubstr("my.json: field 'mesh.chip': "));
  EXPECT_THAT(e, HasSubstr("tilesat_bad_chip.json: field 'dram_channels': missing field"));
}

TEST(MeshDevice, Topology) {
  EXPECT_EQ(parse_topology("ring"), MeshTopology::Ring);
  EXPECT_EQ(topology_name(MeshTopology::Line), "line");
  EXPECT_THROW(parse_topology("torus"), Error);
}

} // namespace
} // namespace tilesat::cost
