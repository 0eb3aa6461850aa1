module {
  func.func @wide(%a: tensor<64x2048xf32>, %b: tensor<64x2048xf32>) -> tensor<64x2048xf32> {
    %0 = "ttir.add"(%a, %b) : (tensor<64x2048xf32>, tensor<64x2048xf32>) -> tensor<64x2048xf32>
    %1 = "ttir.exp"(%0) : (tensor<64x2048xf32>) -> tensor<64x2048xf32>
    %2 = "ttir.multiply"(%1, %a) : (tensor<64x2048xf32>, tensor<64x2048xf32>) -> tensor<64x2048xf32>
    return %2 : tensor<64x2048xf32>
  }
}
