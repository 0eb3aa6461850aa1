func.func @main() -> tensor<4x4xf32> {
  %0 = "ttir.zeros"() {shape = array<i32: 4, 4>} : () -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
