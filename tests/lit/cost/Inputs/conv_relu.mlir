// A convolution and its ReLU over a batch of 16 NHWC images: on a mesh, split by batch.
func.func @main(%x: tensor<16x32x32x64xbf16>, %w: tensor<64x64x3x3xbf16>) -> tensor<16x32x32x64xbf16> {
  %0 = "ttir.conv2d"(%x, %w) <{padding = array<i32: 1, 1, 1, 1>}> : (tensor<16x32x32x64xbf16>, tensor<64x64x3x3xbf16>) -> tensor<16x32x32x64xbf16>
  %1 = "ttir.relu"(%0) : (tensor<16x32x32x64xbf16>) -> tensor<16x32x32x64xbf16>
  return %1 : tensor<16x32x32x64xbf16>
}
