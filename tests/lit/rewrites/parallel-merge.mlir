// Parallel merge (multi-pattern rules, opt-in set `parallel-merge`): three linears reading
// one input, Q/K/V style, become one linear on the weights concatenated along the output dim
// (one-time const-eval work, the weights being parameters) and a slice per original value.
// Narrow linears (one 32-column tile each, K = 2048) use three cores apart and the merged one
// runs them side by side. The dynamic program prices a product shared by three slices three
// times, so the merged form is found by exact extraction, which pays shared values once.
// RUN: %tilesat opt %s --device wormhole_b0 --emit plan --rule-set layout-choice --rule-set parallel-merge --weight-args 'arg*,!arg0' --extract-time-limit 20 | FileCheck %s
// CHECK: extracted by z3
// CHECK: = concat(%arg1, %arg3, %arg5) -> {{.*}} | one-time
// CHECK: = concat(%arg2, %arg4, %arg6) -> {{.*}} | one-time
// CHECK: [[Y:%[0-9]+]] = linear(%arg0.l1,
// CHECK-NOT: linear(
// CHECK: = slice([[Y]])
// CHECK: = slice([[Y]])
// CHECK: = slice([[Y]])
// CHECK-NOT: linear(
// CHECK: total: {{[0-9.]+}} us predicted

// Without the set, three linears (and a higher total).
// RUN: %tilesat opt %s --device wormhole_b0 --emit plan --rule-set layout-choice --weight-args 'arg*,!arg0' --extract-time-limit 20 | FileCheck %s --check-prefix=APART
// APART-COUNT-3: = linear(%arg0.l1,
// APART-NOT: slice(

// The merged program runs on the device model and matches the reference interpreter.
// RUN: %tilesat check %s --device wormhole_b0 --rule-set layout-choice --rule-set parallel-merge --weight-args 'arg*,!arg0' --extract-time-limit 20 | FileCheck %s --check-prefix=CHECKED
// CHECKED: check @main on wormhole_b0: 3 ops -> {{[0-9]+}} device ops
// CHECKED-NEXT: result0 1x32x32: {{.*}} ok
// CHECKED-NEXT: result1 1x32x32: {{.*}} ok
// CHECKED-NEXT: result2 1x32x32: {{.*}} ok

module {
  func.func @main(%arg0: tensor<1x32x2048xf32>, %arg1: tensor<2048x32xf32>, %arg2: tensor<32xf32>, %arg3: tensor<2048x32xf32>, %arg4: tensor<32xf32>, %arg5: tensor<2048x32xf32>, %arg6: tensor<32xf32>) -> (tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1x32x32xf32>) {
    %0 = "ttir.linear"(%arg0, %arg1, %arg2) : (tensor<1x32x2048xf32>, tensor<2048x32xf32>, tensor<32xf32>) -> tensor<1x32x32xf32>
    %1 = "ttir.linear"(%arg0, %arg3, %arg4) : (tensor<1x32x2048xf32>, tensor<2048x32xf32>, tensor<32xf32>) -> tensor<1x32x32xf32>
    %2 = "ttir.linear"(%arg0, %arg5, %arg6) : (tensor<1x32x2048xf32>, tensor<2048x32xf32>, tensor<32xf32>) -> tensor<1x32x32xf32>
    return %0, %1, %2 : tensor<1x32x32xf32>, tensor<1x32x32xf32>, tensor<1x32x32xf32>
  }
}
