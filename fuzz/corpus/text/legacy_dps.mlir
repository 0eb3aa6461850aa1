module {
  func.func @softmax(%arg0: tensor<32x32xf32>) -> tensor<32x32xf32> {
    %0 = ttir.empty() : tensor<32x32xf32>
    %1 = "ttir.exp"(%arg0, %0) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %2 = ttir.empty() : tensor<32x1xf32>
    %3 = "ttir.sum"(%1, %2) {dim_arg = [1 : i32], keep_dim = true} : (tensor<32x32xf32>, tensor<32x1xf32>) -> tensor<32x1xf32>
    %4 = ttir.empty() : tensor<32x32xf32>
    %5 = "ttir.broadcast"(%3, %4) {broadcast_dimensions = array<i64: 1, 32>} : (tensor<32x1xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    %6 = "ttir.div"(%1, %5) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
    return %6 : tensor<32x32xf32>
  }
}
