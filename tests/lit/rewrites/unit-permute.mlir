// A permute that moves only a unit dim (a sequence-first export's 128x1x768 -> 1x128x768) is a
// reshape; reshapes move below elementwise ops and collapse, so the chain needs one reshape.
// RUN: %tilesat opt %s --rule-set unit-dims --rule-set canonical | FileCheck %s
// CHECK: func.func @main
// CHECK-NOT: ttir.permute
// CHECK: "ttir.relu"(%arg0)
// CHECK-NEXT: "ttir.reshape"
// CHECK-NOT: ttir.reshape
// CHECK: return
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=VALUES
// VALUES: result0 128x768: {{.*}} ok
func.func @main(%x: tensor<128x1x768xf32>) -> tensor<128x768xf32> {
  %0 = "ttir.permute"(%x) <{permutation = array<i64: 1, 0, 2>}> : (tensor<128x1x768xf32>) -> tensor<1x128x768xf32>
  %1 = "ttir.relu"(%0) : (tensor<1x128x768xf32>) -> tensor<1x128x768xf32>
  %2 = "ttir.reshape"(%1) <{shape = [128 : i32, 768 : i32]}> : (tensor<1x128x768xf32>) -> tensor<128x768xf32>
  return %2 : tensor<128x768xf32>
}
