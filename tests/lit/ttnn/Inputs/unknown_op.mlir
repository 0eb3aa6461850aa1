// A TTNN op tilesat has no counterpart for.
module {
  func.func @f(%arg0: tensor<32x32xbf16>) -> tensor<32x32xbf16> {
    %0 = "ttnn.frobnicate"(%arg0) : (tensor<32x32xbf16>) -> tensor<32x32xbf16>
    return %0 : tensor<32x32xbf16>
  }
}
