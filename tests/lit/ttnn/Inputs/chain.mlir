// A 1024x1024 matmul whose product feeds an elementwise epilogue.
module {
  func.func @chain(%arg0: tensor<1024x1024xbf16>, %arg1: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
    %0 = "ttir.matmul"(%arg0, %arg1) : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
    %1 = "ttir.exp"(%0) : (tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
    %2 = "ttir.add"(%1, %0) : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
    return %2 : tensor<1024x1024xbf16>
  }
}
