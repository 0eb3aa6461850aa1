// RUN: %tilesat opt %s --rule-set broadcast-folding | FileCheck %s
// Disabled: the broadcasts stay without the rule set.
// RUN: %tilesat opt %s --rule-set canonical | FileCheck %s --check-prefix=OFF
// OFF: ttir.broadcast

module {
  // CHECK-LABEL: func.func @bias
  // CHECK-NOT: ttir.broadcast
  // CHECK: "ttir.add"(%arg0, %arg1) <{broadcast_dims = [1 : i32]}>
  func.func @bias(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>) -> tensor<4x8xf32> {
    %0 = "ttir.broadcast"(%arg1) <{dims = [1 : i32], shape = [4 : i32, 8 : i32]}> : (tensor<8xf32>) -> tensor<4x8xf32>
    %1 = "ttir.add"(%arg0, %0) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %1 : tensor<4x8xf32>
  }

  // Negative: the broadcast has explicit dims and the higher rank, so broadcast_dims on the
  // add would describe the other operand.
  // CHECK-LABEL: func.func @higher_rank_stays
  // CHECK: "ttir.broadcast"
  func.func @higher_rank_stays(%arg0: tensor<8xf32>, %arg1: tensor<4x1xf32>) -> tensor<4x8xf32> {
    %0 = "ttir.broadcast"(%arg1) <{dims = [0 : i32, 1 : i32], shape = [4 : i32, 8 : i32]}> : (tensor<4x1xf32>) -> tensor<4x8xf32>
    %1 = "ttir.add"(%arg0, %0) : (tensor<8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    return %1 : tensor<4x8xf32>
  }
}
