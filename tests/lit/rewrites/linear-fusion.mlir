// RUN: %tilesat opt %s --rule-set linear-fusion | FileCheck %s

module {
  // CHECK-LABEL: func.func @matmul_bias
  // CHECK-NEXT: %0 = "ttir.linear"(%arg0, %arg1, %arg2)
  // CHECK-NEXT: return %0
  func.func @matmul_bias(%arg0: tensor<4x8xf32>, %arg1: tensor<8x6xf32>, %arg2: tensor<6xf32>) -> tensor<4x6xf32> {
    %0 = "ttir.matmul"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    %1 = "ttir.add"(%0, %arg2) : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
    return %1 : tensor<4x6xf32>
  }

  // Negative: the product has a second user.
  // CHECK-LABEL: func.func @shared_matmul
  // CHECK-NOT: ttir.linear
  // CHECK: "ttir.matmul"
  // CHECK: "ttir.add"
  // CHECK: "ttir.subtract"
  func.func @shared_matmul(%arg0: tensor<4x8xf32>, %arg1: tensor<8x6xf32>, %arg2: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %0 = "ttir.matmul"(%arg0, %arg1) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
    %1 = "ttir.add"(%0, %arg2) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %2 = "ttir.subtract"(%0, %1) : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    return %2 : tensor<4x6xf32>
  }
}
