// A token embedding as JAX lowers jnp.take(table, ids, axis=0) (flax nn.Embed), then a
// projection: the gather becomes take(table, ids clamped to the table, 0); it plans and runs on
// the device model with the reference interpreter's results.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK: %[[IDS:[0-9]+]] = "ttir.reshape"(%arg1) <{shape = [1 : i32, 32 : i32]}> : (tensor<1x32x1xi32>) -> tensor<1x32xi32>
// CHECK: "ttir.maximum"(%[[IDS]],
// CHECK: %[[CLAMPED:[0-9]+]] = "ttir.minimum"
// CHECK: "ttir.take"(%arg0, %[[CLAMPED]]) : (tensor<1000x64xf32>, tensor<1x32xi32>) -> tensor<1x32x64xf32>
// CHECK: "ttir.matmul"

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 1x32x128: {{.*}} ok{{$}}
module @jit_embed attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1000x64xf32>, %arg1: tensor<1x32x1xi32>, %arg2: tensor<64x128xf32>) -> (tensor<1x32x128xf32> {jax.result_info = ""}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 64>} : (tensor<1000x64xf32>, tensor<1x32x1xi32>) -> tensor<1x32x64xf32>
    %1 = stablehlo.dot_general %0, %arg2, contracting_dims = [2] x [0] : (tensor<1x32x64xf32>, tensor<64x128xf32>) -> tensor<1x32x128xf32>
    return %1 : tensor<1x32x128xf32>
  }
}
