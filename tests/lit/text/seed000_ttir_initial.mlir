// Origin: seed 000 (End-to-End Compilation Example), §3.3 TTIR (Initial).
// The listing below the RUN lines is copied verbatim from the seed; the CHECK lines follow it.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat print %s > %t1 && %tilesat print - < %t1 > %t2 && diff %t1 %t2

// TTIR (initial lowering)
#any_device = #tt.operand_constraint<any_device>
module @simple_mlp attributes {tt.system_desc = #tt.system_desc<...>} {

  func.func @main(
    %arg0: tensor<32x128xf32>,           // input
    %arg1: tensor<256x128xf32>,          // fc1.weight
    %arg2: tensor<256xf32>,              // fc1.bias
    %arg3: tensor<10x256xf32>,           // fc2.weight
    %arg4: tensor<10xf32>                // fc2.bias
  ) -> tensor<32x10xf32> {

    // Layer 1: MatMul + Bias + ReLU
    %0 = "ttir.transpose"(%arg1) {dim0 = 1 : si32, dim1 = 0 : si32} :
         (tensor<256x128xf32>) -> tensor<128x256xf32>

    %1 = "ttir.matmul"(%arg0, %0) {
           operand_constraints = [#any_device, #any_device, #any_device]
         } : (tensor<32x128xf32>, tensor<128x256xf32>) -> tensor<32x256xf32>

    %2 = "ttir.broadcast"(%arg2) {
           dims = [1 : i32],
           shape = [32 : i32, 256 : i32]
         } : (tensor<256xf32>) -> tensor<32x256xf32>

    %3 = "ttir.add"(%1, %2) {
           operand_constraints = [#any_device, #any_device, #any_device]
         } : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>

    %4 = "ttir.relu"(%3) {
           operand_constraints = [#any_device, #any_device]
         } : (tensor<32x256xf32>) -> tensor<32x256xf32>

    // Layer 2: MatMul + Bias
    %5 = "ttir.transpose"(%arg3) {dim0 = 1 : si32, dim1 = 0 : si32} :
         (tensor<10x256xf32>) -> tensor<256x10xf32>

    %6 = "ttir.matmul"(%4, %5) {
           operand_constraints = [#any_device, #any_device, #any_device]
         } : (tensor<32x256xf32>, tensor<256x10xf32>) -> tensor<32x10xf32>

    %7 = "ttir.broadcast"(%arg4) {
           dims = [1 : i32],
           shape = [32 : i32, 10 : i32]
         } : (tensor<10xf32>) -> tensor<32x10xf32>

    %8 = "ttir.add"(%6, %7) {
           operand_constraints = [#any_device, #any_device, #any_device]
         } : (tensor<32x10xf32>, tensor<32x10xf32>) -> tensor<32x10xf32>

    return %8 : tensor<32x10xf32>
  }
}

// The canonical print: every op in generic form, attributes sorted by name.
// CHECK: #any_device = #tt.operand_constraint<any_device>
// CHECK: module @simple_mlp attributes {tt.system_desc = #tt.system_desc<...>} {
// CHECK-LABEL: func.func @main(%arg0: tensor<32x128xf32>, %arg1: tensor<256x128xf32>, %arg2: tensor<256xf32>, %arg3: tensor<10x256xf32>, %arg4: tensor<10xf32>) -> tensor<32x10xf32> {
// CHECK-NEXT: %0 = "ttir.transpose"(%arg1) <{dim0 = 1 : si32, dim1 = 0 : si32}> : (tensor<256x128xf32>) -> tensor<128x256xf32>
// CHECK-NEXT: %1 = "ttir.matmul"(%arg0, %0) <{operand_constraints = [#any_device, #any_device, #any_device]}> : (tensor<32x128xf32>, tensor<128x256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %2 = "ttir.broadcast"(%arg2) <{dims = [1 : i32], shape = [32 : i32, 256 : i32]}> : (tensor<256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %3 = "ttir.add"(%1, %2) <{operand_constraints = [#any_device, #any_device, #any_device]}> : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %4 = "ttir.relu"(%3) <{operand_constraints = [#any_device, #any_device]}> : (tensor<32x256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %5 = "ttir.transpose"(%arg3) <{dim0 = 1 : si32, dim1 = 0 : si32}> : (tensor<10x256xf32>) -> tensor<256x10xf32>
// CHECK-NEXT: %6 = "ttir.matmul"(%4, %5) <{operand_constraints = [#any_device, #any_device, #any_device]}> : (tensor<32x256xf32>, tensor<256x10xf32>) -> tensor<32x10xf32>
// CHECK-NEXT: %7 = "ttir.broadcast"(%arg4) <{dims = [1 : i32], shape = [32 : i32, 10 : i32]}> : (tensor<10xf32>) -> tensor<32x10xf32>
// CHECK-NEXT: %8 = "ttir.add"(%6, %7) <{operand_constraints = [#any_device, #any_device, #any_device]}> : (tensor<32x10xf32>, tensor<32x10xf32>) -> tensor<32x10xf32>
// CHECK-NEXT: return %8 : tensor<32x10xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
