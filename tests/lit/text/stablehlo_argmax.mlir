// A classifier head as JAX exports it: logits, then jnp.argmax over the classes (a reduce of
// the logits and an iota whose reducer region picks the larger value, the smaller index on
// ties). The region is read by running it on probes; the reduce becomes max and the smallest
// index holding it, and @main plans and runs on the device model against the reference.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK-LABEL: func.func @main
// CHECK: "ttir.matmul"
// CHECK: "ttir.max"
// CHECK: "ttir.where"
// CHECK-NOT: stablehlo
// CHECK: return

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 32: {{.*}} ok{{$}}
// CHECKED-NEXT: result1 32: {{.*}} ok{{$}}
module @jit_classify {
  func.func public @main(%x: tensor<32x64xf32>, %w: tensor<64x16xf32>) -> (tensor<32xi32>, tensor<32xf32>) {
    %logits = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<32x64xf32>, tensor<64x16xf32>) -> tensor<32x16xf32>
    %0 = stablehlo.iota dim = 1 : tensor<32x16xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%logits init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<32x16xf32>, tensor<32x16xi32>, tensor<f32>, tensor<i32>) -> (tensor<32xf32>, tensor<32xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare  GT, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1, %1#0 : tensor<32xi32>, tensor<32xf32>
  }
}
