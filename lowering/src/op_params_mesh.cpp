// op_params_mesh.cpp: the parameters of the multi-chip ops: mesh_shard (its spec from
// graph/spmd.h) and the collectives, with dims normalized.
#include "op_params.h"
#include "tilesat/graph/spmd.h"

namespace tilesat::lowering::detail {

std::optional<fb::OpParamsUnion> mesh_params(const Graph& g, NodeId id, const Attrs& attrs) {
  const Node& n = g.node(id);
  fb::OpParamsUnion u;
  int64_t rank = n.type.shape.rank();
  auto dim = [&](std::string_view attr) {
    int64_t d = attrs.get<int64_t>(attr);
    return d < 0 ? d + rank : d;
  };
  auto collective = [&](fb::CollectiveKind kind, int64_t d) {
    fb::CollectiveT p;
    p.kind = kind;
    p.dim = d;
    p.cluster_axis = static_cast<uint32_t>(attrs.get<int64_t>("cluster_axis"));
    u.Set(std::move(p));
    return u;
  };
  switch (n.kind) {
  case OpKind::MeshShard: {
    MeshShardSpec s = mesh_shard_spec(attrs, rank);
    fb::MeshShardT p;
    p.to_full = s.direction == ShardDirection::ShardToFull;
    p.replicate = s.type == ShardType::Replicate;
    p.shard_shape = s.shard_shape;
    p.shard_dims = {s.shard_dims[0], s.shard_dims[1]};
    u.Set(std::move(p));
    return u;
  }
  case OpKind::AllGather:
    return collective(fb::CollectiveKind::AllGather, dim("all_gather_dim"));
  case OpKind::ReduceScatter:
    return collective(fb::CollectiveKind::ReduceScatter, dim("scatter_dim"));
  case OpKind::AllReduce:
    return collective(fb::CollectiveKind::AllReduce, 0);
  default:
    return std::nullopt;
  }
}

} // namespace tilesat::lowering::detail
