// conv2d in tt-mlir's form (NHWC by default, scalar or array<i32: ...> stride / padding /
// dilation, a 1x1x1xO bias) and in tilesat's NCHW form with list attributes: a scalar prints
// back as a scalar, a list (however written) as a list, and the text round-trips.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat print %s > %t1 && %tilesat print - < %t1 > %t2 && diff %t1 %t2

// CHECK-LABEL: func.func @nhwc
// CHECK: "ttir.conv2d"(%arg0, %arg1, %arg2) <{dilation = 1 : si32, groups = 1 : si32, padding = [1 : i32, 2 : i32], stride = [2 : i32, 1 : i32]}> : (tensor<1x9x8x4xf32>, tensor<6x4x3x3xf32>, tensor<1x1x1x6xf32>) -> tensor<1x5x10x6xf32>
func.func @nhwc(%arg0: tensor<1x9x8x4xf32>, %arg1: tensor<6x4x3x3xf32>, %arg2: tensor<1x1x1x6xf32>) -> tensor<1x5x10x6xf32> {
  %0 = "ttir.conv2d"(%arg0, %arg1, %arg2) <{stride = array<i32: 2, 1>, padding = array<i32: 1, 2>, dilation = 1 : i32, groups = 1 : i32}> : (tensor<1x9x8x4xf32>, tensor<6x4x3x3xf32>, tensor<1x1x1x6xf32>) -> tensor<1x5x10x6xf32>
  return %0 : tensor<1x5x10x6xf32>
}

// CHECK-LABEL: func.func @nchw
// CHECK: "ttir.conv2d"(%arg0, %arg1) <{channel_dim = 1 : si32, height_dim = 2 : si32, padding = [1 : i32, 0 : i32, 2 : i32, 3 : i32], stride = [2 : i32, 2 : i32], width_dim = 3 : si32}> : (tensor<1x4x9x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x5x5xf32>
func.func @nchw(%arg0: tensor<1x4x9x8xf32>, %arg1: tensor<6x4x3x3xf32>) -> tensor<1x6x5x5xf32> {
  %0 = "ttir.conv2d"(%arg0, %arg1) <{stride = [2, 2], padding = array<i32: 1, 0, 2, 3>, channel_dim = 1, height_dim = 2, width_dim = 3}> : (tensor<1x4x9x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x5x5xf32>
  return %0 : tensor<1x6x5x5xf32>
}
