// Planning and extraction on the seed MLP: L1 intermediates on wormhole_b0, DRAM on tiny,
// an op that fits nowhere, Z3 legality with named violations, the JSON report.
#include "tilesat/cost/extract.h"
#include "tilesat/cost/extract_exact.h"
#include "tilesat/cost/legality.h"
#include "tilesat/cost/nchw_convs.h"
#include "tilesat/cost/placement.h"
#include "tilesat/cost/plan_io.h"
#include "tilesat/cost/planner.h"
#include "tilesat/graph/builder.h"
#include "tilesat/graph/conv_attrs.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/interpreter.h"
#include "tilesat/graph/module.h"
#include "tilesat/graph/parser.h"
#include "tilesat/rewrites/rule_file.h"
#include "tilesat/rewrites/rule_sets.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace tilesat::cost {
namespace {

using ::testing::HasSubstr;

Graph seed_mlp() {
  SourceFile f = parse_file(std::string(TILESAT_SOURCE_DIR) + "/examples/mlp/mlp.mlir");
  return f.modules.at(0).functions.at(0);
}

DevicePlanResult plan_mlp(const std::string& device, double exact_s = 0) {
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::rule_set_names());
  return optimize_for_device(seed_mlp(), rules, egraph::RunnerConfig(),
                             CostModel(load_device(device)), ExtractOptions{exact_s});
}

bool is_argument_value(const Plan& p, uint32_t v) {
  return p.graph.node(p.values[v].node).kind == OpKind::Argument;
}

TEST(Plan, SeedMlpOnWormhole) {
  Plan p = plan_mlp("wormhole_b0").plan;
  EXPECT_EQ(p.device, "wormhole_b0");
  EXPECT_LE(p.ops.size(), 9u);
  EXPECT_EQ(p.extraction_method, "dp");
  int compute_ops = 0;
  for (const PlannedOp& op : p.ops) {
    const Placement& out = p.values[op.result].placement;
    if (op.is_to_layout()) {
      // Inputs and weights: tilized, interleaved (into L1 where the reader gains).
      EXPECT_TRUE(is_argument_value(p, op.operands[0])) << op.name;
      EXPECT_EQ(out.layout, Layout::Tile) << op.name;
      EXPECT_EQ(out.memory, MemoryLayout::Interleaved) << op.name;
      continue;
    }
    ++compute_ops;
    bool is_result = std::find(p.results.begin(), p.results.end(), op.result) != p.results.end();
    if (!is_result) {
      EXPECT_EQ(out.buffer, BufferType::L1) << op.name << " keeps its result in L1";
    }
    EXPECT_GT(op.predicted_us, 0);
  }
  EXPECT_EQ(compute_ops, 2); // two linear ops after fusion
  EXPECT_TRUE(check_legality(p, CostModel(load_device("wormhole_b0"))).legal);
  double sum = 0;
  for (const PlannedOp& op : p.ops) sum += op.predicted_us;
  EXPECT_DOUBLE_EQ(p.predicted_total_us, sum);
}

// Where arguments are tilized: the seed MLP's input goes into L1 (its linear reads it faster
// there); without layout rules (every value in DRAM) into DRAM; weights marked one-time into
// DRAM once at load (moved into L1 they would be moved in every inference).
TEST(Plan, ArgumentsTilizeWhereTheirReadersGain) {
  auto tilized = [](const Plan& p, const std::string& arg) {
    for (const PlannedOp& op : p.ops)
      if (op.is_to_layout() && p.graph.node(p.values[op.operands[0]].node).name == arg)
        return p.values[op.result].placement;
    ADD_FAILURE() << arg << " is not tilized";
    return Placement{};
  };
  Plan full = plan_mlp("wormhole_b0").plan;
  EXPECT_EQ(tilized(full, "arg0").buffer, BufferType::L1);

  CostOptions no_rules;
  no_rules.layouts = std::make_shared<LayoutChoice>();
  CostModel bare(load_device("wormhole_b0"), no_rules);
  Plan dram = plan_graph(seed_mlp(), bare);
  for (const char* arg : {"arg0", "arg1", "arg2", "arg3", "arg4"})
    EXPECT_EQ(tilized(dram, arg), dram_tile_placement()) << arg;

  Graph g = seed_mlp();
  for (NodeId a : g.arguments())
    if (g.node(a).name != "arg0") g.mutable_node(a).role = ArgRole::Weight;
  Plan weights = plan_graph(g, CostModel(load_device("wormhole_b0")));
  EXPECT_EQ(tilized(weights, "arg0").buffer, BufferType::L1);
  int one_time = 0;
  for (const PlannedOp& op : weights.ops)
    if (op.is_to_layout() && op.one_time) {
      ++one_time;
      EXPECT_EQ(weights.values[op.result].placement, dram_tile_placement()) << op.name;
    }
  EXPECT_GT(one_time, 0);
}

