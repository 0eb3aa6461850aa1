// lax.dynamic_slice and lax.dynamic_update_slice with start indices JAX traced but that fold
// to constants (a shift of 32 rows): a slice, and the update's surroundings concatenated
// around it; @main plans and runs on the device model against the reference.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK-LABEL: func.func @main
// CHECK: %[[S:[0-9]+]] = "ttir.slice"(%arg0) <{begins = [32 : i32, 0 : i32], ends = [64 : i32, 64 : i32]
// CHECK: %[[MM:[0-9]+]] = "ttir.matmul"(%[[S]], %arg1)
// CHECK: "ttir.concat"({{%[0-9]+}}, %[[MM]]) <{dim = 0 : si32}>
// CHECK-NOT: dynamic
// CHECK: return

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 64x32: {{.*}} ok{{$}}
module @jit_shifted {
  func.func public @main(%x: tensor<64x64xf32>, %w: tensor<64x32xf32>) -> tensor<64x32xf32> {
    %c0 = stablehlo.constant dense<0> : tensor<i32>
    %shift = stablehlo.constant dense<32> : tensor<i32>
    %0 = stablehlo.dynamic_slice %x, %shift, %c0, sizes = [32, 64] : (tensor<64x64xf32>, tensor<i32>, tensor<i32>) -> tensor<32x64xf32>
    %1 = stablehlo.dot_general %0, %w, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<32x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64x32xf32>
    %3 = stablehlo.dynamic_update_slice %2, %1, %shift, %c0 : (tensor<64x32xf32>, tensor<32x32xf32>, tensor<i32>, tensor<i32>) -> tensor<64x32xf32>
    return %3 : tensor<64x32xf32>
  }
}
