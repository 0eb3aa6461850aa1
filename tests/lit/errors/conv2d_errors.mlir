// conv2d verification errors name the op: dims that are not a permutation, a bias of the wrong
// shape, a padding of three values.
// RUN: rm -rf %t && split-file --leading-lines %s %t
// RUN: not %tilesat print %t/dims.mlir 2>&1 | FileCheck %s --check-prefix=DIMS
// RUN: not %tilesat print %t/bias.mlir 2>&1 | FileCheck %s --check-prefix=BIAS
// RUN: not %tilesat print %t/padding.mlir 2>&1 | FileCheck %s --check-prefix=PADDING

//--- dims.mlir
func.func @main(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // DIMS: dims.mlir:[[@LINE+1]]:3: error: 'ttir.conv2d' %0: expected batch_dim, channel_dim, height_dim and width_dim to be a permutation of 0, 1, 2, 3, got 0, 1, 2, 2
  %0 = "ttir.conv2d"(%x, %w) <{channel_dim = 1, height_dim = 2, width_dim = 2}> : (tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

//--- bias.mlir
func.func @main(%x: tensor<1x8x8x4xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<1x6x1x1xf32>) -> tensor<1x6x6x6xf32> {
  // BIAS: bias.mlir:[[@LINE+1]]:3: error: 'ttir.conv2d' %0: expected a bias of shape 6 or 1x1x1x6, got 1x6x1x1
  %0 = "ttir.conv2d"(%x, %w, %b) : (tensor<1x8x8x4xf32>, tensor<6x4x3x3xf32>, tensor<1x6x1x1xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

//--- padding.mlir
func.func @main(%x: tensor<1x8x8x4xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32> {
  // PADDING: padding.mlir:[[@LINE+1]]:3: error: 'ttir.conv2d' %0: expected 'padding' to be one non-negative value up to 2^20 or a list of 2 or 4, got [1, 1, 1]
  %0 = "ttir.conv2d"(%x, %w) <{padding = array<i32: 1, 1, 1>}> : (tensor<1x8x8x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}
