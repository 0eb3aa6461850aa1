func.func @main(%a: tensor<4x0xf32>) -> tensor<4xf32> {
  %0 = "ttir.sum"(%a) {dim_arg = [1 : i32], keep_dim = false} : (tensor<4x0xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
