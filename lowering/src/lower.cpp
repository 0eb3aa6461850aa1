// lower.cpp: Plan -> program object tree -> FlatBuffer bytes.
#include "tilesat/lowering/lower.h"

#include "op_params.h"
#include "tilesat/graph/data_files.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/lowering/allocator.h"
#include "tilesat/program/storage.h"

#include <algorithm>
#include <array>
#include <boost/crc.hpp>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>

namespace tilesat::lowering {
namespace {

fb::DType fb_dtype(DType d) {
  switch (d) {
  case DType::BF16:
    return fb::DType::BF16;
  case DType::BFP8_B:
    return fb::DType::BFP8_B;
  case DType::I32:
    return fb::DType::I32;
  default:
    return fb::DType::F32;
  }
}

fb::MemoryLayout fb_memory(cost::MemoryLayout m) {
  switch (m) {
  case cost::MemoryLayout::HeightSharded:
    return fb::MemoryLayout::HeightSharded;
  case cost::MemoryLayout::WidthSharded:
    return fb::MemoryLayout::WidthSharded;
  case cost::MemoryLayout::BlockSharded:
    return fb::MemoryLayout::BlockSharded;
  default:
    return fb::MemoryLayout::Interleaved;
  }
}

fb::MathFidelity fb_fidelity(cost::MathFidelity f) {
  switch (f) {
  case cost::MathFidelity::LoFi:
    return fb::MathFidelity::LoFi;
  case cost::MathFidelity::HiFi2:
    return fb::MathFidelity::HiFi2;
  case cost::MathFidelity::HiFi3:
    return fb::MathFidelity::HiFi3;
  default:
    return fb::MathFidelity::HiFi4;
  }
}

fb::CoreRange full_grid(const DeviceSummary& d) {
  return fb::CoreRange(0, 0, static_cast<uint16_t>(d.grid_rows),
                       static_cast<uint16_t>(d.grid_cols));
}

// A tensor being built: its description, placement and lifetime.
struct Value {
  std::unique_ptr<fb::TensorT> tensor;
  program::Placement placement;
  program::TileView view;
  uint32_t first = 0, last = 0;
  bool pinned = false; // program input or output: lives throughout
};

class Lowerer {
public:
  Lowerer(const cost::Plan& plan, const DeviceSummary& dev, const LowerOptions& opt)
      : plan_(plan), g_(plan.graph), dev_(dev), opt_(opt) {}

  fb::ProgramT run() {
    if (dev_.grid_rows == 0 || dev_.grid_cols == 0 || dev_.l1_bytes_per_core == 0)
      throw Error(fmt::format("device '{}': expected a non-empty grid and L1", dev_.name));
    if (plan_.results.empty())
      throw Error(fmt::format("@{} returns nothing: a device program returns at least one tensor",
                              g_.name()));
    fb::ProgramT p;
    p.version_major = program::kVersionMajor;
    p.version_minor = program::kVersionMinor;
    p.name = g_.name();
    p.device = std::make_unique<fb::DeviceT>();
    p.device->name = dev_.name;
    p.device->grid_rows = dev_.grid_rows;
    p.device->grid_cols = dev_.grid_cols;
    p.device->l1_bytes_per_core = dev_.l1_bytes_per_core;
    p.device->dram_bytes = dev_.dram_bytes;
    p.device->dram_channels = dev_.dram_channels;
    // A partitioned plan runs on its mesh view (a T3000's 2x4 chips as one 1x8 ring); a
    // hand-written per-chip graph on the device's own mesh shape.
    bool viewed = plan_.mesh_shape[0] * plan_.mesh_shape[1] > 1;
    p.mesh_rows = viewed ? static_cast<uint32_t>(plan_.mesh_shape[0]) : dev_.mesh_rows;
    p.mesh_cols = viewed ? static_cast<uint32_t>(plan_.mesh_shape[1]) : dev_.mesh_cols;
    p.predicted_total_us = plan_.predicted_total_us;
    p.predicted_one_time_us = plan_.predicted_one_time_us;
    for (size_t i = 0; i < plan_.values.size(); ++i) add_value(plan_.values[i], i);
    // One-time values live throughout: later inferences read them without recomputing.
    for (size_t i = 0; i < plan_.values.size(); ++i) values_[i].pinned = plan_.values[i].one_time;
    for (size_t i = 0; i < g_.arguments().size() && i < values_.size(); ++i) {
      values_[i].pinned = true;
      p.inputs.push_back(named(g_.node(g_.arguments()[i]).name, static_cast<uint32_t>(i)));
    }
    add_constant_ops(p);
    for (const cost::PlannedOp& op : plan_.ops) p.ops.push_back(lower_op(op));
    // Results the host cannot read directly get a conversion to row-major DRAM.
    for (size_t r = 0; r < plan_.results.size(); ++r) {
      uint32_t v = check_value(plan_.results[r], "results");
      const program::Placement& pl = values_[v].placement;
      if (pl.layout != fb::Layout::RowMajor || pl.buffer != fb::BufferType::DRAM) {
        cost::PlannedValue host{plan_.values[v].node, {}};
        host.placement.layout = cost::Layout::RowMajor;
        host.placement.buffer = cost::BufferType::DRAM;
        uint32_t out = add_value(host, values_.size(), ".host");
        p.ops.push_back(make_op(fmt::format("{}.host", value_name(g_, host.node)), "to_layout", {v},
                                out, fb::OpParamsUnion{}, 1, 1, -1, 0));
        p.ops.back()->params.Set(fb::ToLayoutT{});
        v = out;
      }
      values_[v].pinned = true;
      std::string name =
          g_.results()[r].name.empty() ? fmt::format("result{}", r) : g_.results()[r].name;
      p.outputs.push_back(named(name, v));
    }
    auto n_ops = static_cast<uint32_t>(p.ops.size());
    for (uint32_t i = 0; i < n_ops; ++i) p.execution_order.push_back(i);
    allocate(p, n_ops);
    return p;
  }

private:
  static std::unique_ptr<fb::NamedTensorT> named(std::string name, uint32_t t) {
    auto n = std::make_unique<fb::NamedTensorT>();
    n->name = std::move(name);
    n->tensor = t;
    return n;
  }

