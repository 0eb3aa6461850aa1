// A 1-D convolution as JAX lowers a flax Conv over a sequence ([b, 0, f], kernel [0, i, o]):
// a 2-D conv2d with a unit dim after dim 0, reshaped in and out; it plans and runs on the
// device model with the reference interpreter's results.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK: %[[X:[0-9]+]] = "ttir.reshape"(%arg0) <{shape = [2 : i32, 64 : i32, 1 : i32, 32 : i32]}>
// CHECK: %[[W:[0-9]+]] = "ttir.reshape"(%arg1) <{shape = [5 : i32, 1 : i32, 32 : i32, 64 : i32]}>
// CHECK: %[[OIHW:[0-9]+]] = "ttir.permute"(%[[W]]) <{permutation = array<i64: 3, 2, 0, 1>}>
// CHECK: %[[Y:[0-9]+]] = "ttir.conv2d"(%[[X]], %[[OIHW]]) <{padding = [2 : i32, 0 : i32, 2 : i32, 0 : i32], stride = [2 : i32, 1 : i32]}> : (tensor<2x64x1x32xf32>, tensor<64x32x5x1xf32>) -> tensor<2x32x1x64xf32>
// CHECK: "ttir.reshape"(%[[Y]]) <{shape = [2 : i32, 32 : i32, 64 : i32]}>

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 2x32x64: {{.*}} ok{{$}}
func.func @main(%arg0: tensor<2x64x32xf32>, %arg1: tensor<5x32x64xf32>) -> tensor<2x32x64xf32> {
  %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [2], pad = [[2, 2]], lhs_dilate = [1], rhs_dilate = [1], reverse = [0]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x64x32xf32>, tensor<5x32x64xf32>) -> tensor<2x32x64xf32>
  return %0 : tensor<2x32x64xf32>
}
