// rms_norm over the last dim with a weight, in bf16, on the device model.
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s
// CHECK: check @main on wormhole_b0:
// CHECK-NEXT: result0 2x37x70: max_abs_err={{.*}} tolerance=0.00781 (bf16) ok

// RUN: %tilesat opt %s --device wormhole_b0 --emit program | FileCheck %s --check-prefix=PROG
// PROG: rms_norm(t{{[0-9]+}}, t{{[0-9]+}}) axis=2 epsilon=1e-06 weight
func.func @main(%x: tensor<2x37x70xbf16>, %weight: tensor<70xbf16>) -> tensor<2x37x70xbf16> {
  %0 = "ttir.rms_norm"(%x, %weight) <{axis = -1 : i64, epsilon = 1.0e-06 : f32}> : (tensor<2x37x70xbf16>, tensor<70xbf16>) -> tensor<2x37x70xbf16>
  return %0 : tensor<2x37x70xbf16>
}
