// tt-mlir's NHWC conv2d (scalar padding, stride as array<i32>, 1x1x1xO bias, relu) on the
// device model: the planner wraps it in permutes to and from NCHW, and flat-images turns that
// into ttnn's flattened NHWC conv, which the NHWC tensor reaches by a reshape alone; the
// program's result matches the reference interpreter's NHWC conv.
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s
// CHECK: check @main on wormhole_b0: 3 ops -> {{[0-9]+}} device ops
// CHECK-NEXT: result0 1x5x8x6: max_abs_err={{.*}} tolerance=1e-05 (f32) ok

// RUN: %tilesat opt %s --device wormhole_b0 --emit program | FileCheck %s --check-prefix=PROG
// PROG: = reshape(t0)
// PROG: conv2d({{.*}}) kernel=3x3 stride=2x1 padding=[1,1,1,1] dilation=1x1 groups=1 flat=1x9x8
// PROG: = reshape(
// PROG-NOT: permute
func.func @main(%x: tensor<1x9x8x4xf32>, %w: tensor<6x4x3x3xf32>, %b: tensor<1x1x1x6xf32>) -> tensor<1x5x8x6xf32> {
  %0 = "ttir.conv2d"(%x, %w) <{stride = array<i32: 2, 1>, padding = 1 : i32, dilation = 1 : i32, groups = 1 : i32}> : (tensor<1x9x8x4xf32>, tensor<6x4x3x3xf32>) -> tensor<1x5x8x6xf32>
  %1 = "ttir.add"(%0, %b) : (tensor<1x5x8x6xf32>, tensor<1x1x1x6xf32>) -> tensor<1x5x8x6xf32>
  %2 = "ttir.relu"(%1) : (tensor<1x5x8x6xf32>) -> tensor<1x5x8x6xf32>
  return %2 : tensor<1x5x8x6xf32>
}
