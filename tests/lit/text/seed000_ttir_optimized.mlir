// Origin: seed 000 (End-to-End Compilation Example), §3.4 TTIR (Optimized).
// The listing below the RUN lines is copied verbatim from the seed; the CHECK lines follow it.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat print %s > %t1 && %tilesat print - < %t1 > %t2 && diff %t1 %t2

// TTIR (after optimization passes)
#any_device = #tt.operand_constraint<any_device>
module @simple_mlp attributes {tt.system_desc = #tt.system_desc<...>} {

  func.func @main(
    %arg0: tensor<32x128xf32>,
    %arg1: tensor<256x128xf32>,
    %arg2: tensor<256xf32>,
    %arg3: tensor<10x256xf32>,
    %arg4: tensor<10xf32>
  ) -> tensor<32x10xf32> {

    // Layer 1: Fused MatMul + Bias + ReLU
    // Note: transpose folded into matmul
    %0 = "ttir.matmul"(%arg0, %arg1) {
           transpose_a = false,
           transpose_b = true,           // Weight transpose folded
           operand_constraints = [#any_device, #any_device, #any_device]
         } : (tensor<32x128xf32>, tensor<256x128xf32>) -> tensor<32x256xf32>

    // Fused Add + ReLU
    %1 = "ttir.add_relu"(%0, %arg2) {    // Fused operation!
           operand_constraints = [#any_device, #any_device, #any_device],
           broadcast_dims = [1 : i32]
         } : (tensor<32x256xf32>, tensor<256xf32>) -> tensor<32x256xf32>

    // Layer 2: Fused MatMul + Bias
    %2 = "ttir.matmul"(%1, %arg3) {
           transpose_a = false,
           transpose_b = true,           // Weight transpose folded
           operand_constraints = [#any_device, #any_device, #any_device]
         } : (tensor<32x256xf32>, tensor<10x256xf32>) -> tensor<32x10xf32>

    // Final bias addition
    %3 = "ttir.add"(%2, %arg4) {
           operand_constraints = [#any_device, #any_device, #any_device],
           broadcast_dims = [1 : i32]
         } : (tensor<32x10xf32>, tensor<10xf32>) -> tensor<32x10xf32>

    return %3 : tensor<32x10xf32>
  }
}

// The canonical print: every op in generic form, attributes sorted by name.
// CHECK: #any_device = #tt.operand_constraint<any_device>
// CHECK: module @simple_mlp attributes {tt.system_desc = #tt.system_desc<...>} {
// CHECK-LABEL: func.func @main(%arg0: tensor<32x128xf32>, %arg1: tensor<256x128xf32>, %arg2: tensor<256xf32>, %arg3: tensor<10x256xf32>, %arg4: tensor<10xf32>) -> tensor<32x10xf32> {
// CHECK-NEXT: %0 = "ttir.matmul"(%arg0, %arg1) <{operand_constraints = [#any_device, #any_device, #any_device], transpose_a = false, transpose_b = true}> : (tensor<32x128xf32>, tensor<256x128xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %1 = "ttir.add_relu"(%0, %arg2) <{broadcast_dims = [1 : i32], operand_constraints = [#any_device, #any_device, #any_device]}> : (tensor<32x256xf32>, tensor<256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %2 = "ttir.matmul"(%1, %arg3) <{operand_constraints = [#any_device, #any_device, #any_device], transpose_a = false, transpose_b = true}> : (tensor<32x256xf32>, tensor<10x256xf32>) -> tensor<32x10xf32>
// CHECK-NEXT: %3 = "ttir.add"(%2, %arg4) <{broadcast_dims = [1 : i32], operand_constraints = [#any_device, #any_device, #any_device]}> : (tensor<32x10xf32>, tensor<10xf32>) -> tensor<32x10xf32>
// CHECK-NEXT: return %3 : tensor<32x10xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
