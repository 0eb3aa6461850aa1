module attributes {foo, bar = 3 : i64} {
  func.func @f(%arg0: tensor<1x4xbf16> {ttcore.argument_type = #ttcore.argument_type<parameter>}, %arg1: tensor<4x4xi32>) -> (tensor<4x4xbf16>, tensor<2x4xbf16>) {
    %0 = "ttir.zeros"() <{shape = array<i32: 4, 4>}> : () -> tensor<4x4xbf16>
    %1 = "ttir.full"() <{shape = array<i32: 4, 4>, fill_value = 1 : i32}> : () -> tensor<4x4xbf16>
    %2 = "ttir.broadcast"(%arg0) <{broadcast_dimensions = array<i64: 4, 1>}> : (tensor<1x4xbf16>) -> tensor<4x4xbf16>
    %3 = "ttir.permute"(%2) <{permutation = array<i64: 1, 0>}> : (tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %4 = "ttir.reshape"(%3) <{shape = [16:i32]}> : (tensor<4x4xbf16>) -> tensor<16xbf16>
    %5 = "ttir.reshape"(%4) <{shape = [4 : i32, 4 : i32]}> : (tensor<16xbf16>) -> tensor<4x4xbf16>
    %6 = "ttir.softmax"(%5) <{dimension = 1 : si32, numericStable = false}> : (tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %7 = "ttir.constant"() <{value = dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [1.0, 1.0, 1.0, 1.0], [0x7F800000, 0.0, 0.0, 0.0]]> : tensor<4x4xbf16>}> : () -> tensor<4x4xbf16>
    %8 = "ttir.add"(%6, %7) : (tensor<4x4xbf16>, tensor<4x4xbf16>) -> tensor<4x4xbf16>
    %9 = "ttir.slice"(%8) <{begins = [0 : i32, 0 : i32], ends = [4 : i32, 4 : i32], step = [2 : i32, 1 : i32]}> : (tensor<4x4xbf16>) -> tensor<2x4xbf16>
    %10 = "ttir.concat"(%9, %9) <{dim = 0 : si32}> : (tensor<2x4xbf16>, tensor<2x4xbf16>) -> tensor<4x4xbf16>
    %11 = "ttir.typecast"(%arg1) : (tensor<4x4xi32>) -> tensor<4x4xbf16>
    %12 = ttir.maximum %10, %11 : tensor<4x4xbf16>, tensor<4x4xbf16> -> tensor<4x4xbf16>
    return %12, %9 : tensor<4x4xbf16>, tensor<2x4xbf16>
  }
}
