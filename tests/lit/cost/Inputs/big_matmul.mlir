// A matmul whose per-core output block exceeds the tiny device's L1.
module {
  func.func @main(%arg0: tensor<32x1024xf32>, %arg1: tensor<1024x1024xf32>) -> tensor<32x1024xf32> {
    %0 = "ttir.matmul"(%arg0, %arg1) : (tensor<32x1024xf32>, tensor<1024x1024xf32>) -> tensor<32x1024xf32>
    return %0 : tensor<32x1024xf32>
  }
}
