// The seed listings the text tests read, verbatim (seed 000 §3.2, §3.3, §3.4; seed 001's cosh).
#pragma once

namespace tilesat::test {

// Seed 000 §3.2: StableHLO IR of the 2-layer MLP.
inline constexpr const char* kSeed000StableHlo = R"mlir(
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
)mlir";

// Seed 000 §3.3: TTIR (initial lowering).
inline constexpr const char* kSeed000TtirInitial = R"mlir(
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
)mlir";

// Seed 000 §3.4: TTIR (after optimization passes).
inline constexpr const char* kSeed000TtirOptimized = R"mlir(
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
)mlir";

// Seed 001: the TTIR of the ttnn.jit cosh example.
inline constexpr const char* kSeed001Cosh = R"mlir(
module {
  func.func @cosh(%arg0: tensor<32x32xbf16, #ttnn_layout>) -> tensor<32x32xbf16, #ttnn_layout> {
    %0 = ttir.exp %arg0 : tensor<32x32xbf16, #ttnn_layout> -> tensor<32x32xbf16, #ttnn_layout>
    %1 = ttir.neg %arg0 : tensor<32x32xbf16, #ttnn_layout> -> tensor<32x32xbf16, #ttnn_layout>
    %2 = ttir.exp %1 : tensor<32x32xbf16, #ttnn_layout> -> tensor<32x32xbf16, #ttnn_layout>
    %3 = ttir.add %0, %2 : tensor<32x32xbf16, #ttnn_layout>, tensor<32x32xbf16, #ttnn_layout> -> tensor<32x32xbf16, #ttnn_layout>
    %4 = ttir.multiply %3, 0.5 : tensor<32x32xbf16, #ttnn_layout>, f32 -> tensor<32x32xbf16, #ttnn_layout>
    return %4 : tensor<32x32xbf16, #ttnn_layout>
  }
}
)mlir";

} // namespace tilesat::test
