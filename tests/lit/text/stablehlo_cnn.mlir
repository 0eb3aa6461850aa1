// A small CNN as JAX exports it (flax Conv / max_pool / depthwise Conv / avg_pool on NHWC):
// stablehlo.convolution in its custom form becomes ttir.conv2d in the input's NHWC layout with
// the HWIO kernel permuted to OIHW; a reduce_window over H and W becomes a pool on the
// flattened NHWC image (no permutes), an add reducer an avg_pool2d times the window size. The
// function plans, lowers and runs on the device model, and its results match the reference
// interpreter (whose conv and reduce_window imports are checked against the StableHLO
// definitions in tests/graph/text_stablehlo_window_test.cpp).
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK-LABEL: module @jit_cnn
// CHECK: %[[K:[0-9]+]] = "ttir.permute"(%arg1) <{permutation = array<i64: 3, 2, 0, 1>}> : (tensor<3x3x3x32xf32>) -> tensor<32x3x3x3xf32>
// CHECK: "ttir.conv2d"(%arg0, %[[K]]) <{padding = [1 : i32, 1 : i32, 1 : i32, 1 : i32]}> : (tensor<2x32x32x3xf32>, tensor<32x3x3x3xf32>) -> tensor<2x32x32x32xf32>
// CHECK: "ttir.reshape"({{.*}}) -> tensor<1x1x2048x32xf32>
// CHECK: "ttir.max_pool2d"({{.*}}) <{batch_size = 2 : si32, input_height = 32 : si32, input_width = 32 : si32, kernel_size = [3 : i32, 3 : i32], padding = [0 : i32, 0 : i32, 1 : i32, 1 : i32], stride = [2 : i32, 2 : i32]}>
// CHECK: %[[POOLED:[0-9]+]] = "ttir.reshape"({{.*}}) -> tensor<2x16x16x32xf32>
// CHECK: "ttir.conv2d"(%[[POOLED]], {{.*}}) <{groups = 32 : si32, padding = [1 : i32, 1 : i32, 1 : i32, 1 : i32]}>
// CHECK: "ttir.avg_pool2d"({{.*}}) <{batch_size = 2 : si32, count_include_pad = true, input_height = 16 : si32, input_width = 16 : si32, kernel_size = [2 : i32, 2 : i32], stride = [2 : i32, 2 : i32]}>
// CHECK: "ttir.multiply"
// CHECK-NOT: "ttir.permute"
// CHECK: return %[[POOLED]],

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 2x16x16x32: {{.*}} ok{{$}}
// CHECKED-NEXT: result1 2x8x8x32: {{.*}} ok{{$}}
module @jit_cnn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x32x32x3xf32>, %arg1: tensor<3x3x3x32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<3x3x1x32xf32>) -> (tensor<2x16x16x32xf32> {jax.result_info = "[0]"}, tensor<2x8x8x32xf32> {jax.result_info = "[1]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [0, 0]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x32x32x3xf32>, tensor<3x3x3x32xf32>) -> tensor<2x32x32x32xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [3] : (tensor<32xf32>) -> tensor<2x32x32x32xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x32x32x32xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x32x32x32xf32>
    %4 = stablehlo.maximum %2, %3 : tensor<2x32x32x32xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = "stablehlo.reduce_window"(%4, %cst_0) ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %10 = stablehlo.maximum %arg4, %arg5 : tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) {padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>} : (tensor<2x32x32x32xf32>, tensor<f32>) -> tensor<2x16x16x32xf32>
    %6 = stablehlo.convolution(%5, %arg3) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 32 : i64} : (tensor<2x16x16x32xf32>, tensor<3x3x1x32xf32>) -> tensor<2x16x16x32xf32>
    %7 = "stablehlo.reduce_window"(%6, %cst) ({
    ^bb0(%arg4: tensor<f32>, %arg5: tensor<f32>):
      %10 = stablehlo.add %arg4, %arg5 : tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) {window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>} : (tensor<2x16x16x32xf32>, tensor<f32>) -> tensor<2x8x8x32xf32>
    %cst_1 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8x8x32xf32>
    %9 = stablehlo.divide %7, %8 : tensor<2x8x8x32xf32>
    return %5, %9 : tensor<2x16x16x32xf32>, tensor<2x8x8x32xf32>
  }
}
