// A permute and a reshape of host data the shipped layout-choice set may keep row-major.
func.func @main(%x: tensor<3x50x70xf32>, %w: tensor<70x96xf32>) -> tensor<150x96xf32> {
  %0 = "ttir.permute"(%x) <{permutation = array<i64: 1, 0, 2>}> : (tensor<3x50x70xf32>) -> tensor<50x3x70xf32>
  %1 = "ttir.reshape"(%0) <{shape = [150 : i32, 70 : i32]}> : (tensor<50x3x70xf32>) -> tensor<150x70xf32>
  %2 = "ttir.matmul"(%1, %w) : (tensor<150x70xf32>, tensor<70x96xf32>) -> tensor<150x96xf32>
  return %2 : tensor<150x96xf32>
}
