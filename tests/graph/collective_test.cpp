// Tests of ops/collective.cpp: the types and attribute errors of the multi-chip ops, the
// builder's methods for them, and their plain-interpreter meaning (the identity for a group
// of one chip, else an error naming the op).
#include "tilesat/graph/builder.h"
#include "tilesat/graph/interpreter.h"

#include <gtest/gtest.h>

namespace tilesat {
namespace {

using IntList = std::vector<int64_t>;

TensorType f32(Shape s) {
  return TensorType{DType::F32, std::move(s)};
}

// The error message building `body` over one argument of type `x` raises, or "no error".
std::string build_error(TensorType x, const std::function<void(Builder&, Value)>& body) {
  Graph g;
  Builder b(g);
  try {
    body(b, b.input("x", x.shape, x.dtype));
  } catch (const Error& e) {
    return e.diagnostic().message;
  }
  return "no error";
}

TEST(Collectives, Types) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {16, 64});
  Value rows =
      b.mesh_shard(x, {.type = ShardType::Devices, .shard_shape = {8, 1}, .shard_dims = {-1, 0}});
  EXPECT_EQ(b.type(rows), f32({2, 64}));
  EXPECT_EQ(b.type(b.mesh_shard(x)), f32({16, 64}));
  Value full = b.mesh_shard(rows, {.direction = ShardDirection::ShardToFull,
                                   .type = ShardType::Devices,
                                   .shard_shape = {8, 1},
                                   .shard_dims = {-1, 0}});
  EXPECT_EQ(b.type(full), f32({16, 64}));
  EXPECT_EQ(b.type(b.all_gather(rows, 0, 1, 8)), f32({16, 64}));
  EXPECT_EQ(b.type(b.all_gather(rows, -1, 0, 2)), f32({2, 128}));
  EXPECT_EQ(b.type(b.reduce_scatter(x, 1, 1, 4)), f32({16, 16}));
  EXPECT_EQ(b.type(b.all_reduce(x, 0)), f32({16, 64}));
  EXPECT_TRUE(op_info(OpKind::AllReduce).has_trait(OpTrait::MultiChip));
  EXPECT_TRUE(op_info(OpKind::MeshShard).has_trait(OpTrait::MultiChip));
  EXPECT_FALSE(op_info(OpKind::Add).has_trait(OpTrait::MultiChip));
}

TEST(Collectives, BuilderWritesTtMlirAttributes) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {8, 4});
  const Attrs& a = g.node(b.reduce_scatter(x, 0, 1, 2).id).attrs;
  EXPECT_EQ(a.get<std::string>("reduce_type"), "sum");
  EXPECT_EQ(a.get<int64_t>("scatter_dim"), 0);
  EXPECT_EQ(a.get<int64_t>("cluster_axis"), 1);
  EXPECT_EQ(a.get<int64_t>("cluster_size"), 2);
  const Attrs& s = g.node(b.mesh_shard(x).id).attrs;
  EXPECT_EQ(s.get<std::string>("shard_type"), "replicate");
  EXPECT_EQ(s.get<std::string>("shard_direction"), "full_to_shard");
  EXPECT_EQ(s.get<IntList>("shard_shape"), IntList{1});
  EXPECT_EQ(s.get<IntList>("shard_dims"), IntList{-1});
}

