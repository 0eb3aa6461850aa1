// Device descriptors: every shipped one loads; bad files get errors naming file and field.
#include "tilesat/cost/device.h"
#include "tilesat/cost/op_cost.h"
#include "tilesat/cost/placement.h"
#include "tilesat/graph/diagnostic.h"

#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sstream>

namespace tilesat::cost {
namespace {

using ::testing::HasSubstr;

std::string shipped_text(const std::string& name) {
  std::ifstream in(devices_dir() + "/" + name + ".json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string error_of(const std::string& text) {
  try {
    parse_device(text, "my.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Device, ShippedDescriptorsLoad) {
  std::vector<std::string> names = device_names();
  for (const char* n :
       {"wormhole_b0", "wormhole_b0_n300", "blackhole_p150", "grayskull_e150", "tiny"})
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
  for (const std::string& n : names) {
    Device d = load_device(n);
    EXPECT_EQ(d.name, n);
    EXPECT_GT(d.usable_l1_bytes(), 0);
    EXPECT_EQ(d.sources.size(), 24u) << "every numeric field names a source";
    for (const auto& [field, source] : d.sources) EXPECT_FALSE(source.empty()) << field;
  }
}

// The p150 on firmware 19.5.0 and later exposes an 11x10 compute grid; the rest of the card
// is the same, so a matmul there spreads over 110 cores instead of 130.
TEST(Device, BlackholeElevenByTen) {
  Device full = load_device("blackhole_p150"), later = load_device("blackhole_p150_11x10");
  EXPECT_EQ(later.grid_usable, (CoreGrid{10, 11}));
  EXPECT_EQ(later.grid_full, full.grid_full);
  EXPECT_EQ(later.usable_l1_bytes(), full.usable_l1_bytes());
  EXPECT_EQ(later.dram_bandwidth_gb_s, full.dram_bandwidth_gb_s);
  EXPECT_EQ(later.clock_ghz, full.clock_ghz);
  CostModel a(full), b(later);
  TensorType x{DType::BF16, Shape{4096, 4096}};
  std::vector<TensorUse> in{{x, dram_tile_placement()}, {x, dram_tile_placement()}};
  OpEstimate on_full = a.op(OpKind::Matmul, {}, in, {x, dram_tile_placement()});
  OpEstimate on_later = b.op(OpKind::Matmul, {}, in, {x, dram_tile_placement()});
  EXPECT_LE(on_later.cores, 110u);
  EXPECT_GT(on_later.us, on_full.us);
}

TEST(Device, WormholeNumbers) {
  Device d = load_device("wormhole_b0");
  EXPECT_EQ(d.grid_usable.cores(), 64u);
  EXPECT_EQ(d.l1_bytes_per_core, 1499136);
  EXPECT_EQ(d.usable_l1_bytes(), 1499136 - 103712);
  EXPECT_EQ(d.fpu_matmul_cycles_per_tile[static_cast<size_t>(MathFidelity::HiFi4)], 64);
  EXPECT_EQ(d.max_circular_buffers, 32);
}

TEST(Device, TinyCannotHoldTheMlpIntermediates) {
  Device d = load_device("tiny");
  // The seed MLP's first linear needs 104 KiB of circular buffers on one core; its 32x256 f32
  // result would add 32 KiB.
  EXPECT_EQ(d.grid_usable.cores(), 1u);
  EXPECT_GE(d.usable_l1_bytes(), 104 * 1024);
  EXPECT_LT(d.usable_l1_bytes(), 104 * 1024 + 32 * 256 * 4);
}

TEST(Device, UnknownFieldNamesFileAndField) {
  std::string text = shipped_text("tiny");
  text.insert(text.find('{') + 1, "\"l1_size_bytes\": {\"value\": 1, \"source\": \"x\"},");
  std::string e = error_of(text);
  EXPECT_THAT(e, HasSubstr("my.json"));
  EXPECT_THAT(e, HasSubstr("'l1_size_bytes': unknown field"));
}

TEST(Device, MissingField) {
  std::string text = shipped_text("tiny");
  size_t at = text.find("\"dram_channels\"");
  size_t end = text.find('}', at) + 2;
  text.erase(at, end - at);
  EXPECT_THAT(error_of(text), HasSubstr("field 'dram_channels': missing field"));
}

TEST(Device, WrongType) {
  std::string text = shipped_text("tiny");
  size_t at = text.find("131072");
  text.replace(at, 6, "\"128K\"");
  EXPECT_THAT(error_of(text),
              HasSubstr("field 'l1_bytes_per_core': expected an integer, got string"));
}

TEST(Device, MissingSource) {
  EXPECT_THAT(
      error_of(R"({"name": "x", "description": "d", "arch": "a", "grid_full": {"value": [1, 1]}})"),
      HasSubstr("field 'grid_full': expected an object {\"value\": ..., \"source\": \"...\"}"));
}

TEST(Device, InvalidJsonNamesLine) {
  EXPECT_THAT(error_of("{\n\"name\": \"x\",\n oops }"), HasSubstr("my.json:3"));
}

TEST(Device, UnknownNameListsShipped) {
  try {
    load_device("wormhole_c0");
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown device 'wormhole_c0'"));
    EXPECT_THAT(e.what(), HasSubstr("wormhole_b0"));
  }
}

TEST(Device, UserFileByPath) {
  Device d = load_device(devices_dir() + "/tiny.json");
  EXPECT_EQ(d.name, "tiny");
  EXPECT_THROW(load_device("/nonexistent/dev.json"), Error);
}

TEST(Device, Fidelity) {
  EXPECT_EQ(parse_fidelity("HiFi2"), MathFidelity::HiFi2);
  EXPECT_EQ(fidelity_name(MathFidelity::LoFi), "LoFi");
  EXPECT_THROW(parse_fidelity("HiFi5"), Error);
}

} // namespace
} // namespace tilesat::cost
