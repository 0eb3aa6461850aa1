func.func @main(%a: tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32> {
  %0 = "ttir.exp"(%a) : (tensor<1048576x1048576xf32>) -> tensor<1048576x1048576xf32>
  return %0 : tensor<1048576x1048576xf32>
}
