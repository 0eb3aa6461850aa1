func.func @main(%arg0: tensor<2x3xf32>, %w: tensor<2x3x3xf32>) -> (tensor<2xi32>, tensor<2x3xf32>) {
  %0 = stablehlo.iota dim = 1 : tensor<2x3xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<2x3xf32>, tensor<2x3xi32>, tensor<f32>, tensor<i32>) -> (tensor<2xf32>, tensor<2xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>)  {
    %2 = stablehlo.compare  GT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %5 = stablehlo.compare  EQ, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = stablehlo.compare  LT, %i, %j,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.and %5, %6 : tensor<i1>
    %8 = stablehlo.or %2, %7 : tensor<i1>
    %9 = stablehlo.select %2, %a, %b : tensor<i1>, tensor<f32>
    %10 = stablehlo.select %8, %i, %j : tensor<i1>, tensor<i32>
    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
  }
  %k = stablehlo.constant dense<0> : tensor<i32>
  %r:3 = stablehlo.while(%it = %k, %h = %arg0, %ws = %w) : tensor<i32>, tensor<2x3xf32>, tensor<2x3x3xf32>
   cond {
    %n = stablehlo.constant dense<2> : tensor<i32>
    %p = stablehlo.compare  LT, %it, %n,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.dynamic_slice %ws, %it, %z, %z, sizes = [1, 3, 3] : (tensor<2x3x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x3x3xf32>
    %m = stablehlo.reshape %s : (tensor<1x3x3xf32>) -> tensor<3x3xf32>
    %y = stablehlo.dot %h, %m : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %q:2 = stablehlo.optimization_barrier %y, %h : tensor<2x3xf32>, tensor<2x3xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %i1 = stablehlo.add %it, %one : tensor<i32>
    stablehlo.return %i1, %q#0, %ws : tensor<i32>, tensor<2x3xf32>, tensor<2x3x3xf32>
  }
  %u = stablehlo.custom_call @Sharding(%r#1) {mhlo.sharding = "{replicated}"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %v = stablehlo.round_nearest_even %u : tensor<2x3xf32>
  return %1#1, %v : tensor<2xi32>, tensor<2x3xf32>
}
