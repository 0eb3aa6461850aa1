module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "ttir.exp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = "ttir.log"(%0) : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
