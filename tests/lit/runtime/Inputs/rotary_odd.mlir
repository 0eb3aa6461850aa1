func.func @main(%x: tensor<2x21xf32>, %cos: tensor<2x21xf32>, %sin: tensor<2x21xf32>) -> tensor<2x21xf32> {
  %0 = "ttir.rotary_embedding"(%x, %cos, %sin) : (tensor<2x21xf32>, tensor<2x21xf32>, tensor<2x21xf32>) -> tensor<2x21xf32>
  return %0 : tensor<2x21xf32>
}
