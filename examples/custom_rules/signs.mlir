func.func @signs(%x: tensor<64x64xf32>, %y: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %0 = "ttir.neg"(%x) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = "ttir.abs"(%0) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %2 = "ttir.relu"(%1) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %3 = "ttir.subtract"(%x, %y) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %4 = "ttir.neg"(%3) : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %2, %4 : tensor<64x64xf32>, tensor<64x64xf32>
}
