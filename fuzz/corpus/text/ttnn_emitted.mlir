#any_device = #tt.operand_constraint<any_device>
#dram = #ttnn.buffer_type<dram>
#l1 = #ttnn.buffer_type<l1>
#ttnn_layout = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<32x128xf32, #dram>, <interleaved>>
#ttnn_layout1 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<256x128xf32, #dram>, <interleaved>>
#ttnn_layout2 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x256xf32, #dram>, <interleaved>>
#ttnn_layout3 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<10x256xf32, #dram>, <interleaved>>
#ttnn_layout4 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x10xf32, #dram>, <interleaved>>
#ttnn_layout5 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout6 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x4x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout7 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<8x4x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout8 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x8x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout9 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x8x!ttcore.tile<32x32, f32>, #l1>, <interleaved>>
#ttnn_layout10 = #ttnn.ttnn_layout<(d0, d1) -> (d0, d1), <1x1>, memref<1x8x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>
#ttnn_layout11 = #ttnn.ttnn_layout<(d0) -> (0, d0), <1x1>, memref<1x1x!ttcore.tile<32x32, f32>, #dram>, <interleaved>>

module @simple_mlp attributes {tt.system_desc = #tt.system_desc<...>} {
  // @main on wormhole_b0: 7 device ops, 57.04 us predicted
  func.func @main(%arg0: tensor<32x128xf32, #ttnn_layout>, %arg1: tensor<256x128xf32, #ttnn_layout1>, %arg2: tensor<256xf32, #ttnn_layout2>, %arg3: tensor<10x256xf32, #ttnn_layout3>, %arg4: tensor<10xf32, #ttnn_layout4>) -> tensor<32x10xf32, #ttnn_layout5> {
    %0 = "ttnn.to_layout"(%arg0) <{layout = #ttnn.layout<tile>}> : (tensor<32x128xf32, #ttnn_layout>) -> tensor<32x128xf32, #ttnn_layout6>
    %1 = "ttnn.to_layout"(%arg1) <{layout = #ttnn.layout<tile>}> : (tensor<256x128xf32, #ttnn_layout1>) -> tensor<256x128xf32, #ttnn_layout7>
    %2 = "ttnn.to_layout"(%arg2) <{layout = #ttnn.layout<tile>}> : (tensor<256xf32, #ttnn_layout2>) -> tensor<256xf32, #ttnn_layout8>
    %3 = "ttnn.linear"(%0, %1, %2) <{activation = "relu", transpose_a = false, transpose_b = true}> : (tensor<32x128xf32, #ttnn_layout6>, tensor<256x128xf32, #ttnn_layout7>, tensor<256xf32, #ttnn_layout8>) -> tensor<32x256xf32, #ttnn_layout9>
    %4 = "ttnn.to_layout"(%arg3) <{layout = #ttnn.layout<tile>}> : (tensor<10x256xf32, #ttnn_layout3>) -> tensor<10x256xf32, #ttnn_layout10>
    %5 = "ttnn.to_layout"(%arg4) <{layout = #ttnn.layout<tile>}> : (tensor<10xf32, #ttnn_layout4>) -> tensor<10xf32, #ttnn_layout11>
    %6 = "ttnn.linear"(%3, %4, %5) <{transpose_a = false, transpose_b = true}> : (tensor<32x256xf32, #ttnn_layout9>, tensor<10x256xf32, #ttnn_layout10>, tensor<10xf32, #ttnn_layout11>) -> tensor<32x10xf32, #ttnn_layout5>
    return %6 : tensor<32x10xf32, #ttnn_layout5>
  }
}