// live_l1_bytes's sweep gives, per op, what the definition says: the L1 bytes of the values
// defined before the op (arguments: before all) and used at or after it (results: to the end),
// other than the op's own operands and result. Checked on a DAG whose values live long.
TEST(Plan, LiveL1BytesMatchesItsDefinition) {
  std::string text = "func.func @main(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {\n";
  std::vector<std::string> names{"%a"};
  for (int i = 0; i < 40; ++i) {
    const std::string t = "tensor<64x64xf32>";
    const std::string& x = names.back();
    const std::string& y = names[names.size() > 4 ? names.size() - 4 : 0];
    text += i % 2
                ? fmt::format("  %v{} = \"ttir.add\"({}, {}) : ({}, {}) -> {}\n", i, x, y, t, t, t)
                : fmt::format("  %v{} = \"ttir.exp\"({}) : ({}) -> {}\n", i, x, t, t);
    names.push_back(fmt::format("%v{}", i));
  }
  text += "  return " + names.back() + " : tensor<64x64xf32>\n}\n";
  Graph g = parse_text(text, "dag.mlir").modules.at(0).functions.at(0);
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::rule_set_names());
  CostModel model(load_device("wormhole_b0"));
  Plan p = optimize_for_device(g, rules, egraph::RunnerConfig(), model, {}).plan;
  const std::vector<int64_t> live = live_l1_bytes(p, model);
  ASSERT_EQ(live.size(), p.ops.size());
  size_t l1_values = 0;
  for (const PlannedValue& v : p.values) l1_values += v.placement.buffer == BufferType::L1;
  EXPECT_GT(l1_values, 10u);
  for (size_t i = 0; i < p.ops.size(); ++i) {
    int64_t want = 0;
    for (uint32_t v = 0; v < p.values.size(); ++v) {
      if (p.values[v].placement.buffer != BufferType::L1) continue;
      int64_t def = -1, last = -1;
      for (size_t k = 0; k < p.ops.size(); ++k) {
        if (p.ops[k].result == v) def = static_cast<int64_t>(k);
        for (uint32_t o : p.ops[k].operands)
          if (o == v) last = static_cast<int64_t>(k);
      }
      for (uint32_t r : p.results)
        if (r == v) last = static_cast<int64_t>(p.ops.size());
      const auto at = static_cast<int64_t>(i);
      const PlannedOp& op = p.ops[i];
      if (def > at || last < at || v == op.result ||
          std::find(op.operands.begin(), op.operands.end(), v) != op.operands.end())
        continue;
      want += model.l1_bytes_per_core(p.graph.node(p.values[v].node).type, p.values[v].placement);
    }
    EXPECT_EQ(live[i], want) << "op " << i << " " << p.ops[i].name;
  }
}

TEST(Plan, SeedMlpOnTinyGoesToDram) {
  Plan p = plan_mlp("tiny").plan;
  CostModel model(load_device("tiny"));
  for (const PlannedValue& v : p.values) EXPECT_EQ(v.placement.buffer, BufferType::DRAM);
  EXPECT_LE(p.peak_l1_bytes_per_core, model.device().usable_l1_bytes());
  EXPECT_TRUE(check_legality(p, model).legal);
}

// A TTNN program's arguments are device tensors already: no conversions, the same two ops.
TEST(Plan, ArgumentsOnDeviceNeedNoConversion) {
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::rule_set_names());
  CostOptions options;
  options.arguments_on_device = true;
  CostModel model(load_device("wormhole_b0"), options);
  Plan p = optimize_for_device(seed_mlp(), rules, egraph::RunnerConfig(), model, {}).plan;
  ASSERT_EQ(p.ops.size(), 2u);
  for (const PlannedOp& op : p.ops) EXPECT_EQ(op.kind, "linear");
  for (uint32_t v = 0; v < 5; ++v) EXPECT_EQ(p.values[v].placement, dram_tile_placement());
  EXPECT_TRUE(check_legality(p, model).legal);
  EXPECT_LT(p.predicted_total_us, plan_mlp("wormhole_b0").plan.predicted_total_us);
}

