// verify.cpp: loading a program file and checking everything the runtime relies on.
#include "program_view.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/runtime/program.h"
#include "verify_mesh.h"
#include "verify_nn.h"

#include <algorithm>
#include <boost/crc.hpp>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>

namespace tilesat::runtime {
namespace {

using detail::longs;
using detail::numel;
using detail::shape_of;
using Shape = std::vector<int64_t>;

struct Checker {
  const std::string& file;
  const fb::Program& p;

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(where.empty() ? fmt::format("{}: {}", file, what)
                              : fmt::format("{}: {}: {}", file, where, what));
  }
  void require(bool ok, const std::string& where, const std::string& what) const {
    if (!ok) fail(where, what);
  }

  uint32_t grid_rows = 0, grid_cols = 0;

  void range_in_grid(const fb::CoreRange* c, const std::string& where) const {
    require(c != nullptr, where, "expected a core range, got none");
    require(c->row_begin() < c->row_end() && c->col_begin() < c->col_end(), where,
            fmt::format("expected a non-empty core range, got [{}, {}) x [{}, {})", c->row_begin(),
                        c->row_end(), c->col_begin(), c->col_end()));
    require(c->row_end() <= grid_rows && c->col_end() <= grid_cols, where,
            fmt::format("expected cores inside the {}x{} grid, got rows [{}, {}) cols [{}, {})",
                        grid_rows, grid_cols, c->row_begin(), c->row_end(), c->col_begin(),
                        c->col_end()));
  }

  // Stored input values: each for a distinct input, as many floats as the input has elements,
  // external ones inside the weights file.
  void input_values() {
    if (p.input_values() == nullptr) return;
    uint32_t n_inputs = p.inputs() != nullptr ? p.inputs()->size() : 0;
    std::vector<bool> seen(n_inputs, false);
    const fb::WeightsFile* wf = p.weights_file();
    for (uint32_t i = 0; i < p.input_values()->size(); ++i) {
      std::string where = fmt::format("input_values[{}]", i);
      const fb::InputValue& v = *p.input_values()->Get(i);
      require(v.input() < n_inputs && !seen[v.input()], where,
              fmt::format("expected a distinct input index below {}, got {}", n_inputs, v.input()));
      seen[v.input()] = true;
      int64_t n = numel(tensor_shape(p.inputs()->Get(v.input())->tensor()));
      if (!v.external()) {
        int64_t got = v.values() != nullptr ? static_cast<int64_t>(v.values()->size()) : 0;
        require(got == n, where, fmt::format("expected {} values, got {}", n, got));
        continue;
      }
      require(wf != nullptr && wf->name() != nullptr, where,
              "expected a weights file for an external value, got none");
      require(static_cast<int64_t>(v.count()) == n, where,
              fmt::format("expected {} values, got {}", n, v.count()));
      require(v.file_offset() <= wf->bytes() && v.count() <= (wf->bytes() - v.file_offset()) / 4,
              where,
              fmt::format("expected values inside the {}-byte weights file, got {} floats at {}",
                          wf->bytes(), v.count(), v.file_offset()));
    }
  }

  void device() {
    const fb::Device* d = p.device();
    require(d != nullptr && d->name() != nullptr, "device",
            "expected the device the program was planned for, got none");
    require(d->grid_rows() >= 1 && d->grid_rows() <= kMaxGridSide && d->grid_cols() >= 1 &&
                d->grid_cols() <= kMaxGridSide,
            "device",
            fmt::format("expected a grid of 1..{} x 1..{} cores, got {}x{}", kMaxGridSide,
                        kMaxGridSide, d->grid_rows(), d->grid_cols()));
    require(
        d->l1_bytes_per_core() > 0 && d->l1_bytes_per_core() <= kMaxL1BytesPerCore,
        "device.l1_bytes_per_core",
        fmt::format("expected 1..{} bytes, got {}", kMaxL1BytesPerCore, d->l1_bytes_per_core()));
    require(d->dram_bytes() <= kMaxDramBytes, "device.dram_bytes",
            fmt::format("expected at most {} bytes, got {}", kMaxDramBytes, d->dram_bytes()));
    require(uint64_t{d->grid_rows()} * d->grid_cols() * d->l1_bytes_per_core() <= kMaxHostL1Bytes,
            "device",
            fmt::format("expected at most {} bytes of L1 over all cores", kMaxHostL1Bytes));
    grid_rows = d->grid_rows();
    grid_cols = d->grid_cols();
    uint64_t chips = uint64_t{p.mesh_rows()} * p.mesh_cols();
    require(chips >= 1 && chips <= kMaxMeshChips, "mesh",
            fmt::format("expected a mesh of 1..{} chips, got {}x{}", kMaxMeshChips, p.mesh_rows(),
                        p.mesh_cols()));
  }