  // A constant the plan holds as a leaf (like an argument, no op computes it) is written by a
  // `constant` op before everything else, where the plan placed it.
  void add_constant_ops(fb::ProgramT& p) {
    std::vector<bool> computed(plan_.values.size(), false);
    for (const cost::PlannedOp& op : plan_.ops)
      if (op.result < computed.size()) computed[op.result] = true;
    for (size_t v = 0; v < plan_.values.size(); ++v) {
      NodeId n = plan_.values[v].node;
      if (computed[v] || g_.node(n).kind != OpKind::Constant) continue;
      p.ops.push_back(make_op(value_name(g_, n), "constant", {}, static_cast<uint32_t>(v),
                              detail::op_params(g_, n), 1, 1, -1, 0));
      p.ops.back()->one_time = plan_.values[v].one_time;
    }
  }

  uint32_t check_value(uint32_t v, const char* where) const {
    if (v >= values_.size())
      throw Error(
          fmt::format("plan: {} refers to value {}, the plan has {}", where, v, values_.size()));
    return v;
  }

  uint32_t add_value(const cost::PlannedValue& pv, size_t index, std::string suffix = "") {
    if (pv.node >= g_.num_nodes())
      throw Error(fmt::format("plan: value {} refers to node {}, the graph has {}", index, pv.node,
                              g_.num_nodes()));
    const Node& n = g_.node(pv.node);
    Value v;
    v.tensor = std::make_unique<fb::TensorT>();
    v.tensor->name = value_name(g_, pv.node) + suffix;
    v.tensor->shape = n.type.shape.dims();
    v.tensor->dtype = fb_dtype(n.type.dtype);
    const cost::Placement& pl = pv.placement;
    v.tensor->layout = pl.layout == cost::Layout::Tile ? fb::Layout::Tile : fb::Layout::RowMajor;
    v.tensor->buffer_type =
        pl.buffer == cost::BufferType::L1 ? fb::BufferType::L1 : fb::BufferType::DRAM;
    v.tensor->memory_layout = fb_memory(pl.memory);
    v.view = program::tile_view(v.tensor->shape);
    v.placement.layout = v.tensor->layout;
    v.placement.dtype = v.tensor->dtype;
    v.placement.buffer = v.tensor->buffer_type;
    v.placement.memory = v.tensor->memory_layout;
    v.placement.cores = full_grid(dev_);
    if (v.tensor->memory_layout != fb::MemoryLayout::Interleaved) {
      std::string where = fmt::format("plan value {} ({})", index, v.tensor->name);
      if (v.tensor->buffer_type != fb::BufferType::L1 || v.tensor->layout != fb::Layout::Tile)
        throw Error(where + ": expected a sharded value to be a tile tensor in L1");
      if (pl.shard_shape[0] <= 0 || pl.shard_shape[1] <= 0 || pl.shard_shape[0] % 32 != 0 ||
          pl.shard_shape[1] % 32 != 0)
        throw Error(fmt::format("{}: expected a shard shape of whole 32x32 tiles, got {}x{}", where,
                                pl.shard_shape[0], pl.shard_shape[1]));
      if (pl.grid.rows > dev_.grid_rows || pl.grid.cols > dev_.grid_cols || pl.grid.cores() == 0)
        throw Error(fmt::format("{}: expected a shard grid inside the {}x{} device grid, got {}x{}",
                                where, dev_.grid_rows, dev_.grid_cols, pl.grid.rows, pl.grid.cols));
      auto shard = std::make_unique<fb::ShardSpecT>();
      shard->cores = std::make_unique<fb::CoreRange>(0, 0, static_cast<uint16_t>(pl.grid.rows),
                                                     static_cast<uint16_t>(pl.grid.cols));
      shard->shard_tile_rows = static_cast<uint32_t>(pl.shard_shape[0] / 32);
      shard->shard_tile_cols = static_cast<uint32_t>(pl.shard_shape[1] / 32);
      v.placement.cores = *shard->cores;
      v.placement.shard_tile_rows = shard->shard_tile_rows;
      v.placement.shard_tile_cols = shard->shard_tile_cols;
      v.tensor->shard = std::move(shard);
      for (int64_t page = 0; page < v.view.tiles(); ++page) {
        if (!program::locate_page(v.placement, v.view, page))
          throw Error(fmt::format("{}: expected the {} tiles to fit {}x{} shards of {}x{} tiles",
                                  where, v.view.tiles(), pl.grid.rows, pl.grid.cols, shard_rows(v),
                                  shard_cols(v)));
      }
    }
    values_.push_back(std::move(v));
    return static_cast<uint32_t>(values_.size() - 1);
  }
  static int64_t shard_rows(const Value& v) { return v.placement.shard_tile_rows; }
  static int64_t shard_cols(const Value& v) { return v.placement.shard_tile_cols; }

