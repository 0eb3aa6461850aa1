// A sequence-first linear (torch's export of nn.TransformerEncoderLayer, batch 1): the product
// runs as one 128x768 by 768x256 product, not 128 one-row products padded to 32-row tiles.
// RUN: %tilesat opt %s --device wormhole_b0 --emit plan | FileCheck %s
// CHECK: = reshape(%x) ->
// CHECK: = matmul(
// CHECK: = reshape(
// CHECK: total: {{[0-9]+}}.{{[0-9]+}} us predicted
// Without the rule set, the padded batched product costs more (71.7 against 88.0 us here).
// RUN: %tilesat opt %s --device wormhole_b0 --rule-set canonical --rule-set layout-choice --emit plan | FileCheck %s --check-prefix=PADDED
// PADDED-NOT: reshape
// PADDED: = matmul(%x.l1, %w.l1)
// And the values do not change.
// RUN: %tilesat check %s --device wormhole_b0 | FileCheck %s --check-prefix=VALUES
// VALUES: result0 128x1x256: {{.*}} ok
func.func @main(%x: tensor<128x1x768xf32>, %w: tensor<768x256xf32>) -> tensor<128x1x256xf32> {
  %0 = "ttir.matmul"(%x, %w) : (tensor<128x1x768xf32>, tensor<768x256xf32>) -> tensor<128x1x256xf32>
  return %0 : tensor<128x1x256xf32>
}