  void buffers() {
    require(p.buffers() != nullptr, "buffers", "expected a buffer list, got none");
    const fb::Device& d = *p.device();
    for (uint32_t i = 0; i < p.buffers()->size(); ++i) {
      const fb::Buffer& b = *p.buffers()->Get(i);
      std::string where = fmt::format("buffers[{}]", i);
      uint64_t cap = b.buffer_type() == fb::BufferType::L1 ? d.l1_bytes_per_core() : d.dram_bytes();
      require(b.buffer_type() == fb::BufferType::L1 || b.buffer_type() == fb::BufferType::DRAM,
              where, "expected buffer type L1 or DRAM");
      require(b.address() <= cap && b.bytes() <= cap - b.address(), where,
              fmt::format("expected [{}, {}) inside the {} bytes of {}", b.address(),
                          b.address() + b.bytes(), cap,
                          b.buffer_type() == fb::BufferType::L1 ? "L1 per core" : "DRAM"));
      if (b.buffer_type() == fb::BufferType::L1) range_in_grid(b.cores(), where + ".cores");
      require(
          b.first_op() <= b.last_op(), where,
          fmt::format("expected first_op <= last_op, got {} and {}", b.first_op(), b.last_op()));
      if (b.buffer_type() == fb::BufferType::DRAM) {
        require(b.address() + b.bytes() <= kMaxHostDramBytes, where,
                fmt::format("expected DRAM use within the runtime's {} bytes", kMaxHostDramBytes));
      }
    }
  }

  std::vector<Shape> shapes;

  void tensors() {
    require(p.tensors() != nullptr, "tensors", "expected a tensor list, got none");
    std::vector<int> users(p.buffers()->size(), 0);
    for (uint32_t i = 0; i < p.tensors()->size(); ++i) {
      const fb::Tensor& t = *p.tensors()->Get(i);
      std::string where = fmt::format("tensors[{}]", i);
      require(t.shape() == nullptr || t.shape()->size() <= kMaxRank, where,
              fmt::format("expected a shape of rank <= {}", kMaxRank));
      Shape s = shape_of(t);
      int64_t n = 1;
      for (int64_t dim : s) {
        require(dim >= 0 && dim <= kMaxElements, where + ".shape",
                fmt::format("expected extents in [0, {}], got {}", kMaxElements, dim));
        n = dim == 0 ? 0 : n;
        require(n == 0 || n <= kMaxElements / std::max<int64_t>(dim, 1), where + ".shape",
                fmt::format("expected at most {} elements", kMaxElements));
        n *= dim;
      }
      // Padding to tiles multiplies the element count by at most 32 * 32 per matrix; a
      // row-major tensor (a [O, I, 1, 1] conv weight) is stored unpadded.
      program::TileView v = program::tile_view(s);
      require(t.layout() != fb::Layout::Tile || v.tiles() <= kMaxElements / 1024, where + ".shape",
              fmt::format("expected at most {} tiles, got {}", kMaxElements / 1024, v.tiles()));
      require(t.dtype() <= fb::DType::MAX && t.layout() <= fb::Layout::MAX &&
                  t.buffer_type() <= fb::BufferType::MAX &&
                  t.memory_layout() <= fb::MemoryLayout::MAX,
              where, "expected known dtype, layout, buffer type and memory layout");
      require(t.buffer() < p.buffers()->size(), where + ".buffer",
              fmt::format("expected a buffer index < {}, got {}", p.buffers()->size(), t.buffer()));
      require(++users[t.buffer()] == 1, where + ".buffer",
              fmt::format("expected buffer {} to hold one tensor, got a second", t.buffer()));
      const fb::Buffer& b = *p.buffers()->Get(t.buffer());
      require(b.buffer_type() == t.buffer_type(), where,
              "expected the tensor's buffer type to be its buffer's");
      bool sharded = t.memory_layout() != fb::MemoryLayout::Interleaved;
      if (sharded) {
        require(t.buffer_type() == fb::BufferType::L1 && t.layout() == fb::Layout::Tile, where,
                "expected a sharded tensor to be a tile tensor in L1");
        require(t.shard() != nullptr && t.shard()->shard_tile_rows() > 0 &&
                    t.shard()->shard_tile_cols() > 0,
                where + ".shard", "expected a shard spec with a non-empty shard");
        range_in_grid(t.shard()->cores(), where + ".shard.cores");
        const fb::CoreRange& sc = *t.shard()->cores();
        const fb::CoreRange& bc = *b.cores();
        require(sc.row_begin() >= bc.row_begin() && sc.row_end() <= bc.row_end() &&
                    sc.col_begin() >= bc.col_begin() && sc.col_end() <= bc.col_end(),
                where + ".shard.cores", "expected the shard cores inside the buffer's cores");
      }
      program::Placement pl = detail::placement_of(t, b);
      uint64_t need = program::storage_bytes(pl, v);
      require(need <= b.bytes(), where,
              fmt::format("expected its buffer to hold its {} bytes{}, got {}", need,
                          t.buffer_type() == fb::BufferType::L1 ? " per core" : "", b.bytes()));
      if (sharded && v.tiles() > 0) {
        // Every shard must land on a core of the range: check the corner tiles of each shard.
        auto [gi, gj] = program::shard_grid(pl, v);
        for (int64_t si = 0; si < gi; ++si) {
          for (int64_t sj = 0; sj < gj; ++sj) {
            int64_t page = si * pl.shard_tile_rows * v.tile_cols + sj * pl.shard_tile_cols;
            require(program::locate_page(pl, v, page).has_value(), where + ".shard",
                    fmt::format("expected shard ({}, {}) on a core of the shard range", si, sj));
          }
        }
      }
      shapes.push_back(std::move(s));
    }
  }

