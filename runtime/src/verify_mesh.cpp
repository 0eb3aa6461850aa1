// verify_mesh.cpp: the checks of mesh_shard and collective parameters: a known kind, dims and
// mesh axes in range, shards that split their dims over the mesh's chips, and the result shape
// the op implies.
#include "verify_mesh.h"

#include "program_view.h"

#include <fmt/format.h>

namespace tilesat::runtime::detail {

namespace {

[[noreturn]] void bad(std::string field, std::string what) {
  throw ParamError{std::move(field), std::move(what)};
}

void mesh_shard(const fb::MeshShard& m, const Dims& in, const Dims& out,
                std::array<int64_t, 2> mesh) {
  Dims shape = longs(m.shard_shape()), dims = longs(m.shard_dims());
  if (shape.size() != in.size()) {
    bad(".params.shard_shape",
        fmt::format("expected {} entries (the rank), got {}", in.size(), dims_str(shape)));
  }
  if (dims.size() != 2) bad(".params.shard_dims", "expected 2 entries (one per mesh axis)");
  Dims pieces(in.size(), 1);
  for (size_t a = 0; a < 2; ++a) {
    int64_t d = dims[a];
    if (m.replicate() ? d != -1 : (d < -1 || d >= static_cast<int64_t>(in.size()))) {
      bad(".params.shard_dims", fmt::format("expected entries in [-1, {}) (replicated: -1), "
                                            "got {}",
                                            m.replicate() ? 0 : in.size(), dims_str(dims)));
    }
    if (d < 0) continue;
    if (a == 1 && dims[0] == d) bad(".params.shard_dims", "expected distinct dims");
    pieces[static_cast<size_t>(d)] = mesh[a];
  }
  if (shape != pieces) {
    bad(".params.shard_shape", fmt::format("expected {} on a {}x{} mesh, got {}", dims_str(pieces),
                                           mesh[0], mesh[1], dims_str(shape)));
  }
  const Dims& shard = m.to_full() ? in : out;
  const Dims& full = m.to_full() ? out : in;
  Dims want = shard;
  for (size_t d = 0; d < want.size(); ++d) want[d] *= pieces[d];
  if (full != want) {
    bad("", fmt::format("expected a full tensor of shape {} for shards of shape {}", dims_str(want),
                        dims_str(shard)));
  }
}

void collective(const fb::Collective& c, const Dims& in, const Dims& out,
                std::array<int64_t, 2> mesh) {
  if (c.kind() > fb::CollectiveKind::MAX) bad(".params.kind", "expected a known collective");
  if (c.cluster_axis() > 1) {
    bad(".params.cluster_axis", fmt::format("expected 0 or 1, got {}", c.cluster_axis()));
  }
  int64_t n = mesh[c.cluster_axis()];
  Dims want = in;
  if (c.kind() != fb::CollectiveKind::AllReduce) {
    if (c.dim() < 0 || c.dim() >= static_cast<int64_t>(in.size())) {
      bad(".params.dim", fmt::format("expected a dim in [0, {}), got {}", in.size(), c.dim()));
    }
    auto d = static_cast<size_t>(c.dim());
    if (c.kind() == fb::CollectiveKind::AllGather) {
      want[d] *= n;
    } else if (want[d] % n != 0) {
      bad(".params.dim", fmt::format("expected extent {} to split over {} chips", want[d], n));
    } else {
      want[d] /= n;
    }
  }
  if (out != want) {
    bad("", fmt::format("expected a result of shape {} over {} chips, got {}", dims_str(want), n,
                        dims_str(out)));
  }
}

} // namespace

bool is_mesh_op(const fb::Op& op) {
  return op.params_type() == fb::OpParams::MeshShard ||
         op.params_type() == fb::OpParams::Collective;
}

void check_mesh_params(const fb::Op& op, std::span<const Dims> in, const Dims& out,
                       std::array<int64_t, 2> mesh) {
  if (in.size() != 1) bad(".inputs", fmt::format("expected 1 input, got {}", in.size()));
  if (const fb::MeshShard* m = op.params_as_MeshShard()) {
    mesh_shard(*m, in[0], out, mesh);
  } else if (const fb::Collective* c = op.params_as_Collective()) {
    collective(*c, in[0], out, mesh);
  }
}

} // namespace tilesat::runtime::detail
