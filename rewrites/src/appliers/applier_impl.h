// applier_impl.h: private to rewrites/: the computed right sides, one file per rule family;
// appliers.cpp registers them by name.
#pragma once

#include "tilesat/rewrites/match_context.h"

namespace tilesat::rewrites::appliers {

// Helpers shared by the families (split.cpp, flat_images.cpp).
/// `x` sliced to [begin, end) along `dim` (kNoId when ill-typed).
egraph::Id slice_along(ApplyContext& c, egraph::Id x, int64_t dim, int64_t begin, int64_t end);
/// `x` reshaped to `shape` (kNoId when `x` is or the reshape is ill-typed).
egraph::Id add_reshape(ApplyContext& c, egraph::Id x, const std::vector<int64_t>& shape);
// unit_dims.cpp
/// The permutation of a transpose of dims `d0` and `d1` (negative count from the end) over
/// `rank` dims, or nullopt when a dim is out of range.
std::optional<std::vector<int64_t>> swap_permutation(int64_t d0, int64_t d1, int64_t rank);

// data_movement.cpp
egraph::Id compose_permutations(ApplyContext& c);
egraph::Id compose_broadcasts(ApplyContext& c);
egraph::Id softmax_from_sum(ApplyContext& c);
egraph::Id chain_as_reshape(ApplyContext& c);

// model_fusion.cpp
egraph::Id layer_norm_plain(ApplyContext& c);
egraph::Id layer_norm_affine(ApplyContext& c);
egraph::Id rms_norm(ApplyContext& c);
egraph::Id conv_with_bias(ApplyContext& c);

// attention.cpp
egraph::Id split_heads(ApplyContext& c);
egraph::Id concatenate_heads(ApplyContext& c);
egraph::Id attention_plain(ApplyContext& c);
egraph::Id attention_masked(ApplyContext& c);
egraph::Id attention_selected(ApplyContext& c);
egraph::Id rotary_embedding(ApplyContext& c);

// flat_images.cpp
egraph::Id as_flat_image(ApplyContext& c);
egraph::Id mean_as_global_pool(ApplyContext& c);
// eltwise_fusion.cpp
egraph::Id fuse_eltwise(ApplyContext& c);

// unit_dims.cpp
egraph::Id fold_batch_rows(ApplyContext& c);
egraph::Id unit_dims_reshape(ApplyContext& c);
// fold_rows.cpp
egraph::Id fold_rows(ApplyContext& c);
egraph::Id fold_rows_binary(ApplyContext& c);
// split.cpp
egraph::Id split_rows(ApplyContext& c);
egraph::Id split_cols(ApplyContext& c);
egraph::Id split_inner(ApplyContext& c);
egraph::Id split_batch(ApplyContext& c);

// merge_parallel.cpp
egraph::Id merge_matmuls(ApplyContext& c);
egraph::Id merge_linears(ApplyContext& c);
egraph::Id merge_linears_no_bias(ApplyContext& c);
egraph::Id merge_convs(ApplyContext& c);
egraph::Id merge_convs_bias(ApplyContext& c);
egraph::Id compose_slices(ApplyContext& c);

} // namespace tilesat::rewrites::appliers