  const Shape& tensor_shape(uint32_t id) const { return shapes[id]; }

  void dims_map(const Shape& in, const Shape& out, const std::vector<int64_t>& map,
                const std::string& where) const {
    std::optional<std::string> e = detail::dims_map_error(in, out, map);
    if (e) fail(where, *e);
  }

  void right_aligned(const Shape& in, const Shape& out, const std::string& where) const {
    require(in.size() <= out.size(), where, "expected an operand of rank <= the result's");
    dims_map(in, out, detail::right_aligned_map(in.size(), out.size()), where);
  }

  // Returns the number of inner-dim tiles of a matmul.
  int64_t matmul(const fb::Matmul* m, const std::vector<uint32_t>& in, uint32_t out,
                 const std::string& where) const {
    require(m != nullptr, where, "expected matmul parameters");
    const Shape& a = tensor_shape(in[0]);
    const Shape& b = tensor_shape(in[1]);
    const Shape& o = tensor_shape(out);
    require(a.size() >= 2 && b.size() >= 2 && o.size() >= 2, where,
            "expected operands and result of rank >= 2");
    int64_t am = a[a.size() - 2], ak = a.back(), bk = b[b.size() - 2], bn = b.back();
    if (m->transpose_a()) std::swap(am, ak);
    if (m->transpose_b()) std::swap(bk, bn);
    require(ak == bk && o[o.size() - 2] == am && o.back() == bn, where,
            fmt::format("expected [{}x{}] x [{}x{}] -> [{}x{}], got a result [{}x{}]", am, ak, bk,
                        bn, am, bn, o[o.size() - 2], o.back()));
    int64_t ob = program::tile_view(o).batch, ab = program::tile_view(a).batch,
            bb = program::tile_view(b).batch;
    std::vector<int64_t> abt = longs(m->a_batch()), bbt = longs(m->b_batch());
    require(static_cast<int64_t>(abt.size()) == ob && static_cast<int64_t>(bbt.size()) == ob, where,
            fmt::format("expected a_batch and b_batch of {} entries", ob));
    for (size_t i = 0; i < abt.size(); ++i) {
      require(abt[i] < ab && bbt[i] < bb, where,
              fmt::format("expected batch indices below {} and {}", ab, bb));
    }
    return (ak + program::kTile - 1) / program::kTile;
  }

  void unary_kind(fb::UnaryKind k, const std::string& where) const {
    require(k <= fb::UnaryKind::MAX, where, "expected a known unary op");
  }
  void binary_kind(fb::BinaryKind k, const std::string& where) const {
    require(k <= fb::BinaryKind::MAX, where, "expected a known binary op");
  }

