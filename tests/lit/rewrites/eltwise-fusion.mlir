// RUN: %tilesat opt %s --rule-set eltwise-fusion | FileCheck %s
// Disabled: without the fusion rules nothing is fused.
// RUN: %tilesat opt %s --rule-set canonical | FileCheck %s --check-prefix=OFF
// OFF-NOT: ttir.add_relu
// OFF-NOT: ttir.fused_eltwise

module {
  // CHECK-LABEL: func.func @add_relu
  // CHECK-NEXT: %0 = "ttir.add_relu"(%arg0, %arg1) <{broadcast_dims = [1 : i32]}>
  // CHECK-NEXT: return %0
  func.func @add_relu(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>) -> tensor<4x8xf32> {
    %0 = "ttir.add"(%arg0, %arg1) <{broadcast_dims = [1 : i32]}> : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    %1 = "ttir.relu"(%0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %1 : tensor<4x8xf32>
  }

  // CHECK-LABEL: func.func @unary_chain
  // CHECK-NEXT: %0 = "ttir.fused_eltwise"(%arg0) <{body = "(sigmoid (tanh (exp %0)))"}>
  // CHECK-NEXT: return %0
  func.func @unary_chain(%arg0: tensor<4x8xbf16>) -> tensor<4x8xbf16> {
    %0 = "ttir.exp"(%arg0) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
    %1 = "ttir.tanh"(%0) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
    %2 = "ttir.sigmoid"(%1) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
    return %2 : tensor<4x8xbf16>
  }

  // Negative: %0 has two users, and seed 001 fuses only over op trees.
  // CHECK-LABEL: func.func @shared_value_not_fused
  // CHECK-NEXT: %0 = "ttir.exp"(%arg0)
  // CHECK-NEXT: %1 = "ttir.neg"(%0)
  // CHECK-NEXT: %2 = "ttir.abs"(%0)
  func.func @shared_value_not_fused(%arg0: tensor<4x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x8xbf16>) {
    %0 = "ttir.exp"(%arg0) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
    %1 = "ttir.neg"(%0) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
    %2 = "ttir.abs"(%0) : (tensor<4x8xbf16>) -> tensor<4x8xbf16>
    return %1, %2 : tensor<4x8xbf16>, tensor<4x8xbf16>
  }
}
