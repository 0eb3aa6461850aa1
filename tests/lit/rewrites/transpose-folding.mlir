// RUN: %tilesat opt %s --rule-set transpose-folding | FileCheck %s
// Disabled: another rule set leaves the transposes alone.
// RUN: %tilesat opt %s --rule-set algebraic | FileCheck %s --check-prefix=OFF

module {
  // CHECK-LABEL: func.func @fold_transpose_b
  // CHECK-NOT: ttir.transpose
  // CHECK: "ttir.matmul"(%arg0, %arg1) <{transpose_b = true}>
  // OFF-LABEL: func.func @fold_transpose_b
  // OFF: "ttir.transpose"
  func.func @fold_transpose_b(%arg0: tensor<32x128xf32>, %arg1: tensor<256x128xf32>) -> tensor<32x256xf32> {
    %0 = "ttir.transpose"(%arg1) <{dim0 = 1 : si32, dim1 = 0 : si32}> : (tensor<256x128xf32>) -> tensor<128x256xf32>
    %1 = "ttir.matmul"(%arg0, %0) : (tensor<32x128xf32>, tensor<128x256xf32>) -> tensor<32x256xf32>
    return %1 : tensor<32x256xf32>
  }

  // CHECK-LABEL: func.func @fold_permute_a
  // CHECK-NOT: ttir.permute
  // CHECK: "ttir.matmul"(%arg0, %arg1) <{transpose_a = true}>
  func.func @fold_permute_a(%arg0: tensor<128x32xf32>, %arg1: tensor<128x64xf32>) -> tensor<32x64xf32> {
    %0 = "ttir.permute"(%arg0) <{permutation = array<i64: 1, 0>}> : (tensor<128x32xf32>) -> tensor<32x128xf32>
    %1 = "ttir.matmul"(%0, %arg1) : (tensor<32x128xf32>, tensor<128x64xf32>) -> tensor<32x64xf32>
    return %1 : tensor<32x64xf32>
  }

  // Negative: the transpose swaps a batch dim, which transpose_b cannot express.
  // CHECK-LABEL: func.func @batch_transpose_stays
  // CHECK: "ttir.transpose"
  // CHECK: "ttir.matmul"
  func.func @batch_transpose_stays(%arg0: tensor<5x3x2xf32>, %arg1: tensor<2x5x4xf32>) -> tensor<5x3x4xf32> {
    %0 = "ttir.transpose"(%arg1) <{dim0 = 0 : si32, dim1 = 1 : si32}> : (tensor<2x5x4xf32>) -> tensor<5x2x4xf32>
    %1 = "ttir.matmul"(%arg0, %0) : (tensor<5x3x2xf32>, tensor<5x2x4xf32>) -> tensor<5x3x4xf32>
    return %1 : tensor<5x3x4xf32>
  }

  // CHECK-LABEL: func.func @inverse_permutes_cancel
  // CHECK-NOT: ttir.permute
  // CHECK: return %arg0
  func.func @inverse_permutes_cancel(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %0 = "ttir.permute"(%arg0) <{permutation = array<i64: 1, 2, 0>}> : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
    %1 = "ttir.permute"(%0) <{permutation = array<i64: 2, 0, 1>}> : (tensor<3x4x2xf32>) -> tensor<2x3x4xf32>
    return %1 : tensor<2x3x4xf32>
  }
}