TEST(Plan, OpTooBigForOneBlockStreamsItsOutput) {
  // The per-core output block of this matmul does not fit the tiny device's L1: the core
  // computes it in smaller output blocks, and the plan is legal.
  Graph g("main");
  NodeId a = g.add_argument("a", {DType::F32, Shape{32, 1024}});
  NodeId b = g.add_argument("b", {DType::F32, Shape{1024, 1024}});
  g.add_result(g.add_op(OpKind::Matmul, {a, b}));
  CostModel model(load_device("tiny"));
  Plan p = plan_graph(g, model);
  const PlannedOp* mm = nullptr;
  for (const PlannedOp& op : p.ops)
    if (op.kind == "matmul") mm = &op;
  ASSERT_NE(mm, nullptr);
  ASSERT_TRUE(mm->blocking);
  const MatmulBlocking& bl = *mm->blocking;
  EXPECT_LT(bl.out_block_h * bl.out_block_w, bl.per_core_m * bl.per_core_n);
  EXPECT_EQ(bl.per_core_m % bl.out_block_h, 0);
  EXPECT_EQ(bl.per_core_n % bl.out_block_w, 0);
  EXPECT_LE(mm->l1_bytes_per_core, model.device().usable_l1_bytes());
  EXPECT_THAT(mm->cost.detail, HasSubstr("streamed in"));
  EXPECT_TRUE(check_legality(p, model).legal);
}

TEST(Plan, LongLivedValuesAreSpilledWhereReplanningWouldReachFarBack) {
  // 720 steps whose every result is read again by one final concat (an unrolled recurrence's
  // outputs): L1 fills after about 680 of them. The values evicted then were made more than
  // kMaxReplan ops back, so they are copied to DRAM where L1 runs out instead of re-planning
  // from where they were made; the plan stays legal and has one op per step plus the copies.
  Graph g("main");
  NodeId h = g.add_argument("x", {DType::BF16, Shape{32, 2048}});
  std::vector<NodeId> steps;
  for (int i = 0; i < 720; ++i) steps.push_back(h = g.add_op(OpKind::Relu, {h}));
  Attrs dim;
  dim.set("dim", int64_t{0});
  g.add_result(g.add_op(OpKind::Concat, steps, dim));
  CostModel model(load_device("wormhole_b0"));
  Plan p = plan_graph(g, model);
  size_t spills = 0, relus = 0;
  for (const PlannedOp& op : p.ops) {
    relus += op.kind == "relu";
    spills += op.kind == "to_layout" &&
              p.values[op.operands[0]].placement.buffer == BufferType::L1 &&
              p.values[op.result].placement.buffer == BufferType::DRAM;
  }
  EXPECT_EQ(relus, 720u);
  EXPECT_GT(spills, 0u);
  EXPECT_LT(p.ops.size(), 1500u);
  EXPECT_TRUE(check_legality(p, model).legal);
}

TEST(Plan, LargeMatmulsPlanOnEveryDevice) {
  // Shapes an n150 ran (../shared/data/tt/gemm_flops_n150.csv) whose per-core block is
  // larger than L1 on an 8x8 grid.
  for (const char* device : {"wormhole_b0", "blackhole_p150"}) {
    for (auto [m, k, n] : {std::array<int64_t, 3>{8192, 8192, 8192}, {16384, 4096, 16384}}) {
      Graph g("main");
      NodeId a = g.add_argument("a", {DType::BF16, Shape{m, k}});
      NodeId b = g.add_argument("b", {DType::BF16, Shape{k, n}});
      g.add_result(g.add_op(OpKind::Matmul, {a, b}));
      CostModel model(load_device(device));
      Plan p = plan_graph(g, model);
      EXPECT_TRUE(check_legality(p, model).legal) << device << " " << m;
      for (const PlannedOp& op : p.ops)
        EXPECT_LE(op.l1_bytes_per_core, model.device().usable_l1_bytes()) << op.name;
    }
  }
}

TEST(Plan, SmallMatmulKeepsItsWholeOutputBlock) {
  Graph g("main");
  NodeId a = g.add_argument("a", {DType::BF16, Shape{256, 512}});
  NodeId b = g.add_argument("b", {DType::BF16, Shape{512, 256}});
  g.add_result(g.add_op(OpKind::Matmul, {a, b}));
  Plan p = plan_graph(g, CostModel(load_device("wormhole_b0")));
  for (const PlannedOp& op : p.ops) {
    if (!op.blocking) continue;
    EXPECT_EQ(op.blocking->out_block_h, op.blocking->per_core_m);
    EXPECT_EQ(op.blocking->out_block_w, op.blocking->per_core_n);
  }
}

TEST(Plan, TensorLargerThanDramIsNamed) {
  Graph g("main");
  NodeId b = g.add_argument("b", {DType::F32, Shape{65536, 32}});
  Attrs at;
  at.set("transpose_b", true);
  g.add_result(g.add_op(OpKind::Matmul, {b, b}, at));
  try {
    plan_graph(g, CostModel(load_device("wormhole_b0")));
    FAIL();
  } catch (const Error& e) {
    // 65536 x 65536 f32 elements: 16 GiB, more than the 12 GiB of DRAM.
    EXPECT_THAT(e.what(), HasSubstr("op %1 (matmul): its result tensor<65536x65536xf32> needs "
                                    "17179869184 bytes but device 'wormhole_b0' has "
                                    "12884901888 bytes of DRAM"));
  }
}