  std::unique_ptr<fb::OpT> make_op(std::string name, std::string kind, std::vector<uint32_t> ins,
                                   uint32_t out, fb::OpParamsUnion params, uint32_t grid_rows,
                                   uint32_t grid_cols, int64_t k_tiles, double predicted_us) {
    auto pos = static_cast<uint32_t>(position_++);
    auto op = std::make_unique<fb::OpT>();
    op->name = std::move(name);
    op->kind = std::move(kind);
    op->params = std::move(params);
    op->inputs = ins;
    op->output = out;
    for (uint32_t v : ins) values_[v].last = std::max(values_[v].last, pos);
    values_[out].first = pos;
    values_[out].last = std::max(values_[out].last, pos);
    grid_rows = std::clamp<uint32_t>(grid_rows, 1, dev_.grid_rows);
    grid_cols = std::clamp<uint32_t>(grid_cols, 1, dev_.grid_cols);
    op->cores = std::make_unique<fb::CoreRange>(0, 0, static_cast<uint16_t>(grid_rows),
                                                static_cast<uint16_t>(grid_cols));
    Partition how = opt_.partition.value_or(
        k_tiles >= 0 && grid_rows > 1 && grid_cols > 1 ? Partition::Block : Partition::RowMajor);
    op->partition = how == Partition::Block         ? fb::PartitionKind::Block
                    : how == Partition::ColumnMajor ? fb::PartitionKind::ColumnMajor
                                                    : fb::PartitionKind::RowMajor;
    const program::TileView& v = values_[out].view;
    TileSpace space{v.batch, v.tile_rows, v.tile_cols};
    std::vector<CoreShare> shares = partition_tiles(space, grid_rows, grid_cols, how);
    check_partition(space, shares);
    // A matrix product's inner tiles (none when K = 0: its output is zeros); one step for the
    // rest (k_tiles < 0).
    auto k_end = static_cast<uint32_t>(k_tiles >= 0 ? k_tiles : 1);
    for (const CoreShare& s : shares) {
      auto cw = std::make_unique<fb::CoreWorkT>();
      cw->core_row = static_cast<uint16_t>(s.row);
      cw->core_col = static_cast<uint16_t>(s.col);
      for (const TileBlock& b : s.blocks) {
        cw->items.emplace_back(static_cast<uint32_t>(b.b0), static_cast<uint32_t>(b.b1),
                               static_cast<uint32_t>(b.r0), static_cast<uint32_t>(b.r1),
                               static_cast<uint32_t>(b.c0), static_cast<uint32_t>(b.c1), 0u, k_end);
      }
      op->work.push_back(std::move(cw));
    }
    op->predicted_us = predicted_us;
    return op;
  }

