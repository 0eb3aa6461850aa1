// Tests of rule_file.cpp: the format and every error the loader reports.
#include "rewrite_test_support.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/rule_file.h"
#include "tilesat/rewrites/rule_sets.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tilesat::rewrites {
namespace {

using testing::rule_file_error;

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
  EXPECT_EQ(rule_file_error("r: (frobnicate ?x) => ?x"),
            "bad.rules:1:5: error: unknown op 'frobnicate'");
}

TEST(RuleFile, UnboundVariable) {
  EXPECT_EQ(rule_file_error("\nr: (neg ?x) => (add ?x ?y)"),
            "bad.rules:2:24: error: unbound variable ?y (the left side does not bind it)");
}

TEST(RuleFile, UnknownGuard) {
  EXPECT_EQ(rule_file_error("r: (neg (neg ?x)) => ?x if is-nice(?x)"),
            "bad.rules:1:28: error: unknown guard 'is-nice'");
}

TEST(RuleFile, GuardErrorsInOpSetRulesPointAtTheRuleLine) {
  EXPECT_EQ(rule_file_error("ops u = neg, abs\nr: (u (u ?x)) => ?x if is-nice(?x)"),
            "bad.rules:2:24: error: unknown guard 'is-nice'");
  EXPECT_EQ(rule_file_error("ops u = neg, abs\nr: (u ?x) => ?x if single-use(?y)"),
            "bad.rules:2:31: error: unbound variable ?y (the left side does not bind it)");
}

TEST(RuleFile, ControlCharactersAreAnErrorNotAHang) {
  EXPECT_EQ(rule_file_error(std::string("r: (neg \x01 ?x) => ?x")),
            "bad.rules:1:9: error: expected an expression, got the control character 0x01");
  constexpr char kWithNuls[] = "r: (matm\x01\0\0ul ?x) => ?x";
  EXPECT_EQ(rule_file_error(std::string(kWithNuls, sizeof kWithNuls - 1)),
            "bad.rules:1:9: error: expected an expression, got the control character 0x01");
}

TEST(RuleFile, WrongArity) {
  EXPECT_EQ(rule_file_error("r: (add ?x) => ?x"),
            "bad.rules:1:5: error: 'add' expects 2 operands, got 1");
}

TEST(RuleFile, GuardArgumentsAreChecked) {
  EXPECT_EQ(rule_file_error("r: (neg ?x) => ?x if single-use(?x, ?x)"),
            "bad.rules:1:22: error: guard 'single-use' expects 1 argument, got 2");
  EXPECT_EQ(rule_file_error("r: (neg ?x) => ?x if splat-equals(0, ?x)"),
            "bad.rules:1:35: error: argument 1 of guard 'splat-equals' expects a tensor variable, "
            "got '0'");
}

TEST(RuleFile, AttributesAreChecked) {
  EXPECT_EQ(rule_file_error("r: (matmul[transpose_c=true] ?a ?b) => ?a"),
            "bad.rules:1:12: error: unknown attribute 'transpose_c' of 'matmul' (attributes: "
            "transpose_a, transpose_b)");
  EXPECT_EQ(rule_file_error("r: (matmul[transpose_b=1] ?a ?b) => ?a"),
            "bad.rules:1:12: error: attribute 'transpose_b' of 'matmul' expects bool, got 1");
  EXPECT_EQ(rule_file_error("r: (neg ?x) => (transpose ?x)"),
            "bad.rules:1:17: error: right side: 'transpose' needs attribute 'dim0'");
}

TEST(RuleFile, SyntaxErrorsNameTheColumn) {
  EXPECT_EQ(rule_file_error("just text"),
            "bad.rules:1:1: error: expected 'name: lhs => rhs', got no rule name");
  EXPECT_EQ(rule_file_error("r: (neg ?x) ?x"), "bad.rules:1:3: error: expected '=>' or '<=>'");
  EXPECT_THAT(rule_file_error("r: (neg ?x => ?x"), ::testing::StartsWith("bad.rules:1:"));
}

