// rotary_embedding of [B, H, S, D] heads (head_dim 22: halves of 11, not whole tiles) with cos
// and sin per position, on the device model.
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s
// CHECK: check @main on wormhole_b0:
// CHECK-NEXT: result0 1x3x37x22: max_abs_err={{.*}} ok

// RUN: %tilesat opt %s --device wormhole_b0 --emit program | FileCheck %s --check-prefix=PROG
// PROG: rotary_embedding(t{{[0-9]+}}, t{{[0-9]+}}, t{{[0-9]+}})

// RUN: not %tilesat print %S/Inputs/rotary_odd.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: 'ttir.rotary_embedding' %0: expected an even head_dim, got 21
func.func @main(%x: tensor<1x3x37x22xf32>, %cos: tensor<1x1x37x22xf32>, %sin: tensor<37x22xf32>) -> tensor<1x3x37x22xf32> {
  %0 = "ttir.rotary_embedding"(%x, %cos, %sin) : (tensor<1x3x37x22xf32>, tensor<1x1x37x22xf32>, tensor<37x22xf32>) -> tensor<1x3x37x22xf32>
  return %0 : tensor<1x3x37x22xf32>
}
