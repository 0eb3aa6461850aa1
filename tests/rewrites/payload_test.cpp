// Tests of payload.cpp: the canonical payload of an op and the way back.
#include "tilesat/rewrites/payload.h"

#include <gtest/gtest.h>

namespace tilesat::rewrites {
namespace {

TEST(Payload, DefaultsAreFilledSoEqualOpsGetEqualPayloads) {
  Attrs written;
  written.set("transpose_b", false);
  EXPECT_EQ(to_payload(OpKind::Matmul, Attrs{}), to_payload(OpKind::Matmul, written));
  EXPECT_EQ(to_payload(OpKind::Matmul, Attrs{}).to_string(),
            "[transpose_a=false, transpose_b=false]");
}

TEST(Payload, RoundTripDropsDefaultsAndKeepsEveryKind) {
  Attrs a;
  a.set("value", std::vector<double>{0.5, -1.25, 3});
  a.set("shape", std::vector<int64_t>{3});
  a.set("dtype", DType::BF16);
  EXPECT_EQ(from_payload(OpKind::Constant, to_payload(OpKind::Constant, a)), a);
  Attrs m;
  m.set("transpose_b", true);
  m.set("operand_constraints", OpaqueAttr{"[#any_device]"});
  EXPECT_EQ(from_payload(OpKind::Matmul, to_payload(OpKind::Matmul, m)), m);
}

TEST(Payload, OpSymbolsAreRegistryNames) {
  EXPECT_EQ(op_symbol(OpKind::AddRelu).str(), "add_relu");
  EXPECT_EQ(op_of(egraph::Symbol::intern("fused_eltwise")), OpKind::FusedEltwise);
  EXPECT_EQ(op_of(egraph::Symbol::intern("no-such-op")), std::nullopt);
}

} // namespace
} // namespace tilesat::rewrites
