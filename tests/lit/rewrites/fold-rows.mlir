// A sequence-first [S, B, E] residual block at batch 8 (each 8-row batch pads to a 32-row tile):
// the linear folds its batch into rows (fold-batch-rows), and the bias add, the residual add
// and the layer norm after it run on the [S*8, E] rows (fold-rows), the residual input
// reshaped like the product; one reshape back to [S, 8, E] remains (before the last product,
// where the cost model finds it as cheap as after).
// RUN: %tilesat opt %s --device wormhole_b0 | FileCheck %s
// CHECK: func.func @main
// CHECK: "ttir.reshape"(%arg0) <{shape = [1024 : i32, 256 : i32]}>
// CHECK: "ttir.layer_norm"({{.*}}) <{axis = 1 : si32}> : (tensor<1024x256xf32>
// CHECK-NEXT: "ttir.reshape"{{.*}}-> tensor<128x8x256xf32>
// CHECK-NOT: ttir.reshape
// CHECK: return
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=VALUES
// VALUES: result0 128x8x256: {{.*}} ok
func.func @main(%x: tensor<128x8x256xf32>, %w: tensor<256x256xf32>, %b: tensor<256xf32>, %g: tensor<256xf32>, %beta: tensor<256xf32>) -> tensor<128x8x256xf32> {
  %0 = "ttir.matmul"(%x, %w) : (tensor<128x8x256xf32>, tensor<256x256xf32>) -> tensor<128x8x256xf32>
  %1 = "ttir.add"(%b, %0) : (tensor<256xf32>, tensor<128x8x256xf32>) -> tensor<128x8x256xf32>
  %2 = "ttir.add"(%x, %1) : (tensor<128x8x256xf32>, tensor<128x8x256xf32>) -> tensor<128x8x256xf32>
  %3 = "ttir.layer_norm"(%2, %g, %beta) <{axis = 2 : si32, epsilon = 1.0e-05 : f32}> : (tensor<128x8x256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<128x8x256xf32>
  %4 = "ttir.matmul"(%3, %w) : (tensor<128x8x256xf32>, tensor<256x256xf32>) -> tensor<128x8x256xf32>
  return %4 : tensor<128x8x256xf32>
}
