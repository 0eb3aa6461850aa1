// spmd.cpp: mesh coordinates, mesh_shard specs and the block moves of the multi-chip ops.
#include "tilesat/graph/spmd.h"

#include "ops/op_impl.h"

#include <fmt/format.h>

namespace tilesat {

namespace {

using IntList = std::vector<int64_t>;

// Row-major offsets into `full` of the block at `index` (per dim) of size `block`.
std::vector<int64_t> block_offsets(const Shape& full, const Shape& block, const IntList& index) {
  std::vector<int64_t> strides = full.strides();
  int64_t base = 0;
  for (int64_t d = 0; d < full.rank(); ++d) {
    auto i = static_cast<size_t>(d);
    base += index[i] * block[d] * strides[i];
  }
  return ops::strided_offsets(block, strides, base);
}

// The block of `full` at `index`, with `pieces` blocks per dim.
Tensor block_of(const Tensor& full, const IntList& pieces, const IntList& index) {
  std::vector<int64_t> dims = full.shape().dims();
  for (size_t d = 0; d < dims.size(); ++d) dims[d] /= pieces[d];
  TensorType t{full.dtype(), Shape(dims), {}};
  return ops::gather(full, t, block_offsets(full.shape(), t.shape, index));
}

// Writes `block` into `full` at `index`.
void put_block(Tensor& full, const Tensor& block, const IntList& index) {
  std::vector<int64_t> offsets = block_offsets(full.shape(), block.shape(), index);
  for (size_t i = 0; i < offsets.size(); ++i) {
    full[offsets[i]] = block[static_cast<int64_t>(i)];
  }
}

// Per tensor dim, chip's block index under `spec`.
IntList shard_index(const MeshShardSpec& spec, MeshShape mesh, int64_t chip) {
  IntList index(spec.shard_shape.size(), 0);
  for (int64_t a = 0; a < 2; ++a) {
    int64_t d = spec.shard_dims[static_cast<size_t>(a)];
    if (d >= 0) index[static_cast<size_t>(d)] = mesh_coord(mesh, chip, a);
  }
  return index;
}

ShardType parse_shard_type(const std::string& s) {
  if (s == "replicate") return ShardType::Replicate;
  if (s == "devices") return ShardType::Devices;
  ops::fail(fmt::format("expected shard_type replicate or devices, got {}", s));
}

ShardDirection parse_direction(const std::string& s) {
  if (s == "full_to_shard") return ShardDirection::FullToShard;
  if (s == "shard_to_full") return ShardDirection::ShardToFull;
  ops::fail(fmt::format("expected shard_direction full_to_shard or shard_to_full, got {}", s));
}

} // namespace

std::string mesh_shape_str(MeshShape mesh) {
  return fmt::format("{}x{}", mesh[0], mesh[1]);
}

int64_t mesh_coord(MeshShape mesh, int64_t chip, int64_t axis) {
  return axis == 0 ? chip / mesh[1] : chip % mesh[1];
}

std::vector<int64_t> cluster_group(MeshShape mesh, int64_t chip, int64_t cluster_axis) {
  std::vector<int64_t> out;
  int64_t row = mesh_coord(mesh, chip, 0), col = mesh_coord(mesh, chip, 1);
  if (cluster_axis == 0) {
    for (int64_t r = 0; r < mesh[0]; ++r) out.push_back(r * mesh[1] + col);
  } else {
    for (int64_t c = 0; c < mesh[1]; ++c) out.push_back(row * mesh[1] + c);
  }
  return out;
}

MeshShardSpec mesh_shard_spec(const Attrs& attrs, int64_t rank) {
  MeshShardSpec s;
  s.type = parse_shard_type(attrs.get<std::string>("shard_type"));
  s.direction = parse_direction(attrs.get<std::string>("shard_direction"));
  const auto& shape = attrs.get<IntList>("shard_shape");
  const auto& dims = attrs.get<IntList>("shard_dims");
  if (s.type == ShardType::Replicate) {
    for (int64_t p : shape) {
      if (p != 1)
        ops::fail(
            fmt::format("expected shard_shape of 1s (replicate), got {}", ops::list_str(shape)));
    }
    for (int64_t d : dims) {
      if (d != -1)
        ops::fail(
            fmt::format("expected shard_dims of -1s (replicate), got {}", ops::list_str(dims)));
    }
    s.shard_shape.assign(static_cast<size_t>(rank), 1);
    return s;
  }
  if (static_cast<int64_t>(shape.size()) != rank) {
    ops::fail(fmt::format("expected shard_shape of {} entries (the tensor rank), got {}", rank,
                          ops::list_str(shape)));
  }
  if (dims.size() != 2) {
    ops::fail(fmt::format("expected shard_dims of 2 entries (one per mesh axis), got {}",
                          ops::list_str(dims)));
  }
  for (int64_t p : shape) {
    if (p < 1)
      ops::fail(fmt::format("expected shard_shape entries >= 1, got {}", ops::list_str(shape)));
  }
  for (size_t a = 0; a < 2; ++a) {
    if (dims[a] < -1 || dims[a] >= rank) {
      ops::fail(fmt::format("expected shard_dims entries in [-1, {}), got {}", rank,
                            ops::list_str(dims)));
    }
    s.shard_dims[a] = dims[a];
  }
  if (dims[0] >= 0 && dims[0] == dims[1]) {
    ops::fail(fmt::format("expected distinct shard_dims, got {}", ops::list_str(dims)));
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (shape[static_cast<size_t>(d)] != 1 && d != dims[0] && d != dims[1]) {
      ops::fail(fmt::format("expected shard_shape[{}] = 1 (dim {} is in no shard_dims entry), "
                            "got {}",
                            d, d, ops::list_str(shape)));
    }
  }
  s.shard_shape = shape;
  return s;
}

void check_shard_fits(const MeshShardSpec& spec, MeshShape mesh) {
  for (size_t a = 0; a < 2; ++a) {
    int64_t d = spec.shard_dims[a];
    if (d >= 0 && spec.shard_shape[static_cast<size_t>(d)] != mesh[a]) {
      ops::fail(fmt::format("expected shard_shape[{}] = {} (the chips along mesh axis {} of a "
                            "{} mesh), got {}",
                            d, mesh[a], a, mesh_shape_str(mesh),
                            spec.shard_shape[static_cast<size_t>(d)]));
    }
  }
}

Tensor take_shard(const Tensor& full, const MeshShardSpec& spec, MeshShape mesh, int64_t chip) {
  if (spec.type == ShardType::Replicate) return full;
  return block_of(full, spec.shard_shape, shard_index(spec, mesh, chip));
}

Tensor assemble_shards(std::span<const Tensor* const> shards, const MeshShardSpec& spec,
                       MeshShape mesh) {
  if (spec.type == ShardType::Replicate) return *shards[0];
  std::vector<int64_t> dims = shards[0]->shape().dims();
  for (size_t d = 0; d < dims.size(); ++d) dims[d] *= spec.shard_shape[d];
  Tensor full(TensorType{shards[0]->dtype(), Shape(dims), {}});
  for (int64_t chip = 0; chip < mesh[0] * mesh[1]; ++chip) {
    bool owner = true;
    for (int64_t a = 0; a < 2; ++a) {
      if (spec.shard_dims[static_cast<size_t>(a)] < 0 && mesh_coord(mesh, chip, a) != 0) {
        owner = false;
      }
    }
    if (owner) put_block(full, *shards[static_cast<size_t>(chip)], shard_index(spec, mesh, chip));
  }
  return full;
}

Tensor gather_group(std::span<const Tensor* const> group, int64_t dim) {
  std::vector<int64_t> dims = group[0]->shape().dims();
  dims[static_cast<size_t>(dim)] *= static_cast<int64_t>(group.size());
  Tensor out(TensorType{group[0]->dtype(), Shape(dims), {}});
  IntList index(dims.size(), 0);
  for (size_t k = 0; k < group.size(); ++k) {
    index[static_cast<size_t>(dim)] = static_cast<int64_t>(k);
    put_block(out, *group[k], index);
  }
  return out;
}

Tensor reduce_group(std::span<const Tensor* const> group) {
  Tensor out(TensorType{group[0]->dtype(), group[0]->shape(), {}});
  for (int64_t i = 0; i < out.numel(); ++i) {
    double acc = 0;
    for (const Tensor* t : group) acc += double{(*t)[i]};
    out[i] = static_cast<float>(acc);
  }
  out.round_to_dtype();
  return out;
}

Tensor scatter_piece(const Tensor& x, int64_t dim, int64_t index, int64_t count) {
  IntList pieces(static_cast<size_t>(x.shape().rank()), 1);
  IntList at(pieces.size(), 0);
  pieces[static_cast<size_t>(dim)] = count;
  at[static_cast<size_t>(dim)] = index;
  return block_of(x, pieces, at);
}

} // namespace tilesat
