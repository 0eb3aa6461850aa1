// Origin: seed 000 (End-to-End Compilation Example), §3.2 StableHLO IR.
// The listing below the RUN lines is copied verbatim from the seed; the CHECK lines follow it.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat print %s > %t1 && %tilesat print - < %t1 > %t2 && diff %t1 %t2

// StableHLO IR (simplified)
module @simple_mlp {
  // Function signature
  func.func @main(
    %arg0: tensor<32x128xf32>,           // input
    %arg1: tensor<256x128xf32>,          // fc1.weight
    %arg2: tensor<256xf32>,              // fc1.bias
    %arg3: tensor<10x256xf32>,           // fc2.weight
    %arg4: tensor<10xf32>                // fc2.bias
  ) -> tensor<32x10xf32> {

    // Layer 1: MatMul + Bias + ReLU
    // MatMul: [32, 128] @ [128, 256]
    %0 = stablehlo.transpose %arg1, dims = [1, 0] :
         (tensor<256x128xf32>) -> tensor<128x256xf32>
    %1 = stablehlo.dot_general %arg0, %0,
         contracting_dims = [1] x [0] :
         (tensor<32x128xf32>, tensor<128x256xf32>) -> tensor<32x256xf32>

    // Broadcast bias for addition
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] :
         (tensor<256xf32>) -> tensor<32x256xf32>
    %3 = stablehlo.add %1, %2 : tensor<32x256xf32>

    // ReLU: max(x, 0)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<32x256xf32>
    %4 = stablehlo.maximum %3, %cst : tensor<32x256xf32>

    // Layer 2: MatMul + Bias
    // MatMul: [32, 256] @ [256, 10]
    %5 = stablehlo.transpose %arg3, dims = [1, 0] :
         (tensor<10x256xf32>) -> tensor<256x10xf32>
    %6 = stablehlo.dot_general %4, %5,
         contracting_dims = [1] x [0] :
         (tensor<32x256xf32>, tensor<256x10xf32>) -> tensor<32x10xf32>

    // Broadcast bias for addition
    %7 = stablehlo.broadcast_in_dim %arg4, dims = [1] :
         (tensor<10xf32>) -> tensor<32x10xf32>
    %8 = stablehlo.add %6, %7 : tensor<32x10xf32>

    return %8 : tensor<32x10xf32>
  }
}

// The canonical print: every op in generic form, attributes sorted by name.
// CHECK: module @simple_mlp {
// CHECK-LABEL: func.func @main(%arg0: tensor<32x128xf32>, %arg1: tensor<256x128xf32>, %arg2: tensor<256xf32>, %arg3: tensor<10x256xf32>, %arg4: tensor<10xf32>) -> tensor<32x10xf32> {
// CHECK-NEXT: %0 = "ttir.transpose"(%arg1) <{dim0 = 1 : si32, dim1 = 0 : si32}> : (tensor<256x128xf32>) -> tensor<128x256xf32>
// CHECK-NEXT: %1 = "ttir.matmul"(%arg0, %0) <{transpose_a = false, transpose_b = false}> : (tensor<32x128xf32>, tensor<128x256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %2 = "ttir.broadcast"(%arg2) <{dims = [1 : i32], shape = [32 : i32, 256 : i32]}> : (tensor<256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %3 = "ttir.add"(%1, %2) : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %4 = "ttir.constant"() <{value = dense<0.000000e+00> : tensor<32x256xf32>}> : () -> tensor<32x256xf32>
// CHECK-NEXT: %5 = "ttir.maximum"(%3, %4) : (tensor<32x256xf32>, tensor<32x256xf32>) -> tensor<32x256xf32>
// CHECK-NEXT: %6 = "ttir.transpose"(%arg3) <{dim0 = 1 : si32, dim1 = 0 : si32}> : (tensor<10x256xf32>) -> tensor<256x10xf32>
// CHECK-NEXT: %7 = "ttir.matmul"(%5, %6) <{transpose_a = false, transpose_b = false}> : (tensor<32x256xf32>, tensor<256x10xf32>) -> tensor<32x10xf32>
// CHECK-NEXT: %8 = "ttir.broadcast"(%arg4) <{dims = [1 : i32], shape = [32 : i32, 10 : i32]}> : (tensor<10xf32>) -> tensor<32x10xf32>
// CHECK-NEXT: %9 = "ttir.add"(%7, %8) : (tensor<32x10xf32>, tensor<32x10xf32>) -> tensor<32x10xf32>
// CHECK-NEXT: return %9 : tensor<32x10xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
