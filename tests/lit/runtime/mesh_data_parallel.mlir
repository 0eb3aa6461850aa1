// A data-parallel per-chip graph: the batch split over the chips along mesh axis 1, the
// weights replicated on every chip, no collective; checked on an n300 (1x2) against
// interpret_mesh. The same file planned for one chip is refused: its shards do not fit.
// RUN: %tilesat check %s --device n300 | FileCheck %s
// CHECK: check @main on n300 (2 chips, compared with interpret_mesh): 7 ops -> {{[0-9]+}} device ops
// CHECK-NEXT: result0 64x16: max_abs_err={{.*}} ok
// RUN: not %tilesat opt %s --device wormhole_b0 --emit plan 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: tilesat: error: 'mesh_shard' on device 'wormhole_b0': expected shard_shape[0] = 1 (the chips along mesh axis 1 of a 1x1 mesh), got 2
func.func @main(%x: tensor<64x32xf32>, %w1: tensor<32x64xf32>, %w2: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %xs = "ttir.mesh_shard"(%x) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 2, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<64x32xf32>) -> tensor<32x32xf32>
  %w1r = "ttir.mesh_shard"(%w1) <{shard_dims = array<i64: -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1>, shard_type = #ttcore.shard_type<replicate>}> : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %w2r = "ttir.mesh_shard"(%w2) <{shard_dims = array<i64: -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1>, shard_type = #ttcore.shard_type<replicate>}> : (tensor<64x16xf32>) -> tensor<64x16xf32>
  %0 = "ttir.matmul"(%xs, %w1r) : (tensor<32x32xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
  %1 = "ttir.relu"(%0) : (tensor<32x64xf32>) -> tensor<32x64xf32>
  %2 = "ttir.matmul"(%1, %w2r) : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
  %y = "ttir.mesh_shard"(%2) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 2, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<32x16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}