  // Checks the op's parameters against its tensors; returns its inner-dim tile count (1 for
  // ops that are not matrix products).
  int64_t op_params(const fb::Op& op, const std::vector<uint32_t>& in, uint32_t out,
                    const std::string& where) const {
    const Shape& o = tensor_shape(out);
    auto arity = [&](size_t lo, size_t hi) {
      require(in.size() >= lo && in.size() <= hi, where + ".inputs",
              fmt::format("expected {}..{} inputs, got {}", lo, hi, in.size()));
    };
    auto same_shape = [&](const std::string& what) {
      require(tensor_shape(in[0]) == o, where,
              fmt::format("expected the {} result to have the input's shape", what));
    };
    std::string pw = where + ".params";
    require(op.params() != nullptr, pw, "expected op parameters, got none");
    switch (op.params_type()) {
    case fb::OpParams::ToLayout:
      arity(1, 1);
      same_shape("to_layout");
      return 1;
    case fb::OpParams::Typecast:
      arity(1, 1);
      same_shape("typecast");
      return 1;
    case fb::OpParams::Reshape:
      arity(1, 1);
      require(numel(tensor_shape(in[0])) == numel(o), where,
              "expected reshape to keep the element count");
      return 1;
    case fb::OpParams::Matmul:
      arity(2, 2);
      return matmul(op.params_as_Matmul(), in, out, pw);
    case fb::OpParams::Linear: {
      arity(2, 3);
      const fb::Linear* l = op.params_as_Linear();
      require(l != nullptr, pw, "expected linear parameters");
      if (l->has_activation()) unary_kind(l->activation(), pw + ".activation");
      if (in.size() == 3) right_aligned(tensor_shape(in[2]), o, where + ".inputs[2]");
      return matmul(l->matmul(), in, out, pw + ".matmul");
    }
    case fb::OpParams::Unary:
      arity(1, 1);
      unary_kind(op.params_as_Unary()->kind(), pw);
      same_shape("unary");
      return 1;
    case fb::OpParams::Binary: {
      arity(2, 2);
      const fb::Binary* b = op.params_as_Binary();
      binary_kind(b->kind(), pw);
      dims_map(tensor_shape(in[0]), o, longs(b->lhs_dims()), pw + ".lhs_dims");
      dims_map(tensor_shape(in[1]), o, longs(b->rhs_dims()), pw + ".rhs_dims");
      return 1;
    }
    case fb::OpParams::FusedEltwise: {
      arity(1, 64);
      for (size_t i = 0; i < in.size(); ++i)
        right_aligned(tensor_shape(in[i]), o, fmt::format("{}.inputs[{}]", where, i));
      std::vector<const fb::FusedNode*> nodes = detail::fused_nodes(*op.params_as_FusedEltwise());
      require(!nodes.empty() && nodes.size() <= 4096, pw + ".nodes", "expected 1..4096 body nodes");
      for (size_t i = 0; i < nodes.size(); ++i) {
        const fb::FusedNode& n = *nodes[i];
        std::string nw = fmt::format("{}.nodes[{}]", pw, i);
        std::vector<int64_t> args = longs(n.args());
        size_t want = 0;
        switch (n.kind()) {
        case fb::FusedNodeKind::Unary:
          unary_kind(n.unary(), nw);
          want = 1;
          break;
        case fb::FusedNodeKind::Binary:
          binary_kind(n.binary(), nw);
          want = 2;
          break;
        case fb::FusedNodeKind::Input:
          require(n.input() < in.size(), nw, fmt::format("expected an input < {}", in.size()));
          break;
        case fb::FusedNodeKind::Literal:
          break;
        default:
          fail(nw, "expected a known node kind");
        }
        require(args.size() == want, nw, fmt::format("expected {} arguments", want));
        for (int64_t a : args)
          require(a >= 0 && static_cast<size_t>(a) < i, nw, "expected arguments before the node");
      }
      return 1;
    }
    case fb::OpParams::Reduce: {
      arity(1, 1);
      const fb::Reduce* r = op.params_as_Reduce();
      require(r->kind() <= fb::ReduceKind::MAX, pw, "expected a known reduction");
      const Shape& x = tensor_shape(in[0]);
      std::vector<int64_t> dims = longs(r->dims());
      Shape expect;
      for (size_t d = 0; d < x.size(); ++d) {
        bool reduced = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
        if (!reduced)
          expect.push_back(x[d]);
        else if (r->keep_dim())
          expect.push_back(1);
      }
      for (size_t i = 0; i < dims.size(); ++i) {
        require(dims[i] >= 0 && static_cast<size_t>(dims[i]) < x.size() &&
                    (i == 0 || dims[i] > dims[i - 1]),
                pw + ".dims", "expected ascending dims of the input");
      }
      require(expect == o, where, "expected the result shape of the reduction");
      return 1;
    }
    case fb::OpParams::Softmax:
      arity(1, 1);
      same_shape("softmax");
      require(op.params_as_Softmax()->dim() >= 0 &&
                  static_cast<size_t>(op.params_as_Softmax()->dim()) < o.size(),
              pw + ".dim", "expected a dim of the input");
      return 1;
    case fb::OpParams::Permute: {
      arity(1, 1);
      std::vector<int64_t> perm = longs(op.params_as_Permute()->permutation());
      const Shape& x = tensor_shape(in[0]);
      require(perm.size() == x.size() && o.size() == x.size(), pw, "expected one entry per dim");
      std::vector<bool> seen(x.size(), false);
      for (size_t i = 0; i < perm.size(); ++i) {
        require(perm[i] >= 0 && static_cast<size_t>(perm[i]) < x.size() &&
                    !seen[static_cast<size_t>(perm[i])],
                pw, "expected a permutation");
        seen[static_cast<size_t>(perm[i])] = true;
        require(o[i] == x[static_cast<size_t>(perm[i])], where, "expected the permuted shape");
      }
      return 1;
    }
    case fb::OpParams::Attention: {
      arity(3, 4);
      const Shape &q = tensor_shape(in[0]), &k = tensor_shape(in[1]), &v = tensor_shape(in[2]);
      require(q.size() == 4 && k.size() == 4 && v.size() == 4, where + ".inputs",
              "expected query, key and value of rank 4");
      require(k[0] == q[0] && v[0] == q[0] && v[1] == k[1] && v[2] == k[2] && k[3] == q[3] &&
                  k[1] >= 1 && q[1] % k[1] == 0,
              where + ".inputs",
              "expected key and value [batch, kv_heads, kv_seq, head_dim] for the query, its "
              "heads a multiple of kv_heads");
      require(o == Shape{q[0], q[1], q[2], v[3]}, where,
              "expected the result [batch, heads, seq, "
              "value head_dim]");
      if (in.size() == 4)
        right_aligned(tensor_shape(in[3]), Shape{q[0], q[1], q[2], k[2]}, where + ".inputs[3]");
      return 1;
    }
    case fb::OpParams::RotaryEmbedding: {
      arity(3, 3);
      same_shape("rotary_embedding");
      require(o.size() >= 2 && o.back() % 2 == 0, where,
              "expected a result [..., seq, head_dim] with an even head_dim");
      for (size_t i = 1; i < 3; ++i) {
        const Shape& t = tensor_shape(in[i]);
        std::string at = fmt::format("{}.inputs[{}]", where, i);
        require(!t.empty() && t.back() == o.back(), at, "expected the operand's head_dim");
        right_aligned(t, o, at);
      }
      return 1;
    }
    case fb::OpParams::StridedCopy: {
      arity(1, 1);
      const fb::StridedCopy* c = op.params_as_StridedCopy();
      std::vector<int64_t> shape = longs(c->shape()), st = longs(c->strides());
      require(shape.size() == st.size() && shape.size() <= 8, pw,
              "expected one stride per dim of shape, at most 8 dims");
      int64_t count = 1, last = c->base();
      require(last >= 0 && last <= kMaxElements, pw + ".base", "expected a base in [0, 2^31]");
      for (size_t d = 0; d < shape.size(); ++d) {
        require(shape[d] >= 0 && shape[d] <= kMaxElements && st[d] >= 0 && st[d] <= kMaxElements,
                pw, "expected extents and strides in [0, 2^31]");
        count = shape[d] == 0 || count == 0 ? 0 : std::min(count * shape[d], kMaxElements + 1);
        if (shape[d] > 0) last = std::min(last + (shape[d] - 1) * st[d], kMaxElements + 1);
      }
      require(count == numel(o), pw + ".shape", "expected as many elements as the result");
      require(count == 0 || last < numel(tensor_shape(in[0])), pw,
              "expected every read inside the input");
      return 1;
    }
    case fb::OpParams::Broadcast:
      arity(1, 1);
      dims_map(tensor_shape(in[0]), o, longs(op.params_as_Broadcast()->dims()), pw + ".dims");
      return 1;
    case fb::OpParams::Concat: {
      arity(1, kMaxConcatInputs);
      int64_t dim = op.params_as_Concat()->dim();
      require(dim >= 0 && static_cast<size_t>(dim) < o.size(), pw + ".dim",
              "expected a dim of the result");
      int64_t total = 0;
      for (uint32_t t : in) {
        const Shape& x = tensor_shape(t);
        require(x.size() == o.size(), where, "expected inputs of the result's rank");
        for (size_t d = 0; d < x.size(); ++d)
          require(static_cast<int64_t>(d) == dim || x[d] == o[d], where,
                  "expected inputs to match the result except along dim");
        total += x[static_cast<size_t>(dim)];
      }
      require(total == o[static_cast<size_t>(dim)], where, "expected the joined extent");
      return 1;
    }
    case fb::OpParams::Slice: {
      arity(1, 1);
      const Shape& x = tensor_shape(in[0]);
      std::vector<int64_t> b = longs(op.params_as_Slice()->begins()),
                           st = longs(op.params_as_Slice()->steps());
      require(b.size() == x.size() && st.size() == x.size() && o.size() == x.size(), pw,
              "expected begins and steps for every dim");
      for (size_t d = 0; d < x.size(); ++d) {
        require(b[d] >= 0 && st[d] > 0 && st[d] <= kMaxElements && b[d] <= x[d], pw,
                "expected 0 <= begin <= extent and step > 0");
        require(o[d] == 0 || b[d] + (o[d] - 1) * st[d] < x[d], where,
                fmt::format("expected the slice of dim {} inside the input", d));
      }
      return 1;
    }
    case fb::OpParams::Constant: {
      arity(0, 0);
      const auto* v = op.params_as_Constant()->values();
      require(v != nullptr && (v->size() == 1 || static_cast<int64_t>(v->size()) == numel(o)),
              pw + ".values", "expected 1 value or one per element");
      return 1;
    }
    case fb::OpParams::Full:
      arity(0, 0);
      return 1;
    default:
      if (detail::is_mesh_op(op)) {
        mesh_params(op, in, out, where);
        return 1;
      }
      if (!detail::is_nn_op(op)) fail(pw, "expected known op parameters");
      nn_params(op, in, out, where);
      return 1;
    }
  }

