// A ResNet stem on the device model: conv2d (7x7, stride 2, padding 3) with bias, relu, then a
// 3x3 max pool (stride 2, padding 1), planned, lowered, run and compared with the reference.
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s
// CHECK: check @main on wormhole_b0: {{[0-9]+}} ops -> {{[0-9]+}} device ops
// CHECK-NEXT: result0 1x8x12x12: max_abs_err={{.*}} tolerance=1e-05 (f32) ok

// The program holds the conv2d (bias and relu fused into it) and the pool with their windows.
// RUN: %tilesat opt %s --device wormhole_b0 --emit program | FileCheck %s --check-prefix=PROG
// PROG: program @main v1.{{[0-9]+}} for wormhole_b0
// PROG: conv2d(t{{[0-9]+}}, t{{[0-9]+}}, t{{[0-9]+}}) kernel=7x7 stride=2x2 padding=[3,3,3,3] dilation=1x1 groups=1 bias activation=Relu
// PROG: max_pool2d(t{{[0-9]+}}) Max kernel=3x3 stride=2x2 padding=[1,1,1,1] dilation=1x1
func.func @main(%x: tensor<1x3x45x45xf32>, %w: tensor<8x3x7x7xf32>, %b: tensor<8xf32>) -> tensor<1x8x12x12xf32> {
  %0 = "ttir.conv2d"(%x, %w) <{stride = [2, 2], padding = [3, 3, 3, 3], channel_dim = 1, height_dim = 2, width_dim = 3}> : (tensor<1x3x45x45xf32>, tensor<8x3x7x7xf32>) -> tensor<1x8x23x23xf32>
  %1 = "ttir.reshape"(%b) <{shape = [1, 8, 1, 1]}> : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
  %2 = "ttir.add"(%0, %1) : (tensor<1x8x23x23xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x23x23xf32>
  %3 = "ttir.relu"(%2) : (tensor<1x8x23x23xf32>) -> tensor<1x8x23x23xf32>
  %4 = "ttir.max_pool2d"(%3) <{kernel_size = [3, 3], stride = [2, 2], padding = [1, 1, 1, 1]}> : (tensor<1x8x23x23xf32>) -> tensor<1x8x12x12xf32>
  return %4 : tensor<1x8x12x12xf32>
}
