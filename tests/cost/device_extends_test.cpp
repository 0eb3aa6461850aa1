// Descriptors that extend another: the base's fields, replaced where the file writes its own;
// errors in the chain name the file they are in.
#include "tilesat/cost/device.h"
#include "tilesat/graph/diagnostic.h"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>

namespace tilesat::cost {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

// A folder of descriptor files for one test, removed after it.
class ExtendsTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tilesat_extends_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& file, const json& j) {
    std::string path = (dir_ / file).string();
    std::ofstream(path) << j.dump(2);
    return path;
  }
  static json field(json value, const char* source = "test") {
    return {{"value", std::move(value)}, {"source", source}};
  }
  static json variant(const std::string& extends) {
    return {{"name", "variant"}, {"description", "a test variant"}, {"extends", extends}};
  }
  static std::string error_of(const std::string& path) {
    try {
      load_device(path);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }

  fs::path dir_;
};

TEST_F(ExtendsTest, TakesTheBasesFieldsAndReplacesTheWrittenOnes) {
  json j = variant("blackhole_p150");
  j["grid_usable"] = field({10, 12}, "a harvested card");
  Device base = load_device("blackhole_p150");
  Device d = load_device(write("v.json", j));
  EXPECT_EQ(d.name, "variant");
  EXPECT_EQ(d.description, "a test variant");
  EXPECT_EQ(d.arch, base.arch);
  EXPECT_EQ(d.grid_usable, (CoreGrid{10, 12}));
  EXPECT_EQ(d.grid_full, base.grid_full);
  EXPECT_EQ(d.clock_ghz, base.clock_ghz);
  EXPECT_EQ(d.unpack_bytes_per_cycle, base.unpack_bytes_per_cycle);
  EXPECT_EQ(d.sources.size(), base.sources.size());
  std::map<std::string, std::string> base_sources(base.sources.begin(), base.sources.end());
  for (const auto& [f, s] : d.sources)
    EXPECT_EQ(s, f == "grid_usable" ? "a harvested card" : base_sources[f]) << f;
  ASSERT_EQ(d.bases.size(), 1u);
  EXPECT_EQ(d.bases[0], base.path);
}

TEST_F(ExtendsTest, ChainsAndRelativePaths) {
  json mid = variant("wormhole_b0");
  mid["name"] = "mid";
  mid["clock_ghz"] = field(0.9);
  write("mid.json", mid);
  json top = variant("mid.json");
  top["launch_us"] = field(5.0);
  Device d = load_device(write("top.json", top));
  EXPECT_EQ(d.clock_ghz, 0.9) << "from mid.json, found beside top.json";
  EXPECT_EQ(d.launch_us, 5.0);
  EXPECT_EQ(d.grid_usable.cores(), 64u) << "from wormhole_b0";
  ASSERT_EQ(d.bases.size(), 2u);
  EXPECT_THAT(d.bases[0], HasSubstr("mid.json"));
  EXPECT_THAT(d.bases[1], HasSubstr("wormhole_b0.json"));
}

TEST_F(ExtendsTest, ShippedVariantsAreTheirBasesButTheGrid) {
  Device full = load_device("blackhole_p150"), later = load_device("blackhole_p150_11x10");
  EXPECT_EQ(later.bases.size(), 1u);
  EXPECT_EQ(later.grid_usable, (CoreGrid{10, 11}));
  EXPECT_EQ(later.launch_us, full.launch_us);
  Device n300 = load_device("wormhole_b0_n300");
  EXPECT_EQ(n300.grid_usable, (CoreGrid{7, 8}));
  EXPECT_EQ(n300.l1_bytes_per_core, load_device("wormhole_b0").l1_bytes_per_core);
}

TEST_F(ExtendsTest, AMeshChipWrittenInPlaceMayExtend) {
  json chip = variant("tiny");
  chip["clock_ghz"] = field(2.0);
  json mesh = {{"name", "m"},
               {"description", "a test mesh"},
               {"mesh",
                {{"chip", field(chip)},
                 {"shape", field({1, 2})},
                 {"topology", field({"line", "line"})},
                 {"ring_over_all_chips", field(false)},
                 {"links_per_pair", field({1, 1})},
                 {"link_bandwidth_gb_s", field(12.5)},
                 {"hop_latency_us", field(0.65)}}}};
  Device d = load_device(write("mesh.json", mesh));
  EXPECT_EQ(d.clock_ghz, 2.0);
  EXPECT_EQ(d.grid_usable.cores(), 1u);
}

TEST_F(ExtendsTest, ErrorsNameTheFileAndField) {
  EXPECT_THAT(error_of(write("a.json", variant("wormhole_c0"))),
              HasSubstr("a.json: field 'extends': unknown device 'wormhole_c0'"));

  json not_string = variant("x");
  not_string["extends"] = 3;
  EXPECT_THAT(error_of(write("b.json", not_string)),
              HasSubstr("b.json: field 'extends': expected the name or path"));

  json nameless = variant("tiny");
  nameless.erase("name");
  EXPECT_THAT(error_of(write("c.json", nameless)),
              HasSubstr("c.json: field 'name': missing field (a descriptor that extends"));

  EXPECT_THAT(error_of(write("d.json", variant("t3k"))),
              HasSubstr("is a mesh descriptor; a descriptor extends a single chip"));

  json bad_base = variant("tiny");
  bad_base["name"] = "bad_base";
  bad_base["clock_ghz"] = field(-1.0);
  write("bad_base.json", bad_base);
  std::string e = error_of(write("e.json", variant("bad_base.json")));
  EXPECT_THAT(e, HasSubstr("e.json: field 'extends': "));
  EXPECT_THAT(e, HasSubstr("bad_base.json: field 'clock_ghz': expected a positive number"));

  json unknown = variant("tiny");
  unknown["l1_size"] = field(1);
  EXPECT_THAT(error_of(write("f.json", unknown)), HasSubstr("f.json: field 'l1_size': unknown"));
}

TEST_F(ExtendsTest, ALoopIsAnError) {
  write("p.json", variant("q.json"));
  std::string e = error_of(write("q.json", variant("p.json")));
  EXPECT_THAT(e, HasSubstr("q.json: field 'extends': "));
  EXPECT_THAT(e, HasSubstr("extend in a loop"));
  EXPECT_THAT(error_of(write("self.json", variant("self.json"))), HasSubstr("extend in a loop"));
}

} // namespace
} // namespace tilesat::cost
