// collective.cpp: the multi-chip ops (mesh_shard, all_gather, reduce_scatter, all_reduce):
// their types on one chip, and their plain-interpreter meaning, which exists only when the
// op's group is one chip (interpret_mesh runs them on a mesh; see spmd.h).
#include "ops/op_impl.h"
#include "tilesat/graph/spmd.h"

#include <fmt/format.h>

namespace tilesat::ops {

namespace {

// cluster_axis (0 or 1), and cluster_size (>= 1) when the op has one.
void check_cluster(const Attrs& attrs) {
  int64_t axis = attrs.get<int64_t>("cluster_axis");
  if (axis != 0 && axis != 1) {
    fail(fmt::format("expected cluster_axis 0 or 1 (a mesh axis), got {}", axis));
  }
  if (const auto* n = std::get_if<int64_t>(attrs.find("cluster_size")); n != nullptr && *n < 1) {
    fail(fmt::format("expected cluster_size >= 1, got {}", *n));
  }
}

void check_sum(const Attrs& attrs) {
  const auto& r = attrs.get<std::string>("reduce_type");
  if (r != "sum") fail(fmt::format("expected reduce_type sum (the only one supported), got {}", r));
}

TensorType plain(const TensorType& t) {
  return TensorType{t.dtype, t.shape, {}};
}

// The operand unchanged when `one_chip`, else an error naming `op`.
Tensor identity_or_fail(const EvalArgs& a, bool one_chip, std::string_view op) {
  if (!one_chip) {
    throw Error(fmt::format("'ttir.{}' combines the values of several chips; evaluate a mesh "
                            "program with interpret_mesh (or tilesat check --device <mesh>)",
                            op));
  }
  return *a.operands[0];
}

// The operand's type with the dim named by `dim_attr` multiplied (all_gather: `gather`) or
// divided (reduce_scatter) by cluster_size.
TensorType resize_dim(const InferArgs& a, std::string_view dim_attr, bool gather) {
  check_cluster(a.attrs);
  TensorType t = plain(*a.operands[0]);
  int64_t d = axis_or_fail(a.attrs.get<int64_t>(dim_attr), t.shape.rank(), dim_attr);
  int64_t n = a.attrs.get<int64_t>("cluster_size");
  std::vector<int64_t> dims = t.shape.dims();
  int64_t& extent = dims[static_cast<size_t>(d)];
  if (gather) {
    extent *= n;
  } else if (extent % n != 0) {
    fail(fmt::format("expected scatter_dim {} (extent {}) to split into {} equal pieces (the "
                     "cluster_size)",
                     d, extent, n));
  } else {
    extent /= n;
  }
  t.shape = Shape(dims);
  return t;
}

} // namespace

TensorType infer_mesh_shard(const InferArgs& a) {
  const TensorType& x = *a.operands[0];
  MeshShardSpec s = mesh_shard_spec(a.attrs, x.shape.rank());
  std::vector<int64_t> dims = x.shape.dims();
  for (size_t d = 0; d < dims.size(); ++d) {
    int64_t p = s.shard_shape[d];
    if (s.direction == ShardDirection::ShardToFull) {
      dims[d] *= p;
    } else if (dims[d] % p != 0) {
      fail(fmt::format("expected dim {} (extent {}) to split into {} equal shards", d, dims[d], p));
    } else {
      dims[d] /= p;
    }
  }
  return TensorType{x.dtype, Shape(dims), {}};
}

Tensor eval_mesh_shard(const EvalArgs& a) {
  bool one = true;
  for (int64_t p : a.attrs.get<std::vector<int64_t>>("shard_shape")) one = one && p == 1;
  return identity_or_fail(a, one, "mesh_shard");
}

TensorType infer_all_gather(const InferArgs& a) {
  return resize_dim(a, "all_gather_dim", true);
}

Tensor eval_all_gather(const EvalArgs& a) {
  return identity_or_fail(a, a.attrs.get<int64_t>("cluster_size") == 1, "all_gather");
}

TensorType infer_reduce_scatter(const InferArgs& a) {
  check_sum(a.attrs);
  return resize_dim(a, "scatter_dim", false);
}

Tensor eval_reduce_scatter(const EvalArgs& a) {
  return identity_or_fail(a, a.attrs.get<int64_t>("cluster_size") == 1, "reduce_scatter");
}

TensorType infer_all_reduce(const InferArgs& a) {
  check_cluster(a.attrs);
  check_sum(a.attrs);
  return plain(*a.operands[0]);
}

Tensor eval_all_reduce(const EvalArgs& a) {
  return identity_or_fail(a, false, "all_reduce");
}

} // namespace tilesat::ops