  std::unique_ptr<fb::OpT> lower_op(const cost::PlannedOp& op) {
    std::vector<uint32_t> ins;
    for (uint32_t v : op.operands) ins.push_back(check_value(v, ("op " + op.name).c_str()));
    uint32_t out = check_value(op.result, ("op " + op.name).c_str());
    if (op.node >= g_.num_nodes())
      throw Error(fmt::format("plan: op {} refers to node {}", op.name, op.node));
    fb::OpParamsUnion params;
    int64_t k_tiles = -1; // not a matrix product
    if (op.is_to_layout()) {
      if (ins.size() != 1)
        throw Error(fmt::format("plan: to_layout {} needs one operand", op.name));
      params.Set(fb::ToLayoutT{});
    } else {
      const Node& n = g_.node(op.node);
      if (n.operands.size() != ins.size())
        throw Error(fmt::format("plan: op {} has {} operands, its graph op {}", op.name, ins.size(),
                                n.operands.size()));
      params = detail::op_params(g_, op.node);
      if (detail::is_matrix_product(n.kind)) k_tiles = detail::inner_tiles(g_, op.node);
      fb::MatmulT* mm = params.type == fb::OpParams::Matmul   ? params.AsMatmul()
                        : params.type == fb::OpParams::Linear ? params.AsLinear()->matmul.get()
                                                              : nullptr;
      if (mm != nullptr) {
        mm->fidelity = fb_fidelity(op.fidelity);
        if (op.blocking) {
          mm->per_core_m = op.blocking->per_core_m;
          mm->per_core_n = op.blocking->per_core_n;
          mm->in0_block_w = op.blocking->in0_block_w;
          mm->out_subblock_h = op.blocking->out_subblock_h;
          mm->out_subblock_w = op.blocking->out_subblock_w;
          mm->out_block_h = op.blocking->out_block_h;
          mm->out_block_w = op.blocking->out_block_w;
        }
      }
    }
    auto lowered = make_op(op.name, op.kind, ins, out, std::move(params), op.grid.rows,
                           op.grid.cols, k_tiles, op.predicted_us);
    lowered->l1_bytes_per_core = op.l1_bytes_per_core;
    lowered->one_time = op.one_time;
    return lowered;
  }

  void allocate(fb::ProgramT& p, uint32_t n_ops) {
    uint32_t end = n_ops == 0 ? 0 : n_ops - 1;
    std::vector<BufferRequest> l1, dram;
    std::vector<size_t> l1_of, dram_of;
    for (size_t i = 0; i < values_.size(); ++i) {
      Value& v = values_[i];
      if (v.pinned) {
        v.first = 0;
        v.last = end;
      }
      BufferRequest r;
      r.name = v.tensor->name;
      r.bytes = program::storage_bytes(v.placement, v.view);
      r.first = v.first;
      r.last = v.last;
      if (v.placement.buffer == fb::BufferType::L1) {
        const fb::CoreRange& c = full_or_shard(v);
        r.cores = CoreRect{c.row_begin(), c.col_begin(), c.row_end(), c.col_end()};
        l1.push_back(r);
        l1_of.push_back(i);
      } else {
        dram.push_back(r);
        dram_of.push_back(i);
      }
    }
    std::vector<uint64_t> l1_at = allocate_buffers(l1, dev_.l1_bytes_per_core, opt_.alignment,
                                                   fmt::format("L1 of {}", dev_.name));
    std::vector<uint64_t> dram_at = allocate_buffers(dram, dev_.dram_bytes, opt_.alignment,
                                                     fmt::format("DRAM of {}", dev_.name));
    check_no_overlap(l1, l1_at);
    check_no_overlap(dram, dram_at);
    p.buffers.resize(values_.size());
    auto fill = [&](const std::vector<BufferRequest>& reqs, const std::vector<uint64_t>& at,
                    const std::vector<size_t>& of, fb::BufferType type) {
      for (size_t k = 0; k < reqs.size(); ++k) {
        auto b = std::make_unique<fb::BufferT>();
        b->buffer_type = type;
        b->cores = std::make_unique<fb::CoreRange>(static_cast<uint16_t>(reqs[k].cores.row_begin),
                                                   static_cast<uint16_t>(reqs[k].cores.col_begin),
                                                   static_cast<uint16_t>(reqs[k].cores.row_end),
                                                   static_cast<uint16_t>(reqs[k].cores.col_end));
        b->address = at[k];
        b->bytes = reqs[k].bytes;
        b->first_op = reqs[k].first;
        b->last_op = reqs[k].last;
        p.buffers[of[k]] = std::move(b);
      }
    };
    fill(l1, l1_at, l1_of, fb::BufferType::L1);
    fill(dram, dram_at, dram_of, fb::BufferType::DRAM);
    for (size_t i = 0; i < values_.size(); ++i) {
      values_[i].tensor->buffer = static_cast<uint32_t>(i);
      if (!values_[i].pinned && n_ops > 0)
        p.ops[values_[i].last]->frees.push_back(static_cast<uint32_t>(i));
      p.tensors.push_back(std::move(values_[i].tensor));
    }
  }

