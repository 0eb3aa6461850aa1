// tt-mlir ops outside tilesat's op table (docs/text-format.md, "tt-mlir ops read as
// compositions"), as a model's TTIR writes them: each is expanded into table ops as it is
// read, the whole function plans, lowers and runs on the device model, and its results match
// the reference interpreter. Types tilesat reads as the nearest of its own (si64 indices as
// i32) are accepted.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat print %s > %t1 && %tilesat print - < %t1 > %t2 && diff %t1 %t2
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK-LABEL: func.func @main
// The embedding is a take of the table's rows; the si64 indices are read as i32.
// CHECK-SAME: %arg1: tensor<1x32xi32> {ttir.name = "ids"}
// CHECK: "ttir.take"(%arg2, %arg1)
// clamp_scalar: a maximum and a minimum against scalar constants.
// CHECK: "ttir.maximum"
// CHECK: "ttir.minimum"
// unsqueeze is a reshape; repeat_interleave over an extent of 1 a broadcast.
// CHECK: "ttir.reshape"{{.*}} -> tensor<1x1x32x64xbf16>
// CHECK: "ttir.broadcast"{{.*}} -> tensor<1x2x32x64xbf16>
// batch_norm_inference: per-channel operands broadcast along dim 1.
// CHECK: "ttir.rsqrt"
// CHECK: "ttir.subtract"({{.*}}) <{broadcast_dims = [1 : i32]}>
// argmax ends in the declared integer type.
// CHECK: "ttir.typecast"({{.*}}) <{dtype = i32}> : (tensor<1x2x32xf32>) -> tensor<1x2x32xi32>
// ge: the maximum of gt and eq.
// CHECK: %[[GT:[0-9]+]] = "ttir.gt"
// CHECK: %[[EQ:[0-9]+]] = "ttir.eq"
// CHECK: %[[GE:[0-9]+]] = "ttir.maximum"(%[[GT]], %[[EQ]])
// CHECK: "ttir.where"(%[[GE]],

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 1x2x32x64: {{.*}} ok{{$}}
// CHECKED-NEXT: result1 1x2x32: {{.*}} ok{{$}}
// CHECKED-NEXT: result2 1x2x32x64: {{.*}} ok{{$}}
module {
  func.func @main(%x: tensor<1x32x64xbf16>, %ids: tensor<1x32xsi64>, %emb: tensor<100x64xbf16>, %scale: tensor<2xbf16>, %offset: tensor<2xbf16>, %mean: tensor<2xbf16>, %v: tensor<2xbf16>) -> (tensor<1x2x32x64xbf16>, tensor<1x2x32xsi32>, tensor<1x2x32x64xbf16>) {
    %0 = "ttir.embedding"(%ids, %emb) : (tensor<1x32xsi64>, tensor<100x64xbf16>) -> tensor<1x32x64xbf16>
    %1 = "ttir.add"(%0, %x) : (tensor<1x32x64xbf16>, tensor<1x32x64xbf16>) -> tensor<1x32x64xbf16>
    %2 = "ttir.clamp_scalar"(%1) <{max = 1.000000e+00 : f32, min = -1.000000e+00 : f32}> : (tensor<1x32x64xbf16>) -> tensor<1x32x64xbf16>
    %3 = "ttir.leaky_relu"(%2) <{parameter = 2.000000e-01 : f32}> : (tensor<1x32x64xbf16>) -> tensor<1x32x64xbf16>
    %4 = "ttir.unsqueeze"(%3) <{dim = 0 : si32}> : (tensor<1x32x64xbf16>) -> tensor<1x1x32x64xbf16>
    %5 = "ttir.repeat_interleave"(%4) <{dim = 1 : si32, repeats = 2 : ui32}> : (tensor<1x1x32x64xbf16>) -> tensor<1x2x32x64xbf16>
    %var = "ttir.square"(%v) : (tensor<2xbf16>) -> tensor<2xbf16>
    %6 = "ttir.batch_norm_inference"(%5, %scale, %offset, %mean, %var) <{dimension = 1 : i32, epsilon = 9.99999974E-6 : f32}> : (tensor<1x2x32x64xbf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>, tensor<2xbf16>) -> tensor<1x2x32x64xbf16>
    %7 = "ttir.argmax"(%6) <{dim_arg = [3 : i32], keep_dim = false}> : (tensor<1x2x32x64xbf16>) -> tensor<1x2x32xsi32>
    %8 = "ttir.ge"(%6, %5) : (tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16>) -> tensor<1x2x32x64xbf16>
    %9 = "ttir.where"(%8, %6, %5) : (tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16>, tensor<1x2x32x64xbf16>) -> tensor<1x2x32x64xbf16>
    return %6, %7, %9 : tensor<1x2x32x64xbf16>, tensor<1x2x32xsi32>, tensor<1x2x32x64xbf16>
  }
}
