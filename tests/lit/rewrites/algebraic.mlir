// RUN: %tilesat opt %s --rule-set algebraic | FileCheck %s

module {
  // CHECK-LABEL: func.func @neg_neg
  // CHECK-NEXT: return %arg0
  func.func @neg_neg(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "ttir.neg"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "ttir.neg"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }

  // Negative: x + 1 is not x.
  // CHECK-LABEL: func.func @add_one_stays
  // CHECK: "ttir.add"
  func.func @add_one_stays(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "ttir.full"() <{shape = array<i32: 4>, fill_value = 1.0 : f32}> : () -> tensor<4xf32>
    %1 = "ttir.add"(%arg0, %0) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
