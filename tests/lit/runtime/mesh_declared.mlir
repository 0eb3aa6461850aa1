// A per-chip graph whose module declares its mesh the way tt-mlir does (`ttcore.meshes`, 1x8):
// the batch split into 8 pieces along mesh axis 1. Without --device tilesat picks the shipped
// device with that mesh (a T3000, seen as its 8-chip ring); with --device t3k the 2x4 device is
// seen as 1x8. A device the declared mesh does not fit is an error naming the attribute.
// RUN: %tilesat check %s | FileCheck %s
// RUN: %tilesat check %s --device t3k | FileCheck %s
// CHECK: check @main on t3k (8 chips, compared with interpret_mesh): 3 ops -> 3 device ops
// CHECK-NEXT: result0 64x128: max_abs_err=0 {{.*}} ok

// RUN: %tilesat opt %s --device t3k --emit program | FileCheck %s --check-prefix=PROG
// PROG: program @main v1.6 for t3k ({{.*}}), on every chip of a 1x8 mesh

// RUN: not %tilesat check %s --device n300 2>&1 | FileCheck %s --check-prefix=N300
// N300: error: the module's mesh 1x8 (ttcore.meshes) does not fit device 'n300': its mesh is 1x2

// RUN: sed 's/1x8>/8x1>/' %s > %t.8x1.mlir
// RUN: not %tilesat check %t.8x1.mlir 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: the input declares mesh 8x1 (ttcore.meshes) and no shipped mesh device has it ({{.*}}t3k 2x4{{.*}}); give --device

// RUN: sed 's/= 1x8>/= 1y8>/' %s > %t.bad.mlir
// RUN: not %tilesat opt %t.bad.mlir --device t3k 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: module @declared: attribute ttcore.meshes: expected 'x' at offset 27 of '#ttcore.meshes<[<"mesh" = 1y8>]>'

module @declared attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 1x8>]>} {
  func.func @main(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
    %0 = "ttir.mesh_shard"(%x) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<full_to_shard>, shard_shape = array<i64: 8, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<64x128xf32>) -> tensor<8x128xf32>
    %1 = "ttir.relu"(%0) : (tensor<8x128xf32>) -> tensor<8x128xf32>
    %2 = "ttir.mesh_shard"(%1) <{shard_dims = array<i64: -1, 0>, shard_direction = #ttcore.shard_direction<shard_to_full>, shard_shape = array<i64: 8, 1>, shard_type = #ttcore.shard_type<devices>}> : (tensor<8x128xf32>) -> tensor<64x128xf32>
    return %2 : tensor<64x128xf32>
  }
}