  void mesh_params(const fb::Op& op, const std::vector<uint32_t>& in, uint32_t out,
                   const std::string& where) const {
    std::vector<Shape> shapes;
    for (uint32_t t : in) shapes.push_back(tensor_shape(t));
    try {
      detail::check_mesh_params(op, shapes, tensor_shape(out),
                                {int64_t{p.mesh_rows()}, int64_t{p.mesh_cols()}});
    } catch (const detail::ParamError& e) {
      fail(where + e.field, e.what);
    }
  }

  void nn_params(const fb::Op& op, const std::vector<uint32_t>& in, uint32_t out,
                 const std::string& where) const {
    std::vector<Shape> shapes;
    std::vector<fb::DType> dtypes;
    for (uint32_t t : in) {
      shapes.push_back(tensor_shape(t));
      dtypes.push_back(p.tensors()->Get(t)->dtype());
    }
    try {
      detail::check_nn_params(op, shapes, dtypes, tensor_shape(out));
    } catch (const detail::ParamError& e) {
      fail(where + e.field, e.what);
    }
  }

  void ops() {
    // A program may have no ops (its outputs are inputs) and no inputs (constants only), but
    // it has outputs.
    uint32_t n_ops = detail::count(p.ops());
    uint32_t n_tensors = detail::count(p.tensors());
    require(detail::count(p.execution_order()) == n_ops, "execution_order",
            fmt::format("expected {} entries, got {}", n_ops, detail::count(p.execution_order())));
    std::vector<bool> ran(n_ops, false);
    std::vector<bool> defined(n_tensors, false);
    // Const-eval: one-time ops come first and read inputs or one-time outputs only.
    std::vector<bool> one_time_value(n_tensors, false), is_input(n_tensors, false);
    bool per_inference_seen = false;
    require(detail::count(p.outputs()) > 0, "outputs", "expected at least one output, got none");
    for (uint32_t i = 0; i < detail::count(p.inputs()); ++i) {
      const fb::NamedTensor* t = p.inputs()->Get(i);
      require(t->tensor() < n_tensors && !defined[t->tensor()] && t->name() != nullptr,
              fmt::format("inputs[{}]", i), "expected a name and a distinct tensor index");
      defined[t->tensor()] = true;
      is_input[t->tensor()] = true;
    }
    const fb::Device& dev = *p.device();
    for (uint32_t pos = 0; pos < n_ops; ++pos) {
      uint32_t idx = p.execution_order()->Get(pos);
      require(idx < n_ops && !ran[idx], fmt::format("execution_order[{}]", pos),
              "expected each op exactly once");
      ran[idx] = true;
      const fb::Op& op = *p.ops()->Get(idx);
      std::string where = fmt::format("ops[{}]", idx);
      std::vector<uint32_t> in;
      if (op.inputs() != nullptr) in.assign(op.inputs()->begin(), op.inputs()->end());
      for (size_t i = 0; i < in.size(); ++i) {
        require(in[i] < n_tensors && defined[in[i]], fmt::format("{}.inputs[{}]", where, i),
                "expected a tensor defined before the op runs");
      }
      require(op.output() < n_tensors && !defined[op.output()], where + ".output",
              "expected a tensor no earlier op defines");
      defined[op.output()] = true;
      if (op.one_time()) {
        require(!per_inference_seen, where + ".one_time",
                "expected one-time ops before every per-inference op in the execution order");
        for (size_t i = 0; i < in.size(); ++i)
          require(is_input[in[i]] || one_time_value[in[i]], fmt::format("{}.inputs[{}]", where, i),
                  "expected a one-time op to read program inputs or one-time results only");
        const fb::Buffer& b = *p.buffers()->Get(p.tensors()->Get(op.output())->buffer());
        require(b.last_op() + 1 == n_ops, where + ".output",
                fmt::format("expected a one-time result's buffer to live to the last op ({}), it "
                            "lives to {}",
                            n_ops - 1, b.last_op()));
        one_time_value[op.output()] = true;
      } else {
        per_inference_seen = true;
      }
      for (uint32_t t : in) live_at(t, pos, where);
      live_at(op.output(), pos, where);
      int64_t kt = op_params(op, in, op.output(), where);
      work(op, op.output(), kt, where);
      if (op.frees() != nullptr) {
        for (uint32_t b : *op.frees()) {
          require(b < p.buffers()->size() && p.buffers()->Get(b)->last_op() == pos,
                  where + ".frees", "expected buffers whose lifetime ends at this op");
        }
      }
    }
    for (uint32_t i = 0; i < p.outputs()->size(); ++i) {
      uint32_t t = p.outputs()->Get(i)->tensor();
      require(t < n_tensors && defined[t] && p.outputs()->Get(i)->name() != nullptr,
              fmt::format("outputs[{}]", i), "expected a name and a tensor the program defines");
    }
    (void)dev;
  }

