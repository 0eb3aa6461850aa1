// dump.cpp: the program's text form.
#include "tilesat/lowering/dump.h"

#include "tilesat/program/int64s.h"
#include "tilesat/program/storage.h"

#include <fmt/format.h>

namespace tilesat::lowering {
namespace {

std::string str(const flatbuffers::String* s) {
  return s != nullptr ? s->str() : std::string();
}

std::string shape_str(const fb::Tensor& t) {
  std::string s;
  for (int64_t d : program::int64s(t.shape())) s += fmt::format("{}x", d);
  const char* dt = t.dtype() == fb::DType::BF16     ? "bf16"
                   : t.dtype() == fb::DType::BFP8_B ? "bfp_bf8"
                   : t.dtype() == fb::DType::I32    ? "i32"
                                                    : "f32";
  return fmt::format("tensor<{}{}>", s, dt);
}

std::string range_str(const fb::CoreRange* c) {
  if (c == nullptr) return "-";
  return fmt::format("[{},{}]..[{},{}]", c->row_begin(), c->col_begin(), c->row_end() - 1,
                     c->col_end() - 1);
}

std::string placement_str(const fb::Tensor& t) {
  std::string s = fmt::format("{} {} {}", t.layout() == fb::Layout::Tile ? "tile" : "row_major",
                              t.buffer_type() == fb::BufferType::L1 ? "l1" : "dram",
                              fb::EnumNameMemoryLayout(t.memory_layout()));
  if (t.shard() != nullptr) {
    s += fmt::format(" shards {}x{} tiles on {}", t.shard()->shard_tile_rows(),
                     t.shard()->shard_tile_cols(), range_str(t.shard()->cores()));
  }
  return s;
}

// A flattened NHWC image as " flat=NxHxW", nothing for a 4-D one.
std::string flat_str(const fb::FlatImage* f) {
  if (f == nullptr) return "";
  return fmt::format(" flat={}x{}x{}", f->batch(), f->height(), f->width());
}

std::string window_str(const fb::Window2d* w) {
  if (w == nullptr) return "window=-";
  return fmt::format("kernel={}x{} stride={}x{} padding=[{},{},{},{}] dilation={}x{}",
                     w->kernel_h(), w->kernel_w(), w->stride_h(), w->stride_w(), w->pad_top(),
                     w->pad_left(), w->pad_bottom(), w->pad_right(), w->dilation_h(),
                     w->dilation_w());
}

std::string params_str(const fb::Op& op) {
  switch (op.params_type()) {
  case fb::OpParams::Matmul:
  case fb::OpParams::Linear: {
    const fb::Matmul* m = op.params_type() == fb::OpParams::Matmul
                              ? op.params_as_Matmul()
                              : op.params_as_Linear()->matmul();
    std::string s =
        m == nullptr
            ? ""
            : fmt::format("transpose_a={} transpose_b={} fidelity={} per_core={}x{} in0_block_w={} "
                          "subblock={}x{}",
                          m->transpose_a(), m->transpose_b(),
                          fb::EnumNameMathFidelity(m->fidelity()), m->per_core_m(), m->per_core_n(),
                          m->in0_block_w(), m->out_subblock_h(), m->out_subblock_w());
    if (m != nullptr && m->out_block_h() > 0 &&
        (m->out_block_h() != m->per_core_m() || m->out_block_w() != m->per_core_n()))
      s += fmt::format(" out_block={}x{}", m->out_block_h(), m->out_block_w());
    if (op.params_type() == fb::OpParams::Linear && op.params_as_Linear()->has_activation())
      s +=
          fmt::format(" activation={}", fb::EnumNameUnaryKind(op.params_as_Linear()->activation()));
    return s;
  }
  case fb::OpParams::Unary:
    return fb::EnumNameUnaryKind(op.params_as_Unary()->kind());
  case fb::OpParams::Binary: {
    const fb::Binary* b = op.params_as_Binary();
    auto dims = [](const flatbuffers::Vector<int64_t>* v) {
      return fmt::format("[{}]", fmt::join(program::int64s(v), ","));
    };
    return fmt::format("{} lhs_dims={} rhs_dims={}", fb::EnumNameBinaryKind(b->kind()),
                       dims(b->lhs_dims()), dims(b->rhs_dims()));
  }
  case fb::OpParams::FusedEltwise: {
    std::string s;
    const auto* nodes = op.params_as_FusedEltwise()->nodes();
    for (uint32_t i = 0; nodes != nullptr && i < nodes->size(); ++i) {
      const fb::FusedNode& n = *nodes->Get(i);
      std::string args;
      if (n.args() != nullptr)
        for (uint32_t a : *n.args()) args += fmt::format(" v{}", a);
      switch (n.kind()) {
      case fb::FusedNodeKind::Input:
        s += fmt::format(" v{}=in{}", i, n.input());
        break;
      case fb::FusedNodeKind::Literal:
        s += fmt::format(" v{}={}", i, n.literal());
        break;
      case fb::FusedNodeKind::Unary:
        s += fmt::format(" v{}=({}{})", i, fb::EnumNameUnaryKind(n.unary()), args);
        break;
      case fb::FusedNodeKind::Binary:
        s += fmt::format(" v{}=({}{})", i, fb::EnumNameBinaryKind(n.binary()), args);
        break;
      }
    }
    return "body:" + s;
  }
  case fb::OpParams::Reduce:
    return fb::EnumNameReduceKind(op.params_as_Reduce()->kind());
  case fb::OpParams::Softmax:
    return fmt::format("dim={}", op.params_as_Softmax()->dim());
  case fb::OpParams::Conv2d: {
    const fb::Conv2d* c = op.params_as_Conv2d();
    std::string s = fmt::format("{} groups={}", window_str(c->window()), c->groups());
    if (c->has_bias()) s += " bias";
    if (c->has_activation())
      s += fmt::format(" activation={}", fb::EnumNameUnaryKind(c->activation()));
    return s + flat_str(c->flat());
  }
  case fb::OpParams::Pool2d: {
    const fb::Pool2d* p = op.params_as_Pool2d();
    std::string s = fmt::format("{} {}", fb::EnumNamePoolKind(p->kind()), window_str(p->window()));
    if (p->ceil_mode()) s += " ceil_mode";
    if (p->count_include_pad()) s += " count_include_pad";
    return s + flat_str(p->flat());
  }
  case fb::OpParams::LayerNorm: {
    const fb::LayerNorm* l = op.params_as_LayerNorm();
    return fmt::format("axis={} epsilon={}{}{}", l->axis(), l->epsilon(),
                       l->has_scale() ? " scale" : "", l->has_bias() ? " bias" : "");
  }
  case fb::OpParams::RmsNorm: {
    const fb::RmsNorm* r = op.params_as_RmsNorm();
    return fmt::format("axis={} epsilon={}{}", r->axis(), r->epsilon(),
                       r->has_weight() ? " weight" : "");
  }
  case fb::OpParams::RotaryEmbedding:
    return "";
  case fb::OpParams::Take:
    return fmt::format("dim={}", op.params_as_Take()->dim());
  case fb::OpParams::Attention: {
    const fb::Attention* a = op.params_as_Attention();
    std::string s = fmt::format("scale={}", a->scale());
    if (a->is_causal()) s += " causal";
    if (a->select_mask()) s += fmt::format(" select_mask fill={}", a->mask_fill());
    return s;
  }
  case fb::OpParams::StridedCopy: {
    const fb::StridedCopy* c = op.params_as_StridedCopy();
    return fmt::format("shape=[{}] strides=[{}] base={}",
                       fmt::join(program::int64s(c->shape()), ","),
                       fmt::join(program::int64s(c->strides()), ","), c->base());
  }
  case fb::OpParams::MeshShard: {
    const fb::MeshShard* m = op.params_as_MeshShard();
    auto ints = [](const flatbuffers::Vector<int64_t>* v) {
      return fmt::format("{}", fmt::join(program::int64s(v), ","));
    };
    return fmt::format(
        "{} {} shard_shape=[{}] shard_dims=[{}]", m->to_full() ? "shard_to_full" : "full_to_shard",
        m->replicate() ? "replicate" : "devices", ints(m->shard_shape()), ints(m->shard_dims()));
  }
  case fb::OpParams::Collective: {
    const fb::Collective* c = op.params_as_Collective();
    std::string s =
        fmt::format("{} cluster_axis={}", fb::EnumNameCollectiveKind(c->kind()), c->cluster_axis());
    if (c->kind() != fb::CollectiveKind::AllReduce) s += fmt::format(" dim={}", c->dim());
    return s;
  }
  default:
    return "";
  }
}

} // namespace

std::string dump_program(const fb::Program& p, const DumpOptions& options) {
  std::string s;
  const fb::Device* d = p.device();
  s += fmt::format("program @{} v{}.{}", str(p.name()), p.version_major(), p.version_minor());
  if (d != nullptr) {
    s += fmt::format(" for {} (grid {}x{}, L1 {} B/core, DRAM {} B in {} channels)", str(d->name()),
                     d->grid_rows(), d->grid_cols(), d->l1_bytes_per_core(), d->dram_bytes(),
                     d->dram_channels());
  }
  if (p.mesh_rows() * p.mesh_cols() > 1)
    s += fmt::format(", on every chip of a {}x{} mesh", p.mesh_rows(), p.mesh_cols());
  s += fmt::format("\npredicted {:.3f} us per inference", p.predicted_total_us());
  if (p.predicted_one_time_us() > 0)
    s += fmt::format(", {:.3f} us once at load (const-eval)", p.predicted_one_time_us());
  s += "\n\ntensors:\n";
  for (uint32_t i = 0; p.tensors() != nullptr && i < p.tensors()->size(); ++i) {
    const fb::Tensor& t = *p.tensors()->Get(i);
    s += fmt::format("  t{:<3} {:<14} {:<24} {}", i, str(t.name()), shape_str(t), placement_str(t));
    if (p.buffers() != nullptr && t.buffer() < p.buffers()->size()) {
      const fb::Buffer& b = *p.buffers()->Get(t.buffer());
      s += fmt::format("  @{:#x} {} B{} live ops {}..{}", b.address(), b.bytes(),
                       b.buffer_type() == fb::BufferType::L1 ? "/core" : "", b.first_op(),
                       b.last_op());
    }
    s += "\n";
  }
  auto list = [](const auto* v, const char* prefix) {
    std::string out;
    if (v != nullptr)
      for (uint32_t x : *v) out += fmt::format("{}{}{}", out.empty() ? "" : ", ", prefix, x);
    return out;
  };
  s += "\ninputs:";
  for (uint32_t i = 0; p.inputs() != nullptr && i < p.inputs()->size(); ++i) {
    s += fmt::format(" {}=t{}", str(p.inputs()->Get(i)->name()), p.inputs()->Get(i)->tensor());
    // Stored values: "(stored)" inside the program, "(stored in FILE)" in its weights file.
    for (uint32_t k = 0; p.input_values() != nullptr && k < p.input_values()->size(); ++k) {
      const fb::InputValue& v = *p.input_values()->Get(k);
      if (v.input() != i) continue;
      s += v.external() && p.weights_file() != nullptr
               ? fmt::format("(stored in {})", str(p.weights_file()->name()))
               : "(stored)";
    }
  }
  s += "\noutputs:";
  for (uint32_t i = 0; p.outputs() != nullptr && i < p.outputs()->size(); ++i)
    s += fmt::format(" {}=t{}", str(p.outputs()->Get(i)->name()), p.outputs()->Get(i)->tensor());
  s += "\n\nops (execution order):\n";
  for (uint32_t pos = 0; p.execution_order() != nullptr && pos < p.execution_order()->size();
       ++pos) {
    uint32_t idx = p.execution_order()->Get(pos);
    if (p.ops() == nullptr || idx >= p.ops()->size()) continue;
    const fb::Op& op = *p.ops()->Get(idx);
    s += fmt::format("  [{}] t{} = {}({}) {}  # {}\n", pos, op.output(), str(op.kind()),
                     list(op.inputs(), "t"), params_str(op), str(op.name()));
    uint32_t cores = op.work() != nullptr ? op.work()->size() : 0;
    s += fmt::format("      cores {} {} partition, {} cores busy, predicted {:.3f} us{}",
                     range_str(op.cores()), fb::EnumNamePartitionKind(op.partition()), cores,
                     op.predicted_us(), op.one_time() ? " once at load (const-eval)" : "");
    if (op.frees() != nullptr && op.frees()->size() > 0)
      s += fmt::format(", then frees {}", list(op.frees(), "b"));
    s += "\n";
    if (!options.work_items || op.work() == nullptr) continue;
    for (const fb::CoreWork* cw : *op.work()) {
      s += fmt::format("      ({},{}):", cw->core_row(), cw->core_col());
      if (cw->items() != nullptr) {
        for (const fb::WorkItem* w : *cw->items()) {
          s += fmt::format(" b{}..{} r{}..{} c{}..{}", w->batch_begin(), w->batch_end() - 1,
                           w->row_begin(), w->row_end() - 1, w->col_begin(), w->col_end() - 1);
          if (w->k_end() > 1) s += fmt::format(" k{}..{}", w->k_begin(), w->k_end() - 1);
          s += ";";
        }
      }
      s += "\n";
    }
  }
  return s;
}

} // namespace tilesat::lowering
