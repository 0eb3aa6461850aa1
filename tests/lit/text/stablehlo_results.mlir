// A JAX export of a sharded, rematerialised MLP layer: the sharding annotations
// (custom_call @Sharding) and the checkpoint's optimization_barrier add no ops, a private
// function returns two values (`%2:2 = call`, used as `%2#0`, `%2#1`), and @main plans and
// runs on the device model with both results checked against the reference.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK-LABEL: func.func @main
// CHECK-NOT: custom_call
// CHECK-NOT: optimization_barrier
// CHECK: %[[MM:[0-9]+]] = "ttir.matmul"(%arg0, %arg1)
// CHECK: "ttir.maximum"(%[[MM]],
// CHECK-NOT: call
// CHECK: return

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 64x128: {{.*}} ok{{$}}
// CHECKED-NEXT: result1 64x128: {{.*}} ok{{$}}
module @jit_layer attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%x: tensor<64x256xf32> {mhlo.sharding = "{replicated}"}, %w: tensor<256x128xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<64x128xf32> {jax.result_info = "[0]"}, tensor<64x128xf32> {jax.result_info = "[1]"}) {
    %0 = stablehlo.custom_call @Sharding(%x) {backend_config = "", mhlo.sharding = "{replicated}"} : (tensor<64x256xf32>) -> tensor<64x256xf32>
    %1:2 = stablehlo.optimization_barrier %0, %w : tensor<64x256xf32>, tensor<256x128xf32>
    %2:2 = call @layer(%1#0, %1#1) : (tensor<64x256xf32>, tensor<256x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>)
    return %2#1, %2#0 : tensor<64x128xf32>, tensor<64x128xf32>
  }
  func.func private @layer(%arg0: tensor<64x256xf32>, %arg1: tensor<256x128xf32>) -> (tensor<64x128xf32>, tensor<64x128xf32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<64x256xf32>, tensor<256x128xf32>) -> tensor<64x128xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x128xf32>
    %2 = stablehlo.maximum %0, %1 : tensor<64x128xf32>
    return %0, %2 : tensor<64x128xf32>, tensor<64x128xf32>
  }
}
