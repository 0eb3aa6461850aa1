// tt-mlir's multi-chip ops (TTIR as tt-mlir's StableHLO conversion writes it, enum attributes
// with the #ttcore. or older #tt. prefix, cluster_axis as ui32) read into tilesat's ops: the
// group size of all_gather and reduce_scatter comes from their result types and is not
// printed; printing gives tt-mlir's spelling back, and the text round-trips.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat print %s > %t1 && %tilesat print - < %t1 > %t2 && diff %t1 %t2

// CHECK-LABEL: module @megatron attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x8>]>}
// CHECK: "ttir.mesh_shard"(%arg0) <{shard_dims = array<i64: -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1>, shard_type = #ttcore.shard_type<replicate>}> : (tensor<32x64xf32>) -> tensor<32x64xf32>
// CHECK: "ttir.mesh_shard"(%arg1) <{shard_dims = array<i64: -1, 1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1, 8>, shard_type = #ttcore.shard_type<devices>}> : (tensor<64x256xf32>) -> tensor<64x32xf32>
// CHECK: "ttir.all_reduce"(%5) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>}> : (tensor<32x64xf32>) -> tensor<32x64xf32>
// CHECK: "ttir.mesh_shard"(%6) <{shard_dims = array<i64: -1>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 1>, shard_type = #ttcore.shard_type<replicate>}>
module @megatron attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x8>]>} {
  func.func @main(%arg0: tensor<32x64xf32>, %arg1: tensor<64x256xf32>, %arg2: tensor<256x64xf32>) -> tensor<32x64xf32> {
    %0 = "ttir.mesh_shard"(%arg0) <{shard_dims = array<i64: -1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1>, shard_type = #ttcore.shard_type<replicate>}> : (tensor<32x64xf32>) -> tensor<32x64xf32>
    %1 = "ttir.mesh_shard"(%arg1) <{shard_dims = array<i64: -1, 1>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 1, 8>, shard_type = #ttcore.shard_type<devices>}> : (tensor<64x256xf32>) -> tensor<64x32xf32>
    %2 = "ttir.mesh_shard"(%arg2) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 8, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<256x64xf32>) -> tensor<32x64xf32>
    %3 = "ttir.matmul"(%0, %1) : (tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<32x32xf32>
    %4 = "ttir.relu"(%3) : (tensor<32x32xf32>) -> tensor<32x32xf32>
    %5 = "ttir.matmul"(%4, %2) : (tensor<32x32xf32>, tensor<32x64xf32>) -> tensor<32x64xf32>
    %6 = "ttir.all_reduce"(%5) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>}> : (tensor<32x64xf32>) -> tensor<32x64xf32>
    %7 = "ttir.mesh_shard"(%6) <{shard_dims = array<i64: -1>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 1>, shard_type = #ttcore.shard_type<replicate>}> : (tensor<32x64xf32>) -> tensor<32x64xf32>
    return %7 : tensor<32x64xf32>
  }
}

// CHECK-LABEL: module @gather_scatter
// CHECK: "ttir.all_gather"(%0) <{all_gather_dim = 1 : si32, cluster_axis = 0 : ui32}> : (tensor<8x16xf32>) -> tensor<8x32xf32>
// CHECK: "ttir.reduce_scatter"(%1) <{cluster_axis = 1 : ui32, reduce_type = #ttcore.reduce_type<sum>, scatter_dim = 0 : si32}> : (tensor<8x32xf32>) -> tensor<2x32xf32>
module @gather_scatter attributes {tt.meshes = #tt.meshes<[<"mesh" = 2x4>]>} {
  func.func @main(%arg0: tensor<16x64xf32>) -> tensor<4x128xf32> {
    %0 = "ttir.mesh_shard"(%arg0) <{shard_dims = array<i64: 0, 1>, shard_direction = #tt.shard_direction<full_to_shard>, shard_shape = array<i64: 2, 4>, shard_type = #tt.shard_type<devices>}> : (tensor<16x64xf32>) -> tensor<8x16xf32>
    %1 = "ttir.all_gather"(%0) <{all_gather_dim = 1 : si32, cluster_axis = 0 : ui32}> : (tensor<8x16xf32>) -> tensor<8x32xf32>
    %2 = "ttir.reduce_scatter"(%1) <{reduce_type = #tt.reduce_type<sum>, scatter_dim = 0 : si32, cluster_axis = 1 : ui32}> : (tensor<8x32xf32>) -> tensor<2x32xf32>
    %3 = "ttir.mesh_shard"(%2) <{shard_dims = array<i64: 0, 1>, shard_direction = #tt.shard_direction<shard_to_full>, shard_shape = array<i64: 2, 4>, shard_type = #tt.shard_type<devices>}> : (tensor<2x32xf32>) -> tensor<4x128xf32>
    return %3 : tensor<4x128xf32>
  }
}
