// Tests of npy.cpp: round trips, the formats NumPy writes, and malformed files.
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/npy.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat {
namespace {

using ::testing::ElementsAre;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tilesat_npy_test_" + name)).string();
}

// A .npy file with a version-1.0 header `dict` (padded as NumPy does) and raw `data`.
std::string npy(const std::string& dict, const std::string& data, char major = 1) {
  std::string header = dict;
  size_t preamble = major == 1 ? 10 : 12;
  header.append((64 - (preamble + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += major;
  out += '\0';
  auto len = static_cast<uint32_t>(header.size());
  out.append(reinterpret_cast<const char*>(&len), major == 1 ? 2 : 4);
  return out + header + data;
}

template <class T>
std::string raw(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return out;
}

std::string npy_error_of(const std::string& bytes) {
  try {
    (void)parse_npy(bytes, "bad.npy");
    return "no error";
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(Npy, HeaderExample) {
  Tensor t(TensorType{DType::F32, Shape{2, 3}}, {1, 2, 3, 4, 5, 6});
  std::string path = temp_path("example.npy");
  write_npy(path, t);
  Tensor u = read_npy(path);
  EXPECT_EQ(u.type(), t.type());
  EXPECT_EQ(u.data(), t.data());
  std::string bytes = to_npy_bytes(t);
  Tensor v = parse_npy(bytes, "in-memory.npy");
  EXPECT_EQ(v.data(), t.data());
  std::remove(path.c_str());
}

TEST(Npy, WritesNumPyLayout) {
  Tensor t(TensorType{DType::F32, Shape{3}}, {1, 2, 3});
  std::string bytes = to_npy_bytes(t);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ((bytes.size() - 12) % 4, 0u);
  EXPECT_EQ((bytes.size() - 3 * 4) % 64, 0u); // data starts 64-byte aligned
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"),
            std::string::npos);
  EXPECT_NE(to_npy_bytes(Tensor(TensorType{DType::I32, Shape{2, 2}})).find("'<i4'"),
            std::string::npos);
  EXPECT_NE(to_npy_bytes(Tensor(TensorType{DType::I32, Shape{2, 2}})).find("(2, 2)"),
            std::string::npos);
  EXPECT_NE(to_npy_bytes(Tensor(TensorType{DType::F32, Shape{}})).find("'shape': ()"),
            std::string::npos);
}

TEST(Npy, RoundTrips) {
  Tensor i(TensorType{DType::I32, Shape{2, 2}}, {1, -2, 3, 100000});
  Tensor ri = parse_npy(to_npy_bytes(i), "i.npy");
  EXPECT_EQ(ri.dtype(), DType::I32);
  EXPECT_EQ(ri.data(), i.data());
  // bf16 is written as f32 with the rounded values.
  Tensor h(TensorType{DType::BF16, Shape{1}}, {0.1f});
  Tensor rh = parse_npy(to_npy_bytes(h), "h.npy");
  EXPECT_EQ(rh.dtype(), DType::F32);
  EXPECT_THAT(rh.data(), ElementsAre(0.10009765625f));
  Tensor s(TensorType{DType::F32, Shape{}}, {2.5f});
  EXPECT_EQ(parse_npy(to_npy_bytes(s), "s.npy").shape(), Shape{});
  Tensor empty(TensorType{DType::F32, Shape{0, 3}});
  EXPECT_EQ(parse_npy(to_npy_bytes(empty), "e.npy").shape(), (Shape{0, 3}));
}

// A header longer than format 1.0's 2-byte length (a rank in the tens of thousands) is written
// as format 2.0, which NumPy reads; its data still starts at a multiple of 64 bytes.
TEST(Npy, LongHeadersUseVersion2) {
  std::vector<int64_t> dims(30000, 1);
  Tensor t(TensorType{DType::F32, Shape(dims)}, {1.5f});
  std::string bytes = to_npy_bytes(t);
  EXPECT_EQ(bytes[6], '\x02');
  EXPECT_EQ((bytes.size() - 4) % 64, 0u);
  Tensor back = parse_npy(bytes, "long.npy");
  EXPECT_EQ(back.shape(), t.shape());
  EXPECT_THAT(back.data(), ElementsAre(1.5f));
  Tensor small(TensorType{DType::F32, Shape{2}}, {1, 2});
  EXPECT_EQ(to_npy_bytes(small)[6], '\x01');
}

TEST(Npy, Int32ValuesBeyondItsRangeSaturate) {
  // int32 tensors hold floats; 2^31 and beyond (a float cannot hold 2^31 - 1) saturate.
  Tensor i(TensorType{DType::I32, Shape{3}}, {2147483648.0f, -3e9f, 7.0f});
  Tensor r = parse_npy(to_npy_bytes(i), "i.npy");
  EXPECT_EQ(r.dtype(), DType::I32);
  EXPECT_EQ(r[0], 2147483647.0f);
  EXPECT_EQ(r[1], -2147483648.0f);
  EXPECT_EQ(r[2], 7.0f);
}

TEST(Npy, ReadsOtherFormatsAndVersions) {
  Tensor f8 = parse_npy(
      npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", raw<double>({0.5, -3.0})),
      "f8.npy");
  EXPECT_EQ(f8.dtype(), DType::F32);
  EXPECT_THAT(f8.data(), ElementsAre(0.5, -3.0));
  Tensor i8 = parse_npy(
      npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }", raw<int64_t>({-7, 9})),
      "i8.npy");
  EXPECT_EQ(i8.dtype(), DType::I32);
  EXPECT_EQ(i8.shape(), (Shape{1, 2}));
  EXPECT_THAT(i8.data(), ElementsAre(-7, 9));
  Tensor b1 = parse_npy(npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
                            std::string("\x01\x00\x01", 3)),
                        "b1.npy");
  EXPECT_THAT(b1.data(), ElementsAre(1, 0, 1));
  Tensor v2 = parse_npy(
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", raw<int32_t>({4, 5}), 2),
      "v2.npy");
  EXPECT_THAT(v2.data(), ElementsAre(4, 5));
  // Key order and quoting are free.
  Tensor reordered = parse_npy(
      npy("{\"shape\": (1,), \"fortran_order\": False, \"descr\": \"<f4\"}", raw<float>({1.5f})),
      "r.npy");
  EXPECT_THAT(reordered.data(), ElementsAre(1.5));
}

TEST(Npy, MalformedFilesAreErrors) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  EXPECT_EQ(npy_error_of("hello"),
            "bad.npy: error: expected a .npy file (magic \\x93NUMPY), got other bytes");
  EXPECT_EQ(npy_error_of(""),
            "bad.npy: error: expected a .npy file (magic \\x93NUMPY), got other bytes");
  EXPECT_EQ(npy_error_of(npy(ok_dict, raw<float>({1}))),
            "bad.npy: error: expected 8 bytes of data, got 4 (truncated file)");
  EXPECT_EQ(npy_error_of(npy(ok_dict, "").substr(0, 30)),
            "bad.npy: error: expected a 118-byte header, got 20 bytes");
  std::string v9 = npy(ok_dict, raw<float>({1, 2}));
  v9[6] = 9;
  EXPECT_EQ(npy_error_of(v9), "bad.npy: error: expected format version 1, 2 or 3, got 9");
  EXPECT_EQ(npy_error_of(npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }",
                             raw<float>({1, 2}))),
            "bad.npy: error: expected dtype <f4, <f8, <i4, <i8, |b1, |i1 or |u1, got '>f4'");
  EXPECT_EQ(npy_error_of(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }",
                             raw<float>({1, 2}))),
            "bad.npy: error: expected C order (fortran_order False), got True");
  EXPECT_EQ(npy_error_of(npy("{'descr': '<f4', 'shape': (2,), }", raw<float>({1, 2}))),
            "bad.npy: error: expected header keys 'descr', 'fortran_order' and 'shape'");
  EXPECT_EQ(npy_error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", "")),
            "bad.npy: error: expected an extent in 'shape', got 'x'");
  EXPECT_EQ(npy_error_of(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2", "")),
            "bad.npy: error: expected ',' or ')' in 'shape', got the end of the header");
  EXPECT_EQ(npy_error_of(npy("{'descr: '<f4'}", "")),
            "bad.npy: error: expected ':' in the header, got '<'");
  EXPECT_EQ(npy_error_of(npy("{'dtype': '<f4'}", "")),
            "bad.npy: error: expected a header key 'descr', 'fortran_order' or 'shape', got "
            "'dtype'");
  EXPECT_EQ(
      npy_error_of(
          npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", "")),
      "bad.npy: error: expected extents below 2^48 in 'shape'");
  EXPECT_EQ(
      npy_error_of(npy(
          "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000, 1000000), }", "")),
      "bad.npy: error: expected at most 2^48 elements");
  EXPECT_EQ(npy_error_of(npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }",
                             raw<int64_t>({int64_t{1} << 40}))),
            "bad.npy: error: expected int64 values within int32 range, got 1099511627776 at "
            "element 0");
  // Every prefix of a valid file is rejected cleanly.
  std::string good = npy(ok_dict, raw<float>({1, 2}));
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_THROW((void)parse_npy(good.substr(0, n), "prefix.npy"), Error) << n;
  }
}

TEST(Npy, MissingAndUnwritableFiles) {
  try {
    (void)read_npy("/nonexistent/dir/x.npy");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "error: /nonexistent/dir/x.npy: cannot open the .npy file: No such "
                           "file or directory");
  }
  EXPECT_THROW(write_npy("/nonexistent/dir/x.npy", Tensor(TensorType{DType::F32, Shape{1}})),
               Error);
}

} // namespace
} // namespace tilesat
