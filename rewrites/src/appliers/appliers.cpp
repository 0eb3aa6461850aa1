// appliers.cpp: the table of computed right sides rule files may call as `@name(args)`.
#include "applier_impl.h"
#include "tilesat/rewrites/builtins.h"

namespace tilesat::rewrites {
namespace {

using P = ParamKind;

const std::vector<ApplierDef>& table() {
  static const std::vector<ApplierDef> t = {
      {"compose-permutations",
       {P::Tensor, P::Attr, P::Attr},
       "(?x, ?inner, ?outer): permute(permute(?x, ?inner), ?outer) as one permute, or ?x when "
       "they cancel",
       appliers::compose_permutations},
      {"compose-broadcasts",
       {P::Tensor, P::Attr, P::Attr, P::Attr, P::Attr},
       "(?x, ?inner_shape, ?inner_dims, ?shape, ?dims): two broadcasts as one",
       appliers::compose_broadcasts},
      {"softmax-from-sum",
       {P::Tensor, P::Attr},
       "(?x, ?dims): softmax over the one reduced dim of ?dims",
       appliers::softmax_from_sum},
      {"chain-as-reshape",
       {P::Tensor, P::Attr, P::Attr, P::Attr},
       "(?x, ?p, ?shape, ?q): permute(reshape(permute(?x, ?p), ?shape), ?q) as one reshape of "
       "?x when it keeps every element's row-major position",
       appliers::chain_as_reshape},
      {"fuse-eltwise",
       {P::Tensor},
       "(?x): an elementwise op of ?x with its single-use elementwise producers as one "
       "fused_eltwise, within seed 001's circular-buffer limits",
       appliers::fuse_eltwise},
      {"layer-norm",
       {P::Tensor, P::Attr, P::Tensor},
       "(?x, ?dims, ?eps): layer_norm of ?x when ?dims are its trailing dims and ?eps a splat",
       appliers::layer_norm_plain},
      {"layer-norm-affine",
       {P::Tensor, P::Attr, P::Tensor, P::Tensor, P::Tensor},
       "(?x, ?dims, ?eps, ?scale, ?bias): layer_norm of ?x with scale and bias",
       appliers::layer_norm_affine},
      {"rms-norm",
       {P::Tensor, P::Attr, P::Tensor},
       "(?x, ?dims, ?eps): rms_norm of ?x when ?dims are its trailing dims and ?eps a splat",
       appliers::rms_norm},
      {"conv-with-bias",
       {P::Tensor, P::Tensor, P::Tensor, P::Attr, P::Attr, P::Attr, P::Attr, P::Attr, P::Attr,
        P::Attr, P::Attr},
       "(?x, ?w, ?bias, ?stride, ?padding, ?dilation, ?groups, ?batch_dim, ?height_dim, "
       "?width_dim, ?channel_dim): conv2d with ?bias, which varies along the channel dim only: "
       "an NCHW conv's [C, 1, 1] or [1, C, 1, 1] bias becomes its [C] bias operand, any other "
       "layout's [1, .., C, ..] bias (C at the channel dim, e.g. NHWC's 1x1x1xC) is used as is",
       appliers::conv_with_bias},
      {"flat-image",
       {P::Tensor},
       "(?x): the matched NCHW conv2d, max_pool2d or avg_pool2d of ?x on ttnn's flattened NHWC "
       "image: ?x permuted to NHWC and reshaped to [1, 1, N*H*W, C], the op with batch_size, "
       "input_height and input_width, its [1, 1, N*OH*OW, C'] result reshaped and permuted "
       "back to NCHW",
       appliers::as_flat_image},
      {"global-pool",
       {P::Tensor, P::Attr},
       "(?x, ?dims): the matched mean of NCHW ?x over H and W (?dims [2, 3]) as an avg_pool2d "
       "over the whole H x W plane of the flattened NHWC image, reshaped to the mean's shape",
       appliers::mean_as_global_pool},
      {"split-heads",
       {P::Tensor, P::Attr, P::Attr, P::Attr, P::Attr},
       "(?x, ?begins, ?ends, ?i, ?j): the matched permute (?i = ?j its permutation) or transpose "
       "(?i, ?j its dims) of a reshape of a slice of ?x [B, S, W], as split_heads of ?x when "
       "the slice is one of W / (H * D) equal parts of the last dim, the reshape splits it into "
       "[B, S, H, D] and the permute makes it [B, H, S, D] (or [B, H, D, S]: transpose)",
       appliers::split_heads},
      {"concatenate-heads",
       {P::Tensor, P::Attr, P::Attr},
       "(?x, ?i, ?j): the matched reshape of a permute (?i = ?j its permutation) or transpose "
       "(?i, ?j its dims) of ?x [B, H, S, D] as concatenate_heads of ?x, when the permute makes "
       "it [B, S, H, D] and the reshape [B, S, H * D]",
       appliers::concatenate_heads},
      {"attention",
       {P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Attr, P::Attr},
       "(?q, ?kt, ?v, ?s, ?dim, ?divided): the matched softmax(q kt, scaled by the splat ?s: "
       "divided by it when ?divided) v, softmax over the scores' last dim ?dim, as "
       "scaled_dot_product_attention of ?q, kt transposed back and ?v",
       appliers::attention_plain},
      {"attention-masked",
       {P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Attr, P::Attr, P::Tensor},
       "(?q, ?kt, ?v, ?s, ?dim, ?divided, ?mask): as @attention with ?mask added to the scaled "
       "scores",
       appliers::attention_masked},
      {"attention-selected",
       {P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Attr, P::Attr, P::Tensor, P::Tensor},
       "(?q, ?kt, ?v, ?s, ?dim, ?divided, ?cond, ?fill): as @attention with the scaled scores "
       "kept where ?cond is nonzero and the splat ?fill elsewhere",
       appliers::attention_selected},
      {"rotary-embedding",
       {P::Tensor, P::Tensor, P::Tensor, P::Attr, P::Attr, P::Attr, P::Attr, P::Attr},
       "(?x, ?cos, ?sin, ?dim, ?b1, ?e1, ?b2, ?e2): rotary_embedding of ?x when the matched concat "
       "along the last dim ?dim joins the negated second half (slice ?b1..?e1) and the first half "
       "(slice ?b2..?e2) of ?x",
       appliers::rotary_embedding},
      {"fold-batch-rows",
       {P::Tensor, P::Tensor},
       "(?a, ?b): the matched matmul or linear of a batched ?a by a 2-D ?b as one 2-D product "
       "of ?a reshaped to rows x K, reshaped back (a bias varying along the last dim only)",
       appliers::fold_batch_rows},
      {"unit-dims-reshape",
       {P::Tensor, P::Attr},
       "(?x, ?p): the matched permute (?p its permutation) or transpose (?p unused) of ?x as a "
       "reshape, when it moves only dims of extent 1",
       appliers::unit_dims_reshape},
      {"fold-rows",
       {P::Tensor},
       "(?x): the matched row-wise op (a slice of the last dim only; softmax, layer_norm or "
       "rms_norm over the last dim; a sum, mean or max over it; a typecast) of a reshape of ?x "
       "that keeps the last dim, as the op on ?x reshaped back, when ?x pads fewer tiles (a "
       "norm's scale and bias vary along the last dim only)",
       appliers::fold_rows},
      {"fold-rows-binary",
       {P::Tensor, P::Tensor, P::Attr},
       "(?x, ?other, ?i): the matched elementwise binary op whose operand ?i is a reshape of ?x "
       "keeping the last dim, as the op on ?x reshaped back, when ?x pads fewer tiles; ?other "
       "varies along the last dim only, or has the reshaped shape and is reshaped like ?x",
       appliers::fold_rows_binary},
      {"split-rows",
       {P::Tensor},
       "(?x): the matched op as two halves of its rows (operand ?x's second-to-last dim, whole "
       "tiles), concatenated; for a matmul or linear by a 2-D weight, an elementwise op, or a "
       "softmax or layer_norm that does not mix rows",
       appliers::split_rows},
      {"split-cols",
       {P::Tensor, P::Tensor},
       "(?a, ?b): the matched matmul or linear of ?a by a 2-D ?b as two halves of ?b's columns "
       "(and of a bias along them), concatenated",
       appliers::split_cols},
      {"split-inner",
       {P::Tensor, P::Tensor},
       "(?a, ?b): the matched matmul of ?a by a 2-D ?b as the sum of the products of the halves "
       "of the inner dim",
       appliers::split_inner},
      {"split-batch",
       {P::Tensor},
       "(?x): the matched conv2d as two halves of its batch, concatenated",
       appliers::split_batch},
      {"merge-matmuls",
       {P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Attr},
       "(?p, ?q, ?x, ?w1, ?w2, ?t): ?p = matmul(?x, ?w1) and ?q = matmul(?x, ?w2) (transpose_b "
       "?t) as column slices of one matmul of ?x by the weights concatenated along their output "
       "dim (weights equal but for it)",
       appliers::merge_matmuls},
      {"merge-linears",
       {P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Attr,
        P::Attr},
       "(?p, ?q, ?x, ?w1, ?b1, ?w2, ?b2, ?t, ?act): as merge-matmuls for two linears with "
       "biases holding one entry per output column (concatenated too) and one activation",
       appliers::merge_linears},
      {"merge-linears-no-bias",
       {P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Attr, P::Attr},
       "(?p, ?q, ?x, ?w1, ?w2, ?t, ?act): as merge-linears for two linears without bias",
       appliers::merge_linears_no_bias},
      {"merge-convs",
       {P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor},
       "(?p, ?q, ?x, ?w1, ?w2): ?p = conv2d(?x, ?w1) and ?q = conv2d(?x, ?w2) with one set of "
       "attributes (groups 1) as channel slices of one conv2d by the weights concatenated along "
       "their output channels",
       appliers::merge_convs},
      {"merge-convs-bias",
       {P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor, P::Tensor},
       "(?p, ?q, ?x, ?w1, ?b1, ?w2, ?b2): as merge-convs with the biases concatenated too",
       appliers::merge_convs_bias},
      {"compose-slices",
       {P::Tensor, P::Attr, P::Attr, P::Attr, P::Attr},
       "(?x, ?b0, ?e0, ?b1, ?e1): slice(slice(?x, ?b0, ?e0), ?b1, ?e1) (unit steps) as one "
       "slice of ?x",
       appliers::compose_slices},
  };
  return t;
}

} // namespace

std::span<const ApplierDef> all_appliers() {
  return table();
}

const ApplierDef* find_applier(std::string_view name) {
  for (const ApplierDef& a : table()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

} // namespace tilesat::rewrites
