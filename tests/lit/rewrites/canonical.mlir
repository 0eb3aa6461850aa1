// RUN: %tilesat opt %s --rule-set canonical | FileCheck %s

module {
  // CHECK-LABEL: func.func @zeros_to_relu
  // CHECK-NEXT: %0 = "ttir.relu"(%arg0)
  // CHECK-NEXT: return %0
  func.func @zeros_to_relu(%arg0: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
    %0 = "ttir.zeros"() <{shape = array<i32: 2, 8>}> : () -> tensor<2x8xbf16>
    %1 = "ttir.maximum"(%arg0, %0) : (tensor<2x8xbf16>, tensor<2x8xbf16>) -> tensor<2x8xbf16>
    return %1 : tensor<2x8xbf16>
  }

  // Negative: max(x, 1) is not relu.
  // CHECK-LABEL: func.func @ones_stay
  // CHECK: "ttir.maximum"
  // CHECK-NOT: ttir.relu
  func.func @ones_stay(%arg0: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
    %0 = "ttir.full"() <{shape = array<i32: 2, 8>, fill_value = 1 : i32}> : () -> tensor<2x8xbf16>
    %1 = "ttir.maximum"(%arg0, %0) : (tensor<2x8xbf16>, tensor<2x8xbf16>) -> tensor<2x8xbf16>
    return %1 : tensor<2x8xbf16>
  }

  // CHECK-LABEL: func.func @softmax
  // CHECK-NEXT: %0 = "ttir.softmax"(%arg0) <{dimension = 1 : si32, numericStable = false}>
  // CHECK-NEXT: return %0
  func.func @softmax(%arg0: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %0 = "ttir.exp"(%arg0) : (tensor<4x8xf32>) -> tensor<4x8xf32>
    %1 = "ttir.sum"(%0) <{dim_arg = [1 : i32], keep_dim = true}> : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %2 = "ttir.divide"(%0, %1) : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
    return %2 : tensor<4x8xf32>
  }

  // CHECK-LABEL: func.func @reshape_chain
  // CHECK-NEXT: %0 = "ttir.reshape"(%arg0) <{shape = [2 : i32, 16 : i32]}>
  // CHECK-NEXT: return %0
  func.func @reshape_chain(%arg0: tensor<4x8xf32>) -> tensor<2x16xf32> {
    %0 = "ttir.reshape"(%arg0) <{shape = [8 : i32, 4 : i32]}> : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %1 = "ttir.reshape"(%0) <{shape = [2 : i32, 16 : i32]}> : (tensor<8x4xf32>) -> tensor<2x16xf32>
    return %1 : tensor<2x16xf32>
  }
}
