// JAX exports jax.nn functions as private functions called from @main; each call is inlined
// (the callee may be defined after the caller), and @main plans and runs on the device model.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK-LABEL: func.func @main
// CHECK: %[[MM:[0-9]+]] = "ttir.matmul"
// CHECK: "ttir.maximum"(%[[MM]],
// CHECK-NOT: call
// CHECK: return
// CHECK-LABEL: func.func @relu

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 32x32: {{.*}} ok{{$}}
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x64xf32> {mhlo.layout_mode = "default"}, %arg1: tensor<64x32xf32>) -> (tensor<32x32xf32> {jax.result_info = ""}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<32x32xf32>
    %1 = call @relu(%0) : (tensor<32x32xf32>) -> tensor<32x32xf32>
    return %1 : tensor<32x32xf32>
  }
  func.func private @relu(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x32xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<32x32xf32>
    return %1 : tensor<32x32xf32>
  }
}
