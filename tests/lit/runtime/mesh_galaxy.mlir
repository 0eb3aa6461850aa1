// The T3000 test's graph on a Galaxy (8x4 chips): the batch split over the 8 chips of each
// column, Megatron over the 4 chips of each row; 32 chips in 32 threads, checked against
// interpret_mesh, also computing in bf16.
// RUN: %tilesat check %s --device galaxy | FileCheck %s
// CHECK: check @main on galaxy (32 chips, compared with interpret_mesh): 8 ops -> {{[0-9]+}} device ops
// CHECK-NEXT: result0 64x32: max_abs_err={{.*}} ok
// RUN: %tilesat check %s --device galaxy --compute-dtype bf16 | FileCheck %s --check-prefix=BF16
// BF16: result0 64x32: max_abs_err={{.*}} (bf16) ok
module @mlp_8x4 attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 8x4>]>} {
  func.func @main(%x: tensor<64x32xf32>, %w1: tensor<32x128xf32>, %w2: tensor<128x32xf32>) -> tensor<64x32xf32> {
    %0 = "ttir.mesh_shard"(%x) <{shard_dims = array<i64: 0, -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 8, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<64x32xf32>) -> tensor<8x32xf32>
    %1 = "ttir.mesh_shard"(%w1) <{shard_dims = array<i64: -1, 1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1, 4>, shard_type = #ttcore.shard_type<devices>}> : (tensor<32x128xf32>) -> tensor<32x32xf32>
    %2 = "ttir.mesh_shard"(%w2) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 4, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<128x32xf32>) -> tensor<32x32xf32>
    %3 = "ttir.matmul"(%0, %1) : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
    %4 = "ttir.relu"(%3) : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %5 = "ttir.matmul"(%4, %2) : (tensor<8x32xf32>, tensor<32x32xf32>) -> tensor<8x32xf32>
    %6 = "ttir.all_reduce"(%5) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>}> : (tensor<8x32xf32>) -> tensor<8x32xf32>
    %7 = "ttir.mesh_shard"(%6) <{shard_dims = array<i64: 0, -1>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 8, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<8x32xf32>) -> tensor<64x32xf32>
    return %7 : tensor<64x32xf32>
  }
}
