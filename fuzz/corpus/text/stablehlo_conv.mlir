func.func @main(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>, %d: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [0, 0]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x8x8x4xf32>
  %1 = "stablehlo.convolution"(%0, %d) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[o, i, 0, 1]->[b, 0, 1, f]>, feature_group_count = 4 : i64, padding = dense<1> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x1x3x3xf32>) -> tensor<1x8x8x4xf32>
  %c = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %2 = "stablehlo.reduce_window"(%1, %c) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %r = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, window_dilations = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x4xf32>, tensor<f32>) -> tensor<1x4x4x4xf32>
  return %2 : tensor<1x4x4x4xf32>
}