// A device allowing fewer circular buffers than any kernel of an op takes: the error names
// the buffers, not the bytes (which fit).
// A layer norm over rows too wide to hold in L1 a row at a time (384 f32 columns on a core with
// 256 KiB) fits only with its operand sharded across columns, beside it: its operand, a device
// tensor in DRAM, is moved there for it, and its result (in DRAM) is written from there.
TEST(Plan, WideRowNormMovesItsOperandWhereItFits) {
  Device d = load_device("blackhole_p150");
  d.grid_full = d.grid_usable = CoreGrid{3, 5};
  d.l1_bytes_per_core = 256 * 1024;
  Graph g("norm");
  NodeId x = g.add_argument("x", {DType::F32, Shape{196, 384}});
  NodeId gamma = g.add_argument("gamma", {DType::F32, Shape{384}});
  NodeId beta = g.add_argument("beta", {DType::F32, Shape{384}});
  g.add_result(g.add_op(OpKind::LayerNorm, {x, gamma, beta}));
  CostOptions options;
  options.arguments_on_device = true;
  CostModel model(d, options);
  Plan p = plan_graph(g, model);
  const PlannedOp& norm = p.ops.back();
  ASSERT_EQ(norm.kind, "layer_norm");
  const Placement& in = p.values[norm.operands[0]].placement;
  EXPECT_EQ(in.buffer, BufferType::L1);
  EXPECT_NE(in.memory, MemoryLayout::Interleaved);
  EXPECT_EQ(p.values[norm.result].placement, dram_tile_placement());
  EXPECT_LE(p.peak_l1_bytes_per_core, d.usable_l1_bytes());
  EXPECT_TRUE(check_legality(p, model).legal);
  // Read from DRAM, no placement of the norm fits.
  std::vector<TensorUse> from_dram;
  for (NodeId a : {x, gamma, beta})
    from_dram.push_back(TensorUse{g.node(a).type, dram_tile_placement()});
  for (const Placement& at :
       candidate_placements(g.node(3).type, d, OpKind::LayerNorm, model.layouts()))
    EXPECT_GT(
        model.op(OpKind::LayerNorm, {}, from_dram, TensorUse{g.node(3).type, at}).l1_bytes_per_core,
        d.usable_l1_bytes())
        << placement_str(at);
}

TEST(Plan, TooFewCircularBuffersIsNamed) {
  Device d = load_device("wormhole_b0");
  d.max_circular_buffers = 1;
  try {
    plan_graph(seed_mlp(), CostModel(d));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("circular buffers but device 'wormhole_b0' allows 1 "
                                    "(max_circular_buffers)"));
  }
}

std::shared_ptr<const LayoutChoice> layouts_from(const std::string& text) {
  auto c = std::make_shared<LayoutChoice>();
  c->rules = rewrites::parse_rule_file(text, "test.rules").layouts;
  return c;
}

TEST(Layouts, VariantsFollowTheRules) {
  Device d = load_device("wormhole_b0");
  TensorType t{DType::BF16, Shape{256, 512}}; // 8x16 tiles
  auto layouts = layouts_from("ops mm = matmul, linear\n"
                              "layout l1: * => tile l1 interleaved\n"
                              "layout h: *, !mm => tile l1 height_sharded\n"
                              "layout w: *, !mm => tile l1 width_sharded\n"
                              "layout b: * => tile l1 block_sharded\n");
  std::vector<Placement> add = candidate_placements(t, d, OpKind::Add, *layouts);
  ASSERT_EQ(add.size(), 5u);
  EXPECT_EQ(add[0], dram_tile_placement());
  EXPECT_EQ(placement_str(add[2]), "tile L1 height_sharded 1x8 shard 32x512");
  EXPECT_EQ(placement_str(add[3]), "tile L1 width_sharded 2x8 shard 256x32");
  EXPECT_EQ(placement_str(add[4]), "tile L1 block_sharded 8x8 shard 32x64");
  std::vector<Placement> mm = candidate_placements(t, d, OpKind::Matmul, *layouts);
  ASSERT_EQ(mm.size(), 3u);
  EXPECT_EQ(mm[2].memory, MemoryLayout::BlockSharded);
  // No rules: DRAM interleaved only.
  EXPECT_EQ(candidate_placements(t, d, OpKind::Add, LayoutChoice{}),
            std::vector<Placement>{dram_tile_placement()});
}

