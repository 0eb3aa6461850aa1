// An elementwise result of 16 GiB: more than a Wormhole's 12 GiB of DRAM.
module {
  func.func @main(%arg0: tensor<65536x1xf32>, %arg1: tensor<1x65536xf32>) -> tensor<65536x65536xf32> {
    %0 = "ttir.add"(%arg0, %arg1) : (tensor<65536x1xf32>, tensor<1x65536xf32>) -> tensor<65536x65536xf32>
    return %0 : tensor<65536x65536xf32>
  }
}
