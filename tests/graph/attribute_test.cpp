// Tests of attribute.h: kinds, rendering, hashing and the sorted Attrs list.
#include "tilesat/graph/attribute.h"
#include "tilesat/graph/diagnostic.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

TEST(Attrs, HeaderExample) {
  Attrs a;
  a.set("dim0", int64_t{1});
  EXPECT_EQ(a.get<int64_t>("dim0"), 1);
  EXPECT_FALSE(a.get_or<bool>("transpose_b", false));
}

TEST(Attrs, KeptSortedByName) {
  Attrs a;
  a.set("z", true);
  a.set("a", int64_t{2});
  a.set("m", 1.5);
  ASSERT_EQ(a.entries().size(), 3u);
  EXPECT_EQ(a.entries()[0].first, "a");
  EXPECT_EQ(a.entries()[1].first, "m");
  EXPECT_EQ(a.entries()[2].first, "z");
  a.set("m", 2.5); // replaces
  EXPECT_EQ(a.entries().size(), 3u);
  EXPECT_EQ(a.get<double>("m"), 2.5);
  EXPECT_TRUE(a.erase("m"));
  EXPECT_FALSE(a.erase("m"));
  EXPECT_FALSE(a.has("m"));
}

TEST(Attrs, EqualityAndHashIgnoreInsertionOrder) {
  Attrs a, b;
  a.set("x", int64_t{1});
  a.set("y", std::vector<int64_t>{1, 0});
  b.set("y", std::vector<int64_t>{1, 0});
  b.set("x", int64_t{1});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  b.set("x", int64_t{2});
  EXPECT_NE(a, b);
  EXPECT_NE(a.hash(), b.hash());
  EXPECT_EQ(hash_attr_value(0.0), hash_attr_value(-0.0));
  EXPECT_NE(hash_attr_value(int64_t{1}), hash_attr_value(true));
}

TEST(Attrs, GetReportsMissingAndWrongKind) {
  Attrs a;
  a.set("dim0", 1.5);
  try {
    (void)a.get<int64_t>("dim0");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message, "expected attribute 'dim0' to be int, got float 1.5");
  }
  try {
    (void)a.get<bool>("transpose_a");
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message, "expected attribute 'transpose_a' (bool), got none");
  }
  EXPECT_EQ(a.get_or<int64_t>("dim0", 7), 7); // wrong kind falls back
}

TEST(AttrValue, KindsAndRendering) {
  EXPECT_EQ(attr_kind(AttrValue{true}), AttrKind::Bool);
  EXPECT_EQ(attr_kind(AttrValue{int64_t{3}}), AttrKind::Int);
  EXPECT_EQ(attr_kind(AttrValue{0.5}), AttrKind::Float);
  EXPECT_EQ(attr_kind(AttrValue{std::string("s")}), AttrKind::String);
  EXPECT_EQ(attr_kind(AttrValue{std::vector<int64_t>{}}), AttrKind::IntList);
  EXPECT_EQ(attr_kind(AttrValue{std::vector<double>{}}), AttrKind::FloatList);
  EXPECT_EQ(attr_kind(AttrValue{DType::BF16}), AttrKind::DType);
  EXPECT_EQ(attr_kind(AttrValue{OpaqueAttr{"#x"}}), AttrKind::Opaque);

  EXPECT_EQ(attr_value_str(true), "true");
  EXPECT_EQ(attr_value_str(int64_t{3}), "3");
  EXPECT_EQ(attr_value_str(1.0), "1.0");
  EXPECT_EQ(attr_value_str(0.5), "0.5");
  EXPECT_EQ(attr_value_str(std::vector<int64_t>{1, 0}), "[1, 0]");
  EXPECT_EQ(attr_value_str(std::vector<double>{1.0, -2.5}), "[1.0, -2.5]");
  EXPECT_EQ(attr_value_str(DType::BF16), "bf16");
  EXPECT_EQ(attr_value_str(std::string("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(attr_value_str(OpaqueAttr{"[#any_device]"}), "[#any_device]");
  EXPECT_EQ(attr_kind_name(AttrKind::IntList), "int list");
}

} // namespace
} // namespace tilesat
