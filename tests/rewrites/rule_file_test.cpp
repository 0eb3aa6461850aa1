// Tests of rule_file.cpp: the format and every error the loader reports.
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/rule_file.h"
#include "tilesat/rewrites/rule_sets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::rewrites {
namespace {

std::string load_error(const std::string& text) {
  try {
    parse_rule_file(text, "bad.rules");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(RuleFile, ReadsRulesCommentsAndBothDirections) {
  RuleFile f = parse_rule_file(R"(# a comment line
neg-neg: (neg (neg ?x)) => ?x   # trailing comment

assoc: (matmul (matmul ?a ?b) ?c) <=> (matmul ?a (matmul ?b ?c))
)",
                               "ok.rules");
  ASSERT_EQ(f.rewrites.size(), 3u);
  EXPECT_EQ(f.rewrites[0].name(), "neg-neg");
  EXPECT_EQ(f.rewrites[1].name(), "assoc");
  EXPECT_EQ(f.rewrites[2].name(), "assoc-rev");
  EXPECT_EQ(f.origins[1].line, 4);
}

TEST(RuleFile, OpSetsExpandToOneRulePerMember) {
  RuleFile f = parse_rule_file("ops u = exp, neg\nt: (transpose[dim0=?i, dim1=?j] (u ?x)) => "
                               "(u (transpose[dim0=?i, dim1=?j] ?x))",
                               "ops.rules");
  ASSERT_EQ(f.rewrites.size(), 2u);
  EXPECT_EQ(f.rewrites[0].name(), "t.exp");
  EXPECT_EQ(f.rewrites[1].name(), "t.neg");
}

TEST(RuleFile, LeftSidesConstrainUnwrittenAttributesToTheirDefaults) {
  RuleFile f = parse_rule_file("r: (matmul ?a ?b) => (matmul ?a ?b)", "d.rules");
  EXPECT_THAT(f.rewrites[0].lhs()->to_string(), ::testing::HasSubstr("transpose_b=false"));
}

TEST(RuleFile, UnknownOp) {
  EXPECT_EQ(load_error("r: (frobnicate ?x) => ?x"),
            "bad.rules:1:5: error: unknown op 'frobnicate'");
}

TEST(RuleFile, UnboundVariable) {
  EXPECT_EQ(load_error("\nr: (neg ?x) => (add ?x ?y)"),
            "bad.rules:2:24: error: unbound variable ?y (the left side does not bind it)");
}

TEST(RuleFile, UnknownGuard) {
  EXPECT_EQ(load_error("r: (neg (neg ?x)) => ?x if is-nice(?x)"),
            "bad.rules:1:28: error: unknown guard 'is-nice'");
}

TEST(RuleFile, GuardErrorsInOpSetRulesPointAtTheRuleLine) {
  EXPECT_EQ(load_error("ops u = neg, abs\nr: (u (u ?x)) => ?x if is-nice(?x)"),
            "bad.rules:2:24: error: unknown guard 'is-nice'");
  EXPECT_EQ(load_error("ops u = neg, abs\nr: (u ?x) => ?x if single-use(?y)"),
            "bad.rules:2:31: error: unbound variable ?y (the left side does not bind it)");
}

TEST(RuleFile, ControlCharactersAreAnErrorNotAHang) {
  EXPECT_EQ(load_error(std::string("r: (neg \x01 ?x) => ?x")),
            "bad.rules:1:9: error: expected an expression, got the control character 0x01");
  constexpr char kWithNuls[] = "r: (matm\x01\0\0ul ?x) => ?x";
  EXPECT_EQ(load_error(std::string(kWithNuls, sizeof kWithNuls - 1)),
            "bad.rules:1:9: error: expected an expression, got the control character 0x01");
}

TEST(RuleFile, WrongArity) {
  EXPECT_EQ(load_error("r: (add ?x) => ?x"),
            "bad.rules:1:5: error: 'add' expects 2 operands, got 1");
}

TEST(RuleFile, GuardArgumentsAreChecked) {
  EXPECT_EQ(load_error("r: (neg ?x) => ?x if single-use(?x, ?x)"),
            "bad.rules:1:22: error: guard 'single-use' expects 1 argument, got 2");
  EXPECT_EQ(load_error("r: (neg ?x) => ?x if splat-equals(0, ?x)"),
            "bad.rules:1:35: error: argument 1 of guard 'splat-equals' expects a tensor variable, "
            "got '0'");
}

TEST(RuleFile, AttributesAreChecked) {
  EXPECT_EQ(load_error("r: (matmul[transpose_c=true] ?a ?b) => ?a"),
            "bad.rules:1:12: error: unknown attribute 'transpose_c' of 'matmul' (attributes: "
            "transpose_a, transpose_b)");
  EXPECT_EQ(load_error("r: (matmul[transpose_b=1] ?a ?b) => ?a"),
            "bad.rules:1:12: error: attribute 'transpose_b' of 'matmul' expects bool, got 1");
  EXPECT_EQ(load_error("r: (neg ?x) => (transpose ?x)"),
            "bad.rules:1:17: error: right side: 'transpose' needs attribute 'dim0'");
}

TEST(RuleFile, SyntaxErrorsNameTheColumn) {
  EXPECT_EQ(load_error("just text"),
            "bad.rules:1:1: error: expected 'name: lhs => rhs', got no rule name");
  EXPECT_EQ(load_error("r: (neg ?x) ?x"), "bad.rules:1:3: error: expected '=>' or '<=>'");
  EXPECT_THAT(load_error("r: (neg ?x => ?x"), ::testing::StartsWith("bad.rules:1:"));
}

TEST(RuleFile, UnknownApplier) {
  EXPECT_EQ(load_error("r: (neg ?x) => @no-such(?x)"),
            "bad.rules:1:17: error: unknown applier '@no-such'");
}

TEST(RuleSets, EveryShippedSetLoads) {
  for (const std::string& name : rule_set_names()) {
    EXPECT_NO_THROW(load_rule_file(rule_set_path(name))) << name;
  }
  EXPECT_THAT(rule_set_names(),
              ::testing::IsSupersetOf({"transpose-folding", "eltwise-fusion", "broadcast-folding",
                                       "canonical", "linear-fusion", "algebraic"}));
}

TEST(RuleSets, UnknownSetListsTheKnownOnes) {
  try {
    rule_set_path("nope");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("unknown rule set 'nope' (rule sets: algebraic,"));
  }
}

} // namespace
} // namespace tilesat::rewrites
