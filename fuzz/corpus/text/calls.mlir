module @jit_f {
  func.func public @main(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = call @scaled_relu(%x) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %1 = func.call @relu(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
  func.func private @scaled_relu(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.add %a, %a : tensor<4x4xf32>
    %1 = call @relu(%0) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    return %1 : tensor<4x4xf32>
  }
  func.func private @relu(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %c = stablehlo.constant dense<0.0> : tensor<4x4xf32>
    %0 = stablehlo.maximum %a, %c : tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
