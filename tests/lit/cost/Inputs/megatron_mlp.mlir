// Two MLP blocks, gelu(x @ w) @ w', with weights far larger than the activations (an LLM's MLP
// at a short sequence): on a mesh, Megatron's column-then-row split.
func.func @main(%x: tensor<32x2048xbf16>, %w1: tensor<2048x8192xbf16>, %w2: tensor<8192x2048xbf16>, %w3: tensor<2048x8192xbf16>, %w4: tensor<8192x2048xbf16>) -> tensor<32x2048xbf16> {
  %0 = "ttir.matmul"(%x, %w1) : (tensor<32x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<32x8192xbf16>
  %1 = "ttir.gelu"(%0) : (tensor<32x8192xbf16>) -> tensor<32x8192xbf16>
  %2 = "ttir.matmul"(%1, %w2) : (tensor<32x8192xbf16>, tensor<8192x2048xbf16>) -> tensor<32x2048xbf16>
  %3 = "ttir.matmul"(%2, %w3) : (tensor<32x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<32x8192xbf16>
  %4 = "ttir.gelu"(%3) : (tensor<32x8192xbf16>) -> tensor<32x8192xbf16>
  %5 = "ttir.matmul"(%4, %w4) : (tensor<32x8192xbf16>, tensor<8192x2048xbf16>) -> tensor<32x2048xbf16>
  return %5 : tensor<32x2048xbf16>
}