  void live_at(uint32_t tensor, uint32_t pos, const std::string& where) const {
    const fb::Buffer& b = *p.buffers()->Get(p.tensors()->Get(tensor)->buffer());
    require(b.first_op() <= pos && pos <= b.last_op(), where,
            fmt::format("expected the buffer of tensor {} live at op position {}, it lives "
                        "[{}, {}]",
                        tensor, pos, b.first_op(), b.last_op()));
  }

  void work(const fb::Op& op, uint32_t out, int64_t kt, const std::string& where) const {
    range_in_grid(op.cores(), where + ".cores");
    require(op.partition() <= fb::PartitionKind::MAX, where, "expected a known partition");
    program::TileView v = program::tile_view(tensor_shape(out));
    std::vector<uint8_t> seen(static_cast<size_t>(v.tiles()), 0);
    int64_t covered = 0;
    const fb::CoreRange& cr = *op.cores();
    uint32_t n_work = op.work() != nullptr ? op.work()->size() : 0;
    for (uint32_t c = 0; c < n_work; ++c) {
      const fb::CoreWork& cw = *op.work()->Get(c);
      std::string cw_where = fmt::format("{}.work[{}]", where, c);
      require(cw.core_row() >= cr.row_begin() && cw.core_row() < cr.row_end() &&
                  cw.core_col() >= cr.col_begin() && cw.core_col() < cr.col_end(),
              cw_where, "expected a core inside the op's core range");
      if (cw.items() == nullptr) continue;
      for (uint32_t i = 0; i < cw.items()->size(); ++i) {
        const fb::WorkItem& w = *cw.items()->Get(i);
        std::string iw = fmt::format("{}.items[{}]", cw_where, i);
        require(w.batch_begin() < w.batch_end() && w.batch_end() <= v.batch &&
                    w.row_begin() < w.row_end() && w.row_end() <= v.tile_rows &&
                    w.col_begin() < w.col_end() && w.col_end() <= v.tile_cols,
                iw,
                fmt::format("expected a non-empty block inside the output's {}x{}x{} tiles",
                            v.batch, v.tile_rows, v.tile_cols));
        require(w.k_begin() == 0 && w.k_end() == kt, iw,
                fmt::format("expected the full inner range [0, {}) (split-K is not supported), "
                            "got [{}, {})",
                            kt, w.k_begin(), w.k_end()));
        for (uint32_t b = w.batch_begin(); b < w.batch_end(); ++b)
          for (uint32_t r = w.row_begin(); r < w.row_end(); ++r)
            for (uint32_t col = w.col_begin(); col < w.col_end(); ++col) {
              size_t t = (static_cast<size_t>(b) * v.tile_rows + r) * v.tile_cols + col;
              require(seen[t] == 0, iw,
                      fmt::format("expected each output tile once, got tile ({}, {}, {}) again", b,
                                  r, col));
              seen[t] = 1;
              ++covered;
            }
      }
    }
    require(covered == v.tiles(), where + ".work",
            fmt::format("expected all {} output tiles computed, got {}", v.tiles(), covered));
  }

