// collective.cpp: mesh_shard and the collectives on one chip of a mesh run. The op's input is
// read whole, exchanged with the chips of its group through the communicator, combined with
// graph/spmd.h's functions (the reference interpreter's numerics: sums in double in group
// order, rounded once to the dtype) and written as the op's output.
#include "../communicator.h"
#include "kernel.h"
#include "tilesat/graph/spmd.h"
#include "tilesat/program/int64s.h"
#include "tilesat/runtime/run.h"

namespace tilesat::runtime::detail {

namespace {

Tensor read_tensor(OpContext& ctx, const TensorRef& t) {
  return Tensor(TensorType{graph_dtype(t.dtype()), Shape(t.shape), {}},
                read_logical(ctx.memory, t));
}

std::vector<const Tensor*> pointers(const std::vector<Tensor>& all,
                                    const std::vector<int64_t>& chips) {
  std::vector<const Tensor*> out;
  for (int64_t c : chips) out.push_back(&all[static_cast<size_t>(c)]);
  return out;
}

} // namespace

void run_mesh_op(OpContext& ctx, int64_t chip, Communicator& comm) {
  MeshShape mesh{ctx.program.mesh_rows(), ctx.program.mesh_cols()};
  std::vector<int64_t> every(static_cast<size_t>(mesh[0] * mesh[1]));
  for (size_t c = 0; c < every.size(); ++c) every[c] = static_cast<int64_t>(c);
  Tensor in = read_tensor(ctx, ctx.inputs[0]);
  Tensor out;
  if (const fb::MeshShard* m = ctx.op.params_as_MeshShard()) {
    MeshShardSpec spec;
    spec.type = m->replicate() ? ShardType::Replicate : ShardType::Devices;
    spec.shard_shape = program::int64s(m->shard_shape());         // absent for a rank-0 tensor
    std::vector<int64_t> dims = program::int64s(m->shard_dims()); // two entries (verified)
    spec.shard_dims = {dims.at(0), dims.at(1)};
    if (m->to_full()) {
      std::vector<Tensor> all = comm.exchange(chip, std::move(in));
      out = assemble_shards(pointers(all, every), spec, mesh);
    } else {
      out = take_shard(in, spec, mesh, chip);
    }
  } else {
    const fb::Collective& c = *ctx.op.params_as_Collective();
    int64_t axis = c.cluster_axis();
    std::vector<Tensor> all = comm.exchange(chip, std::move(in));
    std::vector<const Tensor*> group = pointers(all, cluster_group(mesh, chip, axis));
    switch (c.kind()) {
    case fb::CollectiveKind::AllGather:
      out = gather_group(group, c.dim());
      break;
    case fb::CollectiveKind::AllReduce:
      out = reduce_group(group);
      break;
    default:
      out = scatter_piece(reduce_group(group), c.dim(), mesh_coord(mesh, chip, axis),
                          mesh[static_cast<size_t>(axis)]);
      break;
    }
  }
  write_logical(ctx.memory, ctx.output, out.data());
}

} // namespace tilesat::runtime::detail
