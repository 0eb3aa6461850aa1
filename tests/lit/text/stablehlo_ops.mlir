// StableHLO as JAX exports it (jax.jit(f).lower(x).as_text()), beyond seed 000's subset: a
// softmax written with reduce max / exponential / reduce add / divide, a causal mask from two
// iotas and a compare feeding a select, a slice, a pad and a clamp. Every op is converted to
// TTIR as it is read (docs/text-format.md, "StableHLO conversion"); the function plans, lowers
// and runs on the device model, and its results match the reference interpreter.
// RUN: %tilesat print %s | FileCheck %s
// RUN: %tilesat print %s > %t1 && %tilesat print - < %t1 > %t2 && diff %t1 %t2
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=CHECKED

// CHECK-LABEL: module @jit_masked_softmax
// The max reduce with JAX's -inf init value is a max alone.
// CHECK: "ttir.max"(%arg0) <{dim_arg = [1 : i32]}> : (tensor<32x64xf32>) -> tensor<32xf32>
// CHECK: "ttir.exp"
// The add reducer region is a sum.
// CHECK: "ttir.sum"({{.*}}) <{dim_arg = [1 : i32]}> : (tensor<32x64xf32>) -> tensor<32xf32>
// CHECK: "ttir.divide"
// The iotas are constants; GE is the maximum of gt and eq, 1 or 0 in
// the operands' i32 (the declared i1 is read as i32: no typecast).
// CHECK: "ttir.constant"() <{value = dense<[0.000000e+00, 1.000000e+00, {{.*}}, 3.100000e+01]> : tensor<32xi32>}>
// CHECK: "ttir.constant"() <{value = dense<[0.000000e+00, 1.000000e+00, {{.*}}, 6.300000e+01]> : tensor<64xi32>}>
// CHECK: %[[ROW:[0-9]+]] = "ttir.broadcast"
// CHECK: %[[COL:[0-9]+]] = "ttir.broadcast"
// CHECK: %[[GT:[0-9]+]] = "ttir.gt"(%[[ROW]], %[[COL]])
// CHECK: %[[EQ:[0-9]+]] = "ttir.eq"(%[[ROW]], %[[COL]])
// CHECK: %[[GE:[0-9]+]] = "ttir.maximum"(%[[GT]], %[[EQ]])
// CHECK: "ttir.where"(%[[GE]],
// CHECK: "ttir.slice"({{.*}}) <{begins = [0 : i32, 0 : i32], ends = [32 : i32, 32 : i32], step = [1 : i32, 1 : i32]}>
// The pad's value is read from its constant; the blocks are concatenated.
// CHECK: "ttir.full"() <{dtype = f32, fill_value = 0.000000e+00 : f32, shape = array<i32: 32, 32>}>
// CHECK: "ttir.concat"
// CHECK: "ttir.maximum"
// CHECK: "ttir.minimum"

// CHECKED: check @main on wormhole_b0:
// CHECKED-NEXT: result0 32x64: {{.*}} ok{{$}}
// CHECKED-NEXT: result1 32x64: {{.*}} ok{{$}}
module @jit_masked_softmax attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<32x64xf32> {mhlo.layout_mode = "default"}) -> (tensor<32x64xf32> {jax.result_info = "[0]"}, tensor<32x64xf32> {jax.result_info = "[1]"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<32xf32>) -> tensor<32x64xf32>
    %2 = stablehlo.subtract %arg0, %1 : tensor<32x64xf32>
    %3 = stablehlo.exponential %2 : tensor<32x64xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) across dimensions = [1] : (tensor<32x64xf32>, tensor<f32>) -> tensor<32xf32>
     reducer(%arg1: tensor<f32>, %arg2: tensor<f32>)  {
      %22 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %22 : tensor<f32>
    }
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<32xf32>) -> tensor<32x64xf32>
    %6 = stablehlo.divide %3, %5 : tensor<32x64xf32>
    %i = stablehlo.iota dim = 0 : tensor<32xi32>
    %j = stablehlo.iota dim = 0 : tensor<64xi32>
    %7 = stablehlo.broadcast_in_dim %i, dims = [0] : (tensor<32xi32>) -> tensor<32x64xi32>
    %8 = stablehlo.broadcast_in_dim %j, dims = [1] : (tensor<64xi32>) -> tensor<32x64xi32>
    %9 = stablehlo.compare  GE, %7, %8,  SIGNED : (tensor<32x64xi32>, tensor<32x64xi32>) -> tensor<32x64xi1>
    %10 = stablehlo.select %9, %6, %arg0 : tensor<32x64xi1>, tensor<32x64xf32>
    %11 = stablehlo.slice %10 [0:32, 0:32] : (tensor<32x64xf32>) -> tensor<32x32xf32>
    %12 = stablehlo.pad %11, %cst_0, low = [0, 0], high = [0, 32], interior = [0, 0] : (tensor<32x32xf32>, tensor<f32>) -> tensor<32x64xf32>
    %cst_1 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.clamp %cst_1, %arg0, %cst_2 : (tensor<f32>, tensor<32x64xf32>, tensor<f32>) -> tensor<32x64xf32>
    %14 = stablehlo.add %12, %13 : tensor<32x64xf32>
    return %10, %14 : tensor<32x64xf32>, tensor<32x64xf32>
  }
}