  // No two L1 buffers that are live at the same time may share bytes on a core. A sweep in
  // order of first use compares each buffer with those still live, not with all of them.
  void overlap() const {
    std::vector<const fb::Buffer*> l1;
    for (const fb::Buffer* b : *p.buffers())
      if (b->buffer_type() == fb::BufferType::L1 && b->bytes() > 0) l1.push_back(b);
    std::stable_sort(l1.begin(), l1.end(), [](const fb::Buffer* a, const fb::Buffer* b) {
      return a->first_op() < b->first_op();
    });
    std::vector<const fb::Buffer*> live;
    for (const fb::Buffer* next : l1) {
      std::erase_if(live, [&](const fb::Buffer* a) { return a->last_op() < next->first_op(); });
      const fb::Buffer& b = *next;
      for (const fb::Buffer* other : live) {
        const fb::Buffer& a = *other;
        const fb::CoreRange &ca = *a.cores(), &cb = *b.cores();
        bool cores = ca.row_begin() < cb.row_end() && cb.row_begin() < ca.row_end() &&
                     ca.col_begin() < cb.col_end() && cb.col_begin() < ca.col_end();
        bool bytes = a.address() < b.address() + b.bytes() && b.address() < a.address() + a.bytes();
        require(!(cores && bytes), "buffers",
                fmt::format("expected live L1 buffers not to overlap, got two sharing bytes at "
                            "[{}, {}) and [{}, {})",
                            a.address(), a.address() + a.bytes(), b.address(),
                            b.address() + b.bytes()));
      }
      live.push_back(next);
    }
  }
};

} // namespace

