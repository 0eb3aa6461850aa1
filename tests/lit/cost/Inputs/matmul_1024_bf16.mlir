// A 1024x1024x1024 bf16 matmul (fits_nowhere.test plans it on a device with slow DRAM).
func.func @main(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  %0 = "ttir.matmul"(%a, %b) : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  return %0 : tensor<1024x1024xbf16>
}