TEST(RuleFile, UnknownApplier) {
  EXPECT_EQ(rule_file_error("r: (neg ?x) => @no-such(?x)"),
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

TEST(RuleFile, LayoutLinesDeclareVariants) {
  RuleFile f = parse_rule_file("ops mm = matmul, linear\n"
                               "layout l1: * => tile l1 interleaved\n"
                               "layout rows: *, !mm => tile l1 height_sharded if tile-aligned\n"
                               "layout blocks: mm, add => tile l1 block_sharded if min-cores(4)\n",
                               "l.rules");
  EXPECT_TRUE(f.rewrites.empty());
  ASSERT_EQ(f.layouts.size(), 3u);
  EXPECT_EQ(f.layouts[0].name, "l1");
  EXPECT_EQ(f.layouts[0].origin, "l.rules:2");
  EXPECT_TRUE(f.layouts[0].applies_to(OpKind::Softmax));
  EXPECT_EQ(f.layouts[1].memory, LayoutMemory::HeightSharded);
  EXPECT_TRUE(f.layouts[1].applies_to(OpKind::Add));
  EXPECT_FALSE(f.layouts[1].applies_to(OpKind::Linear));
  ASSERT_EQ(f.layouts[1].conditions.size(), 1u);
  EXPECT_EQ(f.layouts[1].conditions[0].kind, LayoutCondition::Kind::TileAligned);
  EXPECT_TRUE(f.layouts[2].applies_to(OpKind::Matmul));
  EXPECT_TRUE(f.layouts[2].applies_to(OpKind::Add));
  EXPECT_FALSE(f.layouts[2].applies_to(OpKind::Relu));
  EXPECT_EQ(f.layouts[2].conditions[0].value, 4);
  EXPECT_FALSE(f.layouts[2].every_grid);
}

TEST(RuleFile, LayoutLinesRowMajorAndGrids) {
  RuleFile f =
      parse_rule_file("layout rows: reshape => row_major dram interleaved\n"
                      "layout grids: * => tile l1 block_sharded grids all if max-cores(16)\n"
                      "layout one: * => tile l1 height_sharded grids largest\n",
                      "g.rules");
  ASSERT_EQ(f.layouts.size(), 3u);
  EXPECT_EQ(f.layouts[0].tiling, LayoutTiling::RowMajor);
  EXPECT_EQ(f.layouts[0].buffer, LayoutBuffer::Dram);
  EXPECT_EQ(f.layouts[1].tiling, LayoutTiling::Tile);
  EXPECT_TRUE(f.layouts[1].every_grid);
  ASSERT_EQ(f.layouts[1].conditions.size(), 1u);
  EXPECT_EQ(f.layouts[1].conditions[0].kind, LayoutCondition::Kind::MaxCores);
  EXPECT_EQ(f.layouts[1].conditions[0].value, 16);
  EXPECT_FALSE(f.layouts[2].every_grid);
}

TEST(RuleFile, ReadsLinesConstrainOperands) {
  RuleFile f = parse_rule_file("ops red = sum, mean\n"
                               "reads r: red => l1 sharded\n"
                               "reads d: exp => dram interleaved\n",
                               "r.rules");
  ASSERT_EQ(f.reads.size(), 2u);
  EXPECT_EQ(f.reads[0].name, "r");
  EXPECT_EQ(f.reads[0].origin, "r.rules:2");
  EXPECT_TRUE(f.reads[0].applies_to(OpKind::Mean));
  EXPECT_FALSE(f.reads[0].applies_to(OpKind::Exp));
  EXPECT_TRUE(f.reads[0].accepts(LayoutBuffer::L1, LayoutMemory::HeightSharded));
  EXPECT_TRUE(f.reads[0].accepts(LayoutBuffer::L1, LayoutMemory::BlockSharded));
  EXPECT_FALSE(f.reads[0].accepts(LayoutBuffer::L1, LayoutMemory::Interleaved));
  EXPECT_FALSE(f.reads[0].accepts(LayoutBuffer::Dram, LayoutMemory::Interleaved));
  EXPECT_TRUE(f.reads[1].accepts(LayoutBuffer::Dram, LayoutMemory::Interleaved));
  EXPECT_EQ(rule_file_error("reads r: sum => l1"),
            "bad.rules:1:16: error: expected 'BUFFER MEMORY' after '=>'");
  EXPECT_EQ(rule_file_error("reads r: sum => dram sharded"),
            "bad.rules:1:22: error: DRAM is interleaved (sharding is in L1)");
  EXPECT_EQ(rule_file_error("reads r: sum => l1 striped"),
            "bad.rules:1:20: error: expected 'interleaved', 'sharded', 'height_sharded', "
            "'width_sharded' or 'block_sharded', got 'striped'");
  EXPECT_EQ(rule_file_error("reads : sum => l1 sharded"),
            "bad.rules:1:7: error: expected 'reads NAME: ops => BUFFER MEMORY'");
  EXPECT_EQ(rule_file_error("reads r: => l1 sharded"),
            "bad.rules:1:10: error: expected '*', an op or an op set, got ''");
}

TEST(RuleFile, LayoutErrorsNameThePlace) {
  EXPECT_EQ(rule_file_error("layout x: frob => tile l1 interleaved"),
            "bad.rules:1:11: error: expected '*', an op or an op set, got 'frob'");
  EXPECT_EQ(rule_file_error("layout x: * => tile l2 interleaved"),
            "bad.rules:1:21: error: expected the buffer 'dram' or 'l1', got 'l2'");
  EXPECT_EQ(rule_file_error("layout x: * => rows l1 interleaved"),
            "bad.rules:1:16: error: expected the layout 'tile' or 'row_major', got 'rows'");
  EXPECT_EQ(rule_file_error("layout x: * => row_major l1 height_sharded"),
            "bad.rules:1:29: error: a row-major variant is interleaved (sharded values are "
            "whole tiles)");
  EXPECT_EQ(rule_file_error("layout x: * => tile l1 block_sharded grids some"),
            "bad.rules:1:44: error: expected 'grids all' or 'grids largest', got 'grids some'");
  EXPECT_EQ(rule_file_error("layout x: * => tile l1 block_sharded grid all"),
            "bad.rules:1:38: error: expected 'grids', got 'grid'");
  EXPECT_EQ(rule_file_error("layout x: * => tile l1 interleaved grids all"),
            "bad.rules:1:36: error: 'grids' applies to sharded variants (interleaved pages use "
            "every core)");
  EXPECT_EQ(rule_file_error("layout x: * => tile l1 block_sharded if max-cores(0)"),
            "bad.rules:1:51: error: max-cores expects a core count >= 1, got '0'");
  EXPECT_EQ(rule_file_error("layout x: * => tile dram block_sharded"),
            "bad.rules:1:26: error: a DRAM variant is interleaved (sharding is in L1)");
  EXPECT_EQ(rule_file_error("layout x: * => tile l1 diagonal"),
            "bad.rules:1:24: error: expected 'interleaved', 'height_sharded', 'width_sharded' "
            "or 'block_sharded', got 'diagonal'");
  EXPECT_EQ(rule_file_error("layout x: * => tile l1"),
            "bad.rules:1:15: error: expected 'LAYOUT BUFFER MEMORY [grids all|largest]' after "
            "'=>'");
  EXPECT_EQ(rule_file_error("layout x: * => tile l1 interleaved if fast"),
            "bad.rules:1:39: error: unknown layout condition 'fast' with 0 arguments "
            "(conditions: tile-aligned, min-cores(N), max-cores(N))");
  EXPECT_EQ(rule_file_error("layout x: * => tile l1 block_sharded if min-cores(0)"),
            "bad.rules:1:51: error: min-cores expects a core count >= 1, got '0'");
  EXPECT_EQ(rule_file_error("layout : * => tile l1 interleaved"),
            "bad.rules:1:8: error: expected 'layout NAME: ops => LAYOUT BUFFER MEMORY'");
  EXPECT_EQ(rule_file_error("layout x: !add => tile l1 interleaved"),
            "bad.rules:1:10: error: expected the ops the layout applies to");
}

TEST(RuleFile, ShippedLayoutChoiceKeepsMatmulOutputsBlockSharded) {
  RuleFile f = load_rule_file(rule_set_path("layout-choice"));
  EXPECT_TRUE(f.rewrites.empty());
  ASSERT_FALSE(f.layouts.empty());
  for (const LayoutRule& r : f.layouts) {
    if (r.memory == LayoutMemory::HeightSharded || r.memory == LayoutMemory::WidthSharded) {
      EXPECT_FALSE(r.applies_to(OpKind::Matmul)) << r.name;
    }
  }
}

} // namespace
} // namespace tilesat::rewrites