TEST(Layouts, ConditionsFilterVariants) {
  Device d = load_device("wormhole_b0");
  auto layouts = layouts_from("layout b: * => tile l1 block_sharded if tile-aligned, "
                              "min-cores(16)\n");
  // 8x16 tiles: an 8x8 grid; unaligned shapes and small grids are left out.
  EXPECT_EQ(candidate_placements({DType::F32, Shape{256, 512}}, d, OpKind::Add, *layouts).size(),
            2u);
  EXPECT_EQ(candidate_placements({DType::F32, Shape{250, 512}}, d, OpKind::Add, *layouts).size(),
            1u);
  EXPECT_EQ(candidate_placements({DType::F32, Shape{64, 64}}, d, OpKind::Add, *layouts).size(), 1u);
}

TEST(Layouts, GridsAllOffersEveryGridTheShardsDivide) {
  Device d = load_device("wormhole_b0");
  TensorType t{DType::BF16, Shape{128, 96}}; // 4x3 tiles
  auto largest = layouts_from("layout b: * => tile l1 block_sharded\n");
  auto all = layouts_from("layout b: * => tile l1 block_sharded grids all\n");
  auto small = layouts_from("layout b: * => tile l1 block_sharded grids all if max-cores(3)\n");
  std::vector<Placement> one = candidate_placements(t, d, OpKind::Add, *largest);
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(placement_str(one[1]), "tile L1 block_sharded 4x3 shard 32x32");
  // Rows dividing 4 (4, 2, 1) times columns dividing 3 (3, 1), one core excluded: 5 grids.
  std::vector<std::string> grids;
  for (const Placement& p : candidate_placements(t, d, OpKind::Add, *all))
    grids.push_back(placement_str(p));
  EXPECT_EQ(grids, (std::vector<std::string>{"tile DRAM interleaved",
                                             "tile L1 block_sharded 4x3 shard 32x32",
                                             "tile L1 block_sharded 2x3 shard 64x32",
                                             "tile L1 block_sharded 4x1 shard 32x96",
                                             "tile L1 block_sharded 1x3 shard 128x32",
                                             "tile L1 block_sharded 2x1 shard 64x96"}));
  EXPECT_EQ(candidate_placements(t, d, OpKind::Add, *small).size(), 3u); // 1x3, 2x1
  auto heights = layouts_from("layout h: * => tile l1 height_sharded grids all\n");
  // 4 tile rows: 4 or 2 cores.
  EXPECT_EQ(candidate_placements(t, d, OpKind::Add, *heights).size(), 3u);
}

// Height and width sharding use the core count ttnn's sharded ops choose: the most cores whose
// padding is less than one shard, filled row by row (the grid's last row may be short), so a
// ResNet 56x56 image (98 tile rows) spreads over 49 Wormhole cores and 512 tile rows over 128
// of Blackhole's 13x10; fewer cores that divide the tiles follow with `grids all`.
TEST(Layouts, LinearShardsFillRowsAsTtnnDoes) {
  auto heights = layouts_from("layout h: * => tile l1 height_sharded\n");
  auto widths = layouts_from("layout w: * => tile l1 width_sharded grids all\n");
  Device wh = load_device("wormhole_b0"), bh = load_device("blackhole_p150");
  TensorType resnet{DType::BF16, Shape{1, 1, 3136, 64}};
  std::vector<Placement> p = candidate_placements(resnet, wh, OpKind::Add, *heights);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(placement_str(p[1]), "tile L1 height_sharded 7x8 shard 64x64");
  EXPECT_EQ(shard_count(resnet, p[1]), 49);
  TensorType vae{DType::BF16, Shape{1, 1, 16384, 512}};
  p = candidate_placements(vae, bh, OpKind::Add, *heights);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(placement_str(p[1]), "tile L1 height_sharded 10x13 shard 128x512");
  EXPECT_EQ(shard_count(vae, p[1]), 128);
  // 18 tile columns on Wormhole: all 18 cores (two rows and two cores), then 9, 6, 3, 2.
  TensorType wide{DType::BF16, Shape{64, 576}};
  std::vector<std::string> names;
  for (const Placement& q : candidate_placements(wide, wh, OpKind::Add, *widths)) {
    names.push_back(placement_str(q));
    if (q.memory == MemoryLayout::WidthSharded) {
      EXPECT_EQ(shard_count(wide, q) * q.shard_shape[1], 576) << placement_str(q);
    }
  }
  EXPECT_EQ(names, (std::vector<std::string>{"tile DRAM interleaved",
                                             "tile L1 width_sharded 3x8 shard 64x32",
                                             "tile L1 width_sharded 2x8 shard 64x64",
                                             "tile L1 width_sharded 1x6 shard 64x96",
                                             "tile L1 width_sharded 1x3 shard 64x192",
                                             "tile L1 width_sharded 1x2 shard 64x288"}));
}

