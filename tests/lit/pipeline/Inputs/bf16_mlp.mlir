// One MLP layer in bf16 (seed 000's first layer with bf16 values).
func.func @main(%arg0: tensor<32x128xbf16>, %arg1: tensor<256x128xbf16>, %arg2: tensor<256xbf16>) -> tensor<32x256xbf16> {
  %0 = "ttir.matmul"(%arg0, %arg1) <{transpose_b = true}> : (tensor<32x128xbf16>, tensor<256x128xbf16>) -> tensor<32x256xbf16>
  %1 = "ttir.add"(%0, %arg2) : (tensor<32x256xbf16>, tensor<256xbf16>) -> tensor<32x256xbf16>
  %2 = "ttir.relu"(%1) : (tensor<32x256xbf16>) -> tensor<32x256xbf16>
  return %2 : tensor<32x256xbf16>
}
