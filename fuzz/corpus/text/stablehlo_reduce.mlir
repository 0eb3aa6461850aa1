func.func @main(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %p: tensor<4x8xi1>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<6x9xf32>, tensor<4xi32>, tensor<4x8xi1>) {
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %c0 = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%x init: %c0) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>)  {
    %r = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }
  %2 = "stablehlo.reduce"(%x, %c0) ({
  ^bb0(%s: tensor<f32>, %t: tensor<f32>):
    %u = "stablehlo.minimum"(%s, %t) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%u) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = stablehlo.add %1, %2 : tensor<4xf32>
  %4 = stablehlo.compare  GE, %x, %y,  FLOAT : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %5 = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction NE>} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %6 = stablehlo.and %4, %5 : tensor<4x8xi1>
  %7 = stablehlo.not %6 : tensor<4x8xi1>
  %8 = stablehlo.select %7, %x, %y : tensor<4x8xi1>, tensor<4x8xf32>
  %9 = stablehlo.clamp %c0, %8, %c0 : (tensor<f32>, tensor<4x8xf32>, tensor<f32>) -> tensor<4x8xf32>
  %10 = stablehlo.slice %x [0:4:2, 1:5:2] : (tensor<4x8xf32>) -> tensor<2x2xf32>
  %11 = stablehlo.pad %x, %c0, low = [1, 0], high = [1, 1], interior = [0, 0] : (tensor<4x8xf32>, tensor<f32>) -> tensor<6x9xf32>
  %12 = stablehlo.iota dim = 0 : tensor<4xi32>
  %13 = stablehlo.floor %9 : tensor<4x8xf32>
  %14 = stablehlo.power %13, %y : tensor<4x8xf32>
  return %14, %3, %10, %11, %12, %p : tensor<4x8xf32>, tensor<4xf32>, tensor<2x2xf32>, tensor<6x9xf32>, tensor<4xi32>, tensor<4x8xi1>
}
