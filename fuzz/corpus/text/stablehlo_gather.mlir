func.func @main(%t: tensor<10x4xf32>, %i: tensor<2x3x1xi32>, %s: tensor<2x8x3xf32>, %k: tensor<3x3x5xf32>) -> (tensor<2x3x4xf32>, tensor<2x4x5xf32>) {
  %0 = "stablehlo.gather"(%t, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>} : (tensor<10x4xf32>, tensor<2x3x1xi32>) -> tensor<2x3x4xf32>
  %1 = stablehlo.convolution(%s, %k) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[1, 0]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x8x3xf32>, tensor<3x3x5xf32>) -> tensor<2x4x5xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<2x4x5xf32>
}