TEST(Collectives, AttributeErrors) {
  auto shard = [](MeshShardOptions o) { return [o](Builder& b, Value x) { b.mesh_shard(x, o); }; };
  EXPECT_EQ(build_error(
                f32({6, 4}),
                shard({.type = ShardType::Devices, .shard_shape = {4, 1}, .shard_dims = {-1, 0}})),
            "'ttir.mesh_shard' %1: expected dim 0 (extent 6) to split into 4 equal shards");
  EXPECT_EQ(
      build_error(f32({8, 4}),
                  shard({.type = ShardType::Devices, .shard_shape = {2, 1}, .shard_dims = {0}})),
      "'ttir.mesh_shard' %1: expected shard_dims of 2 entries (one per mesh axis), got [0]");
  EXPECT_EQ(build_error(
                f32({8, 4}),
                shard({.type = ShardType::Devices, .shard_shape = {2, 2}, .shard_dims = {-1, 0}})),
            "'ttir.mesh_shard' %1: expected shard_shape[1] = 1 (dim 1 is in no shard_dims "
            "entry), got [2, 2]");
  EXPECT_EQ(
      build_error(f32({8, 4}),
                  shard({.type = ShardType::Devices, .shard_shape = {2, 2}, .shard_dims = {1, 1}})),
      "'ttir.mesh_shard' %1: expected distinct shard_dims, got [1, 1]");
  EXPECT_EQ(build_error(f32({8, 4}), shard({.shard_shape = {2}})),
            "'ttir.mesh_shard' %1: expected shard_shape of 1s (replicate), got [2]");
  EXPECT_EQ(
      build_error(f32({8, 4}),
                  shard({.type = ShardType::Devices, .shard_shape = {2}, .shard_dims = {-1, 0}})),
      "'ttir.mesh_shard' %1: expected shard_shape of 2 entries (the tensor rank), got [2]");
  EXPECT_EQ(build_error(f32({8, 4}), [](Builder& b, Value x) { b.all_gather(x, 2, 0, 2); }),
            "'ttir.all_gather' %1: expected all_gather_dim in [-2, 2), got 2");
  EXPECT_EQ(build_error(f32({8, 4}), [](Builder& b, Value x) { b.all_gather(x, 0, 0, 0); }),
            "'ttir.all_gather' %1: expected cluster_size >= 1, got 0");
  EXPECT_EQ(build_error(f32({8, 4}), [](Builder& b, Value x) { b.reduce_scatter(x, 1, 1, 3); }),
            "'ttir.reduce_scatter' %1: expected scatter_dim 1 (extent 4) to split into 3 equal "
            "pieces (the cluster_size)");
  EXPECT_EQ(build_error(f32({8, 4}), [](Builder& b, Value x) { b.all_reduce(x, -1); }),
            "'ttir.all_reduce' %1: expected cluster_axis 0 or 1 (a mesh axis), got -1");
  EXPECT_EQ(build_error(f32({8, 4}),
                        [](Builder& b, Value x) {
                          Attrs a;
                          a.set("cluster_axis", int64_t{0});
                          a.set("reduce_type", std::string("max"));
                          b.op(OpKind::AllReduce, {x}, a);
                        }),
            "'ttir.all_reduce' %1: expected reduce_type sum (the only one supported), got max");
  EXPECT_EQ(build_error(f32({8, 4}),
                        [](Builder& b, Value x) {
                          Attrs a;
                          a.set("shard_type", std::string("maximal"));
                          a.set("shard_direction", std::string("full_to_shard"));
                          a.set("shard_shape", IntList{1});
                          a.set("shard_dims", IntList{-1});
                          b.op(OpKind::MeshShard, {x}, a);
                        }),
            "'ttir.mesh_shard' %1: expected shard_type replicate or devices, got maximal");
}

TEST(Collectives, PlainInterpreterOnlyForOneChip) {
  Graph g;
  Builder b(g);
  Value x = b.input("x", {2, 2});
  Value y = b.all_gather(b.mesh_shard(x), 0, 1, 1);
  b.output(b.reduce_scatter(y, 1, 0, 1));
  Tensor in(f32({2, 2}), {1, 2, 3, 4});
  std::vector<Tensor> out = evaluate(g, std::vector<Tensor>{in});
  EXPECT_EQ(out.at(0).data(), in.data());

  Graph g2;
  Builder b2(g2);
  b2.output(b2.all_gather(b2.input("x", {2, 2}), 0, 1, 8));
  try {
    evaluate(g2, std::vector<Tensor>{in});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostic().message,
              "'ttir.all_gather' combines the values of several chips; evaluate a mesh program "
              "with interpret_mesh (or tilesat check --device <mesh>)");
  }
}

} // namespace
} // namespace tilesat
