func.func @main(%a: tensor<0x32xf32>, %b: tensor<32x32xf32>) -> tensor<0x32xf32> {
  %0 = "ttir.matmul"(%a, %b) : (tensor<0x32xf32>, tensor<32x32xf32>) -> tensor<0x32xf32>
  return %0 : tensor<0x32xf32>
}
