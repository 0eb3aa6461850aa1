// TTNN-dialect input: matmuls followed by activations, one per module.
module {
  func.func @relu(%arg0: tensor<64x128xbf16>, %arg1: tensor<128x96xbf16>) -> tensor<64x96xbf16> {
    %0 = "ttnn.matmul"(%arg0, %arg1) <{transpose_a = false, transpose_b = false}> : (tensor<64x128xbf16>, tensor<128x96xbf16>) -> tensor<64x96xbf16>
    %1 = "ttnn.relu"(%0) : (tensor<64x96xbf16>) -> tensor<64x96xbf16>
    return %1 : tensor<64x96xbf16>
  }
}

module {
  func.func @silu_bias(%arg0: tensor<64x128xbf16>, %arg1: tensor<128x96xbf16>, %arg2: tensor<96xbf16>) -> tensor<64x96xbf16> {
    %0 = "ttnn.matmul"(%arg0, %arg1) <{transpose_a = false, transpose_b = false}> : (tensor<64x128xbf16>, tensor<128x96xbf16>) -> tensor<64x96xbf16>
    %1 = "ttnn.add"(%0, %arg2) : (tensor<64x96xbf16>, tensor<96xbf16>) -> tensor<64x96xbf16>
    %2 = "ttnn.silu"(%1) : (tensor<64x96xbf16>) -> tensor<64x96xbf16>
    return %2 : tensor<64x96xbf16>
  }
}

module {
  func.func @two_users(%arg0: tensor<64x128xbf16>, %arg1: tensor<96x128xbf16>) -> tensor<64x96xbf16> {
    %0 = "ttnn.matmul"(%arg0, %arg1) <{transpose_a = false, transpose_b = true}> : (tensor<64x128xbf16>, tensor<96x128xbf16>) -> tensor<64x96xbf16>
    %1 = "ttnn.tanh"(%0) : (tensor<64x96xbf16>) -> tensor<64x96xbf16>
    %2 = "ttnn.multiply"(%0, %1) : (tensor<64x96xbf16>, tensor<64x96xbf16>) -> tensor<64x96xbf16>
    return %2 : tensor<64x96xbf16>
  }
}
