// Models whose initializers are stored as external data, in files beside the model.
#include "test_util.h"

#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>

namespace tilesat::onnx::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// y = x · w with w [3, 2] stored in `location` at `offset`, `length` bytes (0: not given).
OnnxModel external_model(const std::string& location, uint64_t offset, uint64_t length) {
  OnnxModel m;
  m.input("x", {1, 3});
  ::onnx::TensorProto* w = m.graph().add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto::FLOAT);
  w->add_dims(3);
  w->add_dims(2);
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto entry = [&](const std::string& key, const std::string& value) {
    ::onnx::StringStringEntryProto* e = w->add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  entry("location", location);
  entry("offset", std::to_string(offset));
  if (length != 0) entry("length", std::to_string(length));
  m.node("MatMul", {"x", "w"}, {"y"});
  m.output("y", {1, 2});
  return m;
}

class ExternalData : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() /
        ("tilesat_external_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    // 8 bytes of something else, then w's six floats.
    std::ofstream data(dir_ / "weights.bin", std::ios::binary);
    data.write("prefix!!", 8);
    const float w[6] = {1, 2, 3, 4, 5, 6};
    data.write(reinterpret_cast<const char*>(w), sizeof w);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const OnnxModel& m) {
    std::string path = (dir_ / "model.onnx").string();
    std::ofstream(path, std::ios::binary) << m.bytes();
    return path;
  }
  std::string error(const OnnxModel& m) {
    try {
      import_file(write(m));
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  }

  std::filesystem::path dir_;
};

TEST_F(ExternalData, IsReadFromTheFileBesideTheModel) {
  for (uint64_t length : {uint64_t{24}, uint64_t{0}}) {
    ImportedModel im = import_file(write(external_model("weights.bin", 8, length)));
    EXPECT_THAT(im.weights.at("w").data(), ElementsAre(1, 2, 3, 4, 5, 6));
    Tensor y = run(im, {{"x", T({1, 3}, {1, 1, 1})}});
    EXPECT_THAT(y.data(), ElementsAre(9, 12));
  }
}

TEST_F(ExternalData, BadLocationsAndRangesAreErrors) {
  EXPECT_THAT(error(external_model("../weights.bin", 8, 24)),
              HasSubstr("initializer 'w': expected external data in the model's directory, got "
                        "location '../weights.bin'"));
  EXPECT_THAT(error(external_model("/etc/passwd", 0, 24)),
              HasSubstr("expected external data in the model's directory"));
  EXPECT_THAT(error(external_model("missing.bin", 0, 24)),
              HasSubstr("initializer 'w': cannot open its external data file"));
  EXPECT_THAT(error(external_model("weights.bin", 16, 24)),
              HasSubstr("expected 24 bytes at offset 16 of"));
  EXPECT_THAT(error(external_model("weights.bin", 4, 0)),
              HasSubstr("expected 24 bytes of raw data for dims [3, 2], got 28"));
  OnnxModel bad = external_model("weights.bin", 8, 24);
  bad.graph().mutable_initializer(0)->mutable_external_data(1)->set_value("-8");
  EXPECT_THAT(error(bad),
              HasSubstr("expected external data 'offset' to be a byte count, got '-8'"));
}

TEST_F(ExternalData, TensorsACutModelDoesNotReadAreNotRead) {
  // w is read only by the MatMul; selecting x leaves it out, so its missing file is no error.
  ImportOptions o;
  o.outputs = {"x"};
  ImportedModel im = import_file(write(external_model("missing.bin", 0, 24)), o);
  EXPECT_EQ(im.graph.arguments().size(), 1u);
}

} // namespace
} // namespace tilesat::onnx::testing