Program Program::parse(std::vector<uint8_t> bytes, std::string name) {
  flatbuffers::Verifier::Options opts;
  opts.max_depth = 64;
  opts.max_tables = 1u << 22;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), opts);
  if (bytes.size() < 8 || !fb::ProgramBufferHasIdentifier(bytes.data())) {
    throw Error(name + ": " +
                "expected a tilesat program (file identifier \"TSPG\"), got something else");
  }
  if (!fb::VerifyProgramBuffer(verifier)) {
    throw Error(name + ": " +
                "expected a well-formed program, got a corrupt FlatBuffer (verifier failed)");
  }
  const fb::Program& p = *fb::GetProgram(bytes.data());
  if (p.version_major() != program::kVersionMajor) {
    throw Error(name + ": " +
                fmt::format("version: expected major version {}, got {}.{}", program::kVersionMajor,
                            p.version_major(), p.version_minor()));
  }
  Checker c{name, p, 0, 0, {}};
  c.device();
  c.buffers();
  c.tensors();
  c.ops();
  c.overlap();
  c.input_values();
  return Program(std::move(bytes), std::move(name));
}

namespace {

std::vector<uint8_t> read_file(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open the {}", path, what));
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

} // namespace

Program Program::load(const std::string& path, Weights weights) {
  std::vector<uint8_t> bytes = read_file(path, "program file");
  // The checksum trailer (program/storage.h), required since version 1.3.
  constexpr size_t kTrailer = program::kChecksumTrailerBytes;
  bool trailer = bytes.size() >= kTrailer &&
                 std::memcmp(bytes.data() + bytes.size() - 4, program::kChecksumMagic, 4) == 0;
  if (trailer) {
    uint32_t want = 0;
    for (size_t i = 0; i < 4; ++i)
      want |= static_cast<uint32_t>(bytes[bytes.size() - kTrailer + i]) << (8 * i);
    bytes.resize(bytes.size() - kTrailer);
    boost::crc_32_type crc;
    crc.process_bytes(bytes.data(), bytes.size());
    if (crc.checksum() != want)
      throw Error(fmt::format("{}: CRC-32 {:08x} of the program does not match the {:08x} it "
                              "ends with (the file is corrupt)",
                              path, crc.checksum(), want));
  }
  Program prog = parse(std::move(bytes), path);
  if (!trailer && prog.fb().version_minor() >= 3)
    throw Error(fmt::format("{}: expected the checksum a version 1.{} program file ends with, "
                            "got none (the file is cut short or corrupt)",
                            path, prog.fb().version_minor()));
  if (weights == Weights::Read) prog.read_weights(path);
  return prog;
}

void Program::read_weights(const std::string& path) {
  if (const fb::WeightsFile* wf = fb().weights_file()) {
    require_name(wf, path);
    std::string side = (std::filesystem::path(path).parent_path() / wf->name()->str()).string();
    std::vector<uint8_t> w = read_file(side, fmt::format("weights file of {}", path));
    if (w.size() != wf->bytes())
      throw Error(fmt::format("{}: expected {} bytes (as {} records), got {}", side, wf->bytes(),
                              path, w.size()));
    boost::crc_32_type crc;
    crc.process_bytes(w.data(), w.size());
    if (crc.checksum() != wf->crc32())
      throw Error(fmt::format("{}: CRC-32 {:08x} does not match the {:08x} that {} records (the "
                              "file is corrupt or belongs to another program)",
                              side, crc.checksum(), wf->crc32(), path));
    weights_ = std::move(w);
  }
}

bool Program::stores_value(uint32_t input) const {
  const fb::Program& p = fb();
  if (p.input_values() == nullptr) return false;
  return std::any_of(p.input_values()->begin(), p.input_values()->end(),
                     [&](const fb::InputValue* v) { return v->input() == input; });
}

void Program::require_name(const fb::WeightsFile* wf, const std::string& path) {
  if (wf->name() == nullptr || wf->name()->str().empty() ||
      wf->name()->str().find('/') != std::string::npos)
    throw Error(
        fmt::format("{}: weights_file: expected a file name in the program's directory", path));
}

std::optional<std::vector<float>> Program::stored_value(uint32_t input) const {
  const fb::Program& p = fb();
  if (p.input_values() == nullptr) return std::nullopt;
  for (const fb::InputValue* v : *p.input_values()) {
    if (v->input() != input) continue;
    if (!v->external()) return std::vector<float>(v->values()->begin(), v->values()->end());
    if (weights_.empty() && v->count() > 0)
      throw Error(fmt::format("{}: input {} is stored in the weights file, which is read only "
                              "when the program is loaded from a file (and until "
                              "release_weights())",
                              name_, input));
    std::vector<float> out(v->count());
    std::memcpy(out.data(), weights_.data() + v->file_offset(), v->count() * sizeof(float));
    return out;
  }
  return std::nullopt;
}

} // namespace tilesat::runtime
