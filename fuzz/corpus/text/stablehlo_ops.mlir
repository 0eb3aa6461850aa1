func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x3x4xf32>, %c: tensor<2x4x3xf32>) -> tensor<2x3x3xbf16> {
  %0 = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %1 = stablehlo.reshape %0 : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
  %2 = stablehlo.multiply %1, %b : tensor<2x3x4xf32>
  %3 = stablehlo.exponential %2 : tensor<2x3x4xf32>
  %4 = stablehlo.dot_general %3, %c, batching_dims = [0] x [0], contracting_dims = [2] x [1] : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
  %cst = stablehlo.constant dense<1.5> : tensor<2x3x3xf32>
  %5 = stablehlo.maximum %4, %cst : tensor<2x3x3xf32>
  %6 = stablehlo.convert %5 : (tensor<2x3x3xf32>) -> tensor<2x3x3xbf16>
  return %6 : tensor<2x3x3xbf16>
}