// A plan whose values shard over part of a grid row is legal, and its shards cover the value.
TEST(Layouts, PartRowShardsPlanLegally) {
  Graph g("rows");
  NodeId a = g.add_argument("a", {DType::BF16, Shape{3136, 64}});
  g.add_result(g.add_op(OpKind::Exp, {g.add_op(OpKind::Relu, {a})}));
  CostOptions options;
  options.layouts = layouts_from("layout h: * => tile l1 height_sharded\n");
  CostModel model(load_device("wormhole_b0"), options);
  Plan p = plan_graph(g, model);
  bool part_row = false;
  for (const PlannedValue& v : p.values)
    part_row |= v.placement.memory == MemoryLayout::HeightSharded &&
                shard_count(p.graph.node(v.node).type, v.placement) < v.placement.grid.cores();
  EXPECT_TRUE(part_row);
  EXPECT_TRUE(check_legality(p, model).legal);
  // Shards that do not cover the value are not.
  for (PlannedValue& v : p.values)
    if (v.placement.memory == MemoryLayout::HeightSharded) v.placement.shard_shape[0] = 32;
  LegalityResult r = check_legality(p, model);
  EXPECT_FALSE(r.legal);
  std::string all;
  for (const Violation& v : r.violations) all += v.name + " ";
  EXPECT_THAT(all, HasSubstr("shard_divides@"));
}

TEST(Layouts, RowMajorVariantsAreForDataMovement) {
  Device d = load_device("wormhole_b0");
  TensorType t{DType::F32, Shape{3, 50, 70}};
  auto layouts = layouts_from("layout rows: * => row_major l1 interleaved\n");
  std::vector<Placement> reshape = candidate_placements(t, d, OpKind::Reshape, *layouts);
  ASSERT_EQ(reshape.size(), 2u);
  EXPECT_EQ(placement_str(reshape[1]), "row_major L1 interleaved");
  // Compute ops produce tiles whatever the rule says.
  EXPECT_EQ(candidate_placements(t, d, OpKind::Exp, *layouts).size(), 1u);
  EXPECT_TRUE(layouts->reads_row_major(OpKind::Permute));
  EXPECT_FALSE(layouts->reads_row_major(OpKind::Add));
  EXPECT_FALSE(LayoutChoice{}.reads_row_major(OpKind::Permute));
  // A row-major copy moves bytes and computes nothing; the tile variant passes the unpacker.
  CostModel model(d);
  Placement rows = reshape[1];
  std::array<TensorUse, 1> in{TensorUse{t, host_placement()}};
  OpEstimate copy = model.op(OpKind::Permute, {}, in, TensorUse{t, rows});
  EXPECT_EQ(copy.cost.compute_us, 0);
  EXPECT_GT(copy.cost.dram_us, 0);
  Placement l1_tile{Layout::Tile, BufferType::L1, MemoryLayout::Interleaved, {}, {0, 0}};
  EXPECT_GT(model.op(OpKind::Permute, {}, in, TensorUse{t, l1_tile}).cost.compute_us, 0);
}

TEST(Layouts, ReadsLinesNameWhereOperandsMustBe) {
  auto layouts = std::make_shared<LayoutChoice>();
  layouts->reads = rewrites::parse_rule_file("reads r: sum, mean => l1 sharded\n", "r.rules").reads;
  ASSERT_NE(layouts->operand_rule(OpKind::Mean), nullptr);
  EXPECT_EQ(layouts->operand_rule(OpKind::Exp), nullptr);
  const rewrites::OperandRule& rule = *layouts->operand_rule(OpKind::Sum);
  EXPECT_TRUE(accepts(
      rule, Placement{Layout::Tile, BufferType::L1, MemoryLayout::WidthSharded, {1, 8}, {32, 32}}));
  EXPECT_FALSE(accepts(rule, dram_tile_placement()));
  EXPECT_FALSE(accepts(
      rule, Placement{Layout::Tile, BufferType::L1, MemoryLayout::Interleaved, {}, {0, 0}}));
  // The shipped layout-choice set carries seed 001's constraint on reductions.
  EXPECT_NE(LayoutChoice::shipped()->operand_rule(OpKind::Max), nullptr);
}