  fb::CoreRange full_or_shard(const Value& v) const {
    return v.placement.memory == fb::MemoryLayout::Interleaved ? full_grid(dev_)
                                                               : v.placement.cores;
  }

  const cost::Plan& plan_;
  const Graph& g_;
  const DeviceSummary& dev_;
  const LowerOptions& opt_;
  std::vector<Value> values_;
  size_t position_ = 0;
};

} // namespace

fb::ProgramT lower_to_object(const cost::Plan& plan, const DeviceSummary& device,
                             const LowerOptions& options) {
  return Lowerer(plan, device, options).run();
}

std::vector<uint8_t> lower_plan(const cost::Plan& plan, const DeviceSummary& device,
                                const LowerOptions& options) {
  fb::ProgramT p = lower_to_object(plan, device, options);
  flatbuffers::FlatBufferBuilder b;
  b.Finish(fb::Program::Pack(b, &p), fb::ProgramIdentifier());
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

uint32_t crc32_of(std::span<const uint8_t> bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

LoweredProgram lower_program(const cost::Plan& plan, const DeviceSummary& device,
                             const LowerOptions& options) {
  fb::ProgramT p = lower_to_object(plan, device, options);
  LoweredProgram out;
  // Stored values, in input order; inline while they fit the limit, else all external.
  std::vector<std::pair<uint32_t, const Tensor*>> stored;
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < p.inputs.size(); ++i) {
    auto it = options.input_values.find(p.inputs[i]->name);
    if (it == options.input_values.end()) continue;
    const fb::TensorT& t = *p.tensors[p.inputs[i]->tensor];
    if (it->second.shape().dims() != t.shape)
      throw Error(fmt::format("stored value of input '{}': expected shape {}, got {}",
                              p.inputs[i]->name, Shape(t.shape).str(), it->second.shape().str()));
    stored.emplace_back(i, &it->second);
    bytes += it->second.data().size() * sizeof(float);
  }
  for (const auto& kv : options.input_values) {
    const std::string& name = kv.first;
    bool used = std::any_of(p.inputs.begin(), p.inputs.end(),
                            [&](const auto& in) { return in->name == name; });
    if (!used) throw Error(fmt::format("stored value '{}': the program has no such input", name));
  }
  bool external = bytes > options.inline_values_limit;
  if (external) out.weights.reserve(bytes);
  for (const auto& [input, value] : stored) {
    auto v = std::make_unique<fb::InputValueT>();
    v->input = input;
    if (external) {
      v->external = true;
      v->file_offset = out.weights.size();
      v->count = value->data().size();
      const auto* raw = reinterpret_cast<const uint8_t*>(value->data().data());
      out.weights.insert(out.weights.end(), raw, raw + value->data().size() * sizeof(float));
    } else {
      v->values = value->data();
    }
    p.input_values.push_back(std::move(v));
  }
  if (external) {
    p.weights_file = std::make_unique<fb::WeightsFileT>();
    p.weights_file->name = options.weights_file;
    p.weights_file->bytes = out.weights.size();
    p.weights_file->crc32 = crc32_of(out.weights);
    out.weights_file = options.weights_file;
  }
  flatbuffers::FlatBufferBuilder b;
  b.Finish(fb::Program::Pack(b, &p), fb::ProgramIdentifier());
  out.program.assign(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  return out;
}

namespace {

std::string_view as_chars(std::span<const uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

} // namespace

void write_program(const std::string& path, const LoweredProgram& program) {
  write_program(path, program.program);
  if (program.weights_file.empty()) return;
  std::filesystem::path side = std::filesystem::path(path).parent_path() / program.weights_file;
  write_file_atomically(side.string(), {as_chars(program.weights)}, "weights file");
}

void write_program(const std::string& path, const std::vector<uint8_t>& bytes) {
  uint32_t crc = crc32_of(bytes);
  std::array<uint8_t, program::kChecksumTrailerBytes> trailer{};
  for (size_t i = 0; i < 4; ++i) trailer[i] = static_cast<uint8_t>(crc >> (8 * i));
  std::memcpy(trailer.data() + 4, program::kChecksumMagic, 4);
  write_file_atomically(path, {as_chars(bytes), as_chars(trailer)}, "program");
}

} // namespace tilesat::lowering
