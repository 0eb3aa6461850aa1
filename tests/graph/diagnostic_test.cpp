// Tests of diagnostic.h: location and message rendering, and the two error kinds.
#include "tilesat/graph/diagnostic.h"

#include <gtest/gtest.h>
#include <type_traits>

namespace tilesat {
namespace {

TEST(Diagnostic, Rendering) {
  EXPECT_EQ((SourceLoc{"model.mlir", 12, 7}).str(), "model.mlir:12:7");
  EXPECT_EQ((SourceLoc{"w.npy", 0, 0}).str(), "w.npy");
  EXPECT_EQ(SourceLoc{}.str(), "");
  EXPECT_FALSE(SourceLoc{}.known());
  Diagnostic d;
  d.loc = SourceLoc{"model.mlir", 12, 7};
  d.message = "expected ')', got ','";
  EXPECT_EQ(d.str(), "model.mlir:12:7: error: expected ')', got ','");
  Diagnostic unplaced;
  unplaced.message = "boom";
  EXPECT_EQ(unplaced.str(), "error: boom");
}

TEST(Diagnostic, ErrorCarriesTheDiagnostic) {
  Error e(SourceLoc{"a.mlir", 1, 2}, "expected x, got y");
  EXPECT_STREQ(e.what(), "a.mlir:1:2: error: expected x, got y");
  EXPECT_EQ(e.diagnostic().loc.line, 1);
  EXPECT_EQ(e.diagnostic().message, "expected x, got y");
  EXPECT_STREQ(Error("plain").what(), "error: plain");
  // A user error and a tilesat bug are different kinds.
  static_assert(!std::is_base_of_v<InternalError, Error>);
  static_assert(!std::is_base_of_v<Error, InternalError>);
}

} // namespace
} // namespace tilesat
