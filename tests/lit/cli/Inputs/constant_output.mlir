// A function with no arguments and a constant result.
func.func @main() -> tensor<2x2xf32> {
  %0 = "ttir.constant"() <{value = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>}> : () -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}
