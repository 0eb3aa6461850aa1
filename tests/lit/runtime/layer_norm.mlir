// layer_norm over the last dim with scale and bias, in bf16, on the device model.
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s
// CHECK: check @main on wormhole_b0:
// CHECK-NEXT: result0 2x37x70: max_abs_err={{.*}} tolerance=0.00781 (bf16) ok

// RUN: %tilesat opt %s --device wormhole_b0 --emit program | FileCheck %s --check-prefix=PROG
// PROG: layer_norm(t{{[0-9]+}}, t{{[0-9]+}}, t{{[0-9]+}}) axis=2 epsilon=1e-05 scale bias
func.func @main(%x: tensor<2x37x70xbf16>, %scale: tensor<70xbf16>, %bias: tensor<70xbf16>) -> tensor<2x37x70xbf16> {
  %0 = "ttir.layer_norm"(%x, %scale, %bias) <{axis = -1 : i64, epsilon = 1.0e-05 : f32}> : (tensor<2x37x70xbf16>, tensor<70xbf16>, tensor<70xbf16>) -> tensor<2x37x70xbf16>
  return %0 : tensor<2x37x70xbf16>
}