TEST(Layouts, WithoutLayoutRulesTheSeedMlpPlansInDram) {
  CostOptions options;
  options.layouts = std::make_shared<LayoutChoice>();
  CostModel model(load_device("wormhole_b0"), options);
  std::vector<egraph::Rewrite> rules = rewrites::load_rule_sets(rewrites::rule_set_names());
  Plan p =
      optimize_for_device(seed_mlp(), rules, egraph::RunnerConfig(), model, ExtractOptions{}).plan;
  for (const PlannedValue& v : p.values) EXPECT_EQ(v.placement.buffer, BufferType::DRAM);
  EXPECT_TRUE(check_legality(p, model).legal);
  // The shipped rules keep the intermediate in L1, which the model predicts to be faster.
  EXPECT_LT(plan_mlp("wormhole_b0").plan.predicted_total_us, p.predicted_total_us + 1e-9);
}

TEST(Layouts, WidthShardedPlansAreLegal) {
  // A wide elementwise chain: width sharding is a candidate and whatever is chosen is legal.
  Graph g("wide");
  NodeId a = g.add_argument("a", {DType::BF16, Shape{32, 4096}});
  NodeId b = g.add_argument("b", {DType::BF16, Shape{32, 4096}});
  g.add_result(g.add_op(OpKind::Exp, {g.add_op(OpKind::Add, {a, b})}));
  auto layouts = layouts_from("layout w: * => tile l1 width_sharded\n");
  CostOptions options;
  options.layouts = layouts;
  CostModel model(load_device("wormhole_b0"), options);
  Plan p = plan_graph(g, model);
  bool width = false;
  for (const PlannedValue& v : p.values) width |= v.placement.memory == MemoryLayout::WidthSharded;
  EXPECT_TRUE(width);
  EXPECT_TRUE(check_legality(p, model).legal);
}

// A conv2d reads its OIHW weight and its bias as the host stored them: a tile copy would pad
// every 3x3 kernel to a 32x32 tile. Its input is tilized as every other op's.
// An NHWC conv becomes permute -> NCHW conv -> permute for the NCHW-only kernel, with the
// same values on random inputs; an NCHW graph is left as it is.
TEST(Plan, NonNchwConvIsWrappedInPermutes) {
  Graph g("main");
  Builder b(g);
  Value x = b.input("x", {1, 9, 8, 4});
  Value y = b.conv2d(x, b.weight("w", {6, 2, 3, 3}), b.weight("bias", {1, 1, 1, 6}),
                     {.stride = {2, 1}, .padding = {1, 0, 2, 1}, .groups = 2, .dims = ConvDims{}});
  b.output(b.relu(y), "out");
  Graph d = nchw_convs(g);
  std::vector<std::string> kinds;
  for (NodeId id : d.topological_order()) {
    if (d.node(id).kind != OpKind::Argument) kinds.emplace_back(op_name(d.node(id).kind));
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"permute", "conv2d", "permute", "relu"}));
  EXPECT_EQ(d.results()[0].name, "out");
  std::vector<Tensor> args = random_arguments(g, 5);
  std::vector<Tensor> want = evaluate(g, args), got = evaluate(d, args);
  EXPECT_EQ(got[0].shape(), want[0].shape());
  EXPECT_EQ(got[0].data(), want[0].data());
  Graph nchw("main");
  Builder bn(nchw);
  bn.output(bn.conv2d(bn.input("x", {1, 4, 9, 8}), bn.weight("w", {6, 4, 3, 3})));
  EXPECT_EQ(nchw_convs(nchw).num_nodes(), nchw.num_nodes());
}

TEST(Plan, Conv2dWeightStaysRowMajor) {
  Graph g("main");
  NodeId x = g.add_argument("x", {DType::F32, Shape{1, 64, 14, 14}});
  NodeId w = g.add_argument("w", {DType::F32, Shape{64, 64, 3, 3}});
  NodeId b = g.add_argument("b", {DType::F32, Shape{64}});
  Attrs attrs;
  attrs.set("padding", std::vector<int64_t>{1, 1, 1, 1});
  set_conv_dims(attrs, ConvDims{0, 2, 3, 1}); // NCHW
  g.add_result(g.add_op(OpKind::Conv2d, {x, w, b}, attrs));
  CostModel model(load_device("wormhole_b0"));
  Plan p = plan_graph(g, model);
  std::vector<std::string> converted;
  for (const PlannedOp& op : p.ops) {
    if (op.is_to_layout()) converted.push_back(value_name(p.graph, op.node));
    if (op.kind != "conv2d") continue;
    ASSERT_EQ(op.operands.size(), 3u);
    EXPECT_EQ(p.values[op.operands[0]].placement.layout, Layout::Tile);
    EXPECT_EQ(p.values[op.operands[1]].placement, host_placement());
    EXPECT_EQ(p.values[op.operands[2]].placement, host_placement());
  }
  EXPECT_THAT(converted, ::testing::ElementsAre("%x"));
  EXPECT_TRUE(check_legality(p, model).legal);
  EXPECT_TRUE(reads_as_stored(OpKind::Conv2d, 1));
  EXPECT_FALSE(reads_as_stored(OpKind::Conv2d, 0));
  EXPECT_FALSE(reads_as_stored(OpKind::Matmul, 1));
}

