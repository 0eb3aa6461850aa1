// A scan over stacked layers as JAX's lax.scan / nn.scan exports it: a stablehlo.while whose
// counter starts and ends at constants. The loop is unrolled (the condition evaluated before
// each trip, the body read once per trip), each trip's dynamic_slice of the stacked weights
// folds to a slice at its layer, and @main plans and runs on the device model.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK-LABEL: func.func @main
// CHECK: "ttir.slice"(%arg0) <{begins = [0 : i32, 0 : i32, 0 : i32], ends = [1 : i32, 64 : i32, 64 : i32]
// CHECK: "ttir.matmul"
// CHECK: "ttir.maximum"
// CHECK: "ttir.slice"(%arg0) <{begins = [1 : i32, 0 : i32, 0 : i32], ends = [2 : i32, 64 : i32, 64 : i32]
// CHECK: "ttir.matmul"
// CHECK: "ttir.slice"(%arg0) <{begins = [2 : i32, 0 : i32, 0 : i32], ends = [3 : i32, 64 : i32, 64 : i32]
// CHECK: "ttir.matmul"
// CHECK-NOT: while
// CHECK: return

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 32x64: {{.*}} ok{{$}}
module @jit_scan {
  func.func public @main(%w: tensor<3x64x64xf32>, %x: tensor<32x64xf32>) -> tensor<32x64xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %c, %iterArg_0 = %x, %iterArg_1 = %w) : tensor<i32>, tensor<32x64xf32>, tensor<3x64x64xf32>
     cond {
      %c_2 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare  LT, %iterArg, %c_2,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<0> : tensor<i32>
      %c_3 = stablehlo.constant dense<3> : tensor<i32>
      %1 = stablehlo.compare  LT, %iterArg, %c_2,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %2 = stablehlo.add %iterArg, %c_3 : tensor<i32>
      %3 = stablehlo.select %1, %2, %iterArg : tensor<i1>, tensor<i32>
      %4 = stablehlo.dynamic_slice %iterArg_1, %3, %c_2, %c_2, sizes = [1, 64, 64] : (tensor<3x64x64xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x64x64xf32>
      %5 = stablehlo.reshape %4 : (tensor<1x64x64xf32>) -> tensor<64x64xf32>
      %6 = stablehlo.dot_general %iterArg_0, %5, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x64xf32>
      %8 = stablehlo.maximum %6, %7 : tensor<32x64xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %9 = stablehlo.add %iterArg, %c_4 : tensor<i32>
      stablehlo.return %9, %8, %iterArg_1 : tensor<i32>, tensor<32x64xf32>, tensor<3x64x64xf32>
    }
    return %0#1 : tensor<32x64xf32>
  }
}
