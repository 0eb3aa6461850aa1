// An embedding lookup (take on a [V, H] table by [B, S] i32 ids; the random ids lie in
// [-8, 8]) and an attention-style mask: where(lt(x, y), x, -1e4) with broadcasting; the
// second where takes a constant, which the plan holds as a leaf and the program computes
// with a `constant` op before everything else.
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s
// CHECK: check @main on wormhole_b0:
// CHECK-NEXT: result0 2x5x40: max_abs_err={{.*}} ok
// CHECK-NEXT: result1 2x5x40: max_abs_err={{.*}} ok
// CHECK-NEXT: result2 2x5x40: max_abs_err={{.*}} ok

// RUN: %tilesat opt %s --device wormhole_b0 --emit program | FileCheck %s --check-prefix=PROG
// PROG: ops (execution order):
// PROG-NEXT: [0] t{{[0-9]+}} = constant()
// PROG: take(t{{[0-9]+}}, t{{[0-9]+}}) dim=0
// PROG: lt(t{{[0-9]+}}, t{{[0-9]+}}) Less lhs_dims=[0,1,2] rhs_dims=[2]
// PROG: where(t{{[0-9]+}}, t{{[0-9]+}}, t{{[0-9]+}})
func.func @main(%table: tensor<16x40xf32>, %ids: tensor<2x5xi32>, %y: tensor<40xf32>) -> (tensor<2x5x40xf32>, tensor<2x5x40xf32>, tensor<2x5x40xf32>) {
  %0 = "ttir.take"(%table, %ids) <{dim = 0 : i64}> : (tensor<16x40xf32>, tensor<2x5xi32>) -> tensor<2x5x40xf32>
  %1 = "ttir.lt"(%0, %y) : (tensor<2x5x40xf32>, tensor<40xf32>) -> tensor<2x5x40xf32>
  %2 = "ttir.full"() <{shape = [1], fill_value = -1.0e+04 : f32}> : () -> tensor<1xf32>
  %3 = "ttir.where"(%1, %0, %2) : (tensor<2x5x40xf32>, tensor<2x5x40xf32>, tensor<1xf32>) -> tensor<2x5x40xf32>
  %4 = "ttir.constant"() <{value = dense<2.5> : tensor<f32>}> : () -> tensor<f32>
  %5 = "ttir.where"(%1, %4, %0) : (tensor<2x5x40xf32>, tensor<f32>, tensor<2x5x40xf32>) -> tensor<2x5x40xf32>
  return %0, %3, %5 : tensor<2x5x40xf32>, tensor<2x5x40xf32>, tensor<2x5x40xf32>
}