TEST(Legality, UnsatCoreNamesViolations) {
  CostModel model(load_device("wormhole_b0"));
  Plan p = plan_mlp("wormhole_b0").plan;
  p.ops[3].l1_bytes_per_core = 2'000'000;
  p.ops[0].circular_buffers = 40;
  LegalityResult r = check_legality(p, model);
  EXPECT_FALSE(r.legal);
  std::vector<std::string> names;
  for (const Violation& v : r.violations) names.push_back(v.name);
  EXPECT_THAT(names, ::testing::Contains(HasSubstr("l1@" + p.ops[3].name)));
  EXPECT_THAT(names, ::testing::Contains(HasSubstr("cbs@" + p.ops[0].name)));
  try {
    require_legal(p, model);
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("40 circular buffers > 32 allowed"));
    EXPECT_THAT(e.what(), HasSubstr("> 1395424 usable per core"));
  }
}

TEST(Legality, ShardConstraints) {
  CostModel model(load_device("wormhole_b0"));
  Plan p = plan_mlp("wormhole_b0").plan;
  Placement& bad = p.values[p.ops[3].result].placement;
  bad = Placement{Layout::Tile, BufferType::L1, MemoryLayout::BlockSharded, {9, 3}, {48, 64}};
  LegalityResult r = check_legality(p, model);
  EXPECT_FALSE(r.legal);
  std::string all;
  for (const Violation& v : r.violations) all += v.name + " ";
  EXPECT_THAT(all, HasSubstr("shard_fits@"));
  EXPECT_THAT(all, HasSubstr("shard_divides@"));
  EXPECT_THAT(all, HasSubstr("tile_aligned@"));
}

TEST(Extract, ExactIsSeededAndReportsGap) {
  DevicePlanResult r = plan_mlp("wormhole_b0", 5.0);
  EXPECT_THAT(r.plan.extraction_method, ::testing::AnyOf("dp", "z3"));
  EXPECT_GE(r.plan.optimality_gap, 0);
  EXPECT_LE(r.plan.optimality_gap, 1e-9); // small enough for Z3 to prove optimal
  EXPECT_LE(r.plan.extraction_cost, plan_mlp("wormhole_b0").plan.extraction_cost + 1e-9);
}

TEST(Report, JsonHasTheIssueFields) {
  DevicePlanResult r = plan_mlp("wormhole_b0");
  nlohmann::json j = nlohmann::json::parse(plan_report_json(r.plan, &r.report));
  EXPECT_EQ(j["device"], "wormhole_b0");
  for (const char* k :
       {"predicted_total_us", "peak_l1_bytes_per_core", "egraph", "extraction", "ops"})
    EXPECT_TRUE(j.contains(k)) << k;
  for (const char* k : {"nodes", "classes", "iterations", "stop_reason"})
    EXPECT_TRUE(j["egraph"].contains(k)) << k;
  for (const char* k : {"method", "cost", "gap"}) EXPECT_TRUE(j["extraction"].contains(k)) << k;
  ASSERT_FALSE(j["ops"].empty());
  for (const auto& op : j["ops"])
    for (const char* k :
         {"name", "kind", "layout", "memory", "cores", "predicted_us", "l1_bytes_per_core"})
      EXPECT_TRUE(op.contains(k)) << k;
  EXPECT_THAT(plan_to_text(r.plan), HasSubstr("linear("));
}

// Without trace, an op reading a sharded operand takes the host's slower sharded dispatch path
// (140 us against 49 on wormhole_b0): the planner keeps an eltwise result its matmul reads
// interleaved, though a sharded one is the cheaper placement for the eltwise itself.
TEST(Plan, WithoutTraceResultsAreNotShardedForTheirUsers) {
  Graph g("main");
  Builder b(g);
  Value x = b.input("x", {1024, 1024});
  b.output(b.matmul(b.relu(b.relu(x)), b.weight("w", {1024, 1024})), "out");
  auto layouts = layouts_from("layout h: * => tile l1 height_sharded\n");
  auto sharded_values = [&](bool trace) {
    CostOptions options;
    options.trace = trace;
    options.layouts = layouts;
    Plan p = plan_graph(g, CostModel(load_device("wormhole_b0"), options));
    int n = 0;
    for (const PlannedOp& op : p.ops)
      n += op.kind == "relu" && p.values[op.result].placement.memory != MemoryLayout::Interleaved;
    return n;
  };
  EXPECT_GT(sharded_values(true), 0);
  EXPECT_EQ(sharded_values(false), 0);
}

} // namespace
} // namespace tilesat::cost
