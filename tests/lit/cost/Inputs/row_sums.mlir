// A row sum of an exponential: the reduction's operand.
module {
  func.func @row_sums(%x: tensor<256x1024xf32>) -> tensor<256x1xf32> {
    %0 = "ttir.exp"(%x) : (tensor<256x1024xf32>) -> tensor<256x1024xf32>
    %1 = "ttir.sum"(%0) <{dim_arg = [1 : i32], keep_dim = true}> : (tensor<256x1024xf32>) -> tensor<256x1xf32>
    return %1 : tensor<256x1xf32>
  }
}
