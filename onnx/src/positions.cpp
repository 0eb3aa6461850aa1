// positions.cpp: ops each of whose output elements is an element of its inputs at a position
// known at import time (indices, conditions, repeats and depths given as data): ScatterElements
// and ScatterND (any reduction), GatherND, Compress, Tile, DepthToSpace, SpaceToDepth, OneHot.
// Each becomes one `take` from its inputs laid end to end, at constant positions; scatters with
// reduction add also add a constant 0/1 matrix times the updates, and mul, max and min combine
// the data with one take per update landing on an element. A
// ScatterElements whose indices are a runtime value goes to runtime_indices.cpp.
#include "converters.h"

#include <fmt/format.h>
#include <numeric>

namespace tilesat::onnx {
namespace {

// Positions beyond this do not survive the f32 the graph's i32 values are held in.
constexpr int64_t kMaxPositions = int64_t{1} << 24;

// The row-major coordinate of flat index `e` in `dims`.
std::vector<int64_t> coord_of(int64_t e, const std::vector<int64_t>& dims) {
  std::vector<int64_t> c(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    c[d] = e % std::max<int64_t>(dims[d], 1);
    e /= std::max<int64_t>(dims[d], 1);
  }
  return c;
}

int64_t flat_of(const std::vector<int64_t>& coord, const std::vector<int64_t>& dims) {
  int64_t f = 0;
  for (size_t d = 0; d < dims.size(); ++d) f = f * dims[d] + coord[d];
  return f;
}

// The output of `shape` whose element e is element pos[e] of `sources` flattened and laid end
// to end.
Value take_positions(NodeContext& c, std::span<const Value> sources, const Shape& shape,
                     std::vector<double> pos) {
  Builder& b = c.builder();
  std::vector<Value> flat;
  int64_t total = 0;
  for (Value v : sources) {
    int64_t n = b.type(v).shape.numel();
    total += n;
    flat.push_back(b.reshape(v, {n}));
  }
  if (total >= kMaxPositions || shape.numel() >= kMaxPositions)
    c.fail(
        fmt::format("expected fewer than 2^24 elements, got {}", std::max(total, shape.numel())));
  Value src = flat.size() == 1 ? flat[0] : b.concat(flat, 0);
  return b.take(src, b.constant(shape, std::move(pos), DType::I32), 0);
}

int64_t index_in(NodeContext& c, int64_t i, int64_t extent, int64_t dim) {
  if (i < -extent || i >= extent)
    c.fail(fmt::format("index {} out of range for dim {} of extent {}", i, dim, extent));
  return i < 0 ? i + extent : i;
}

// data with update u written at flat position target[u] (reduction none: the last write
// wins; add, mul, max, min: the updates combined with the data).
void scatter(NodeContext& c, const std::vector<int64_t>& target) {
  Builder& b = c.builder();
  Value data = c.operand(0);
  TensorType t = b.type(data);
  Value updates = operand_like(c, 2, t.dtype, false);
  int64_t n = t.shape.numel();
  auto u_count = static_cast<int64_t>(target.size());
  std::string reduction = c.attr_string("reduction", "none");
  if (reduction == "none") {
    std::vector<double> pos(static_cast<size_t>(n));
    std::iota(pos.begin(), pos.end(), 0.0);
    for (int64_t u = 0; u < u_count; ++u)
      pos[static_cast<size_t>(target[static_cast<size_t>(u)])] = static_cast<double>(n + u);
    Value srcs[] = {data, updates};
    c.set_output(0, take_positions(c, srcs, t.shape, std::move(pos)));
    return;
  }
  if (reduction == "mul" || reduction == "max" || reduction == "min") {
    // Round k takes each element's k-th update, or a neutral value where fewer updates land
    // (1 for mul; the data itself for max and min), and combines it with the data.
    std::vector<std::vector<int64_t>> hits(static_cast<size_t>(n));
    for (int64_t u = 0; u < u_count; ++u)
      hits[static_cast<size_t>(target[static_cast<size_t>(u)])].push_back(u);
    size_t rounds = 0;
    for (const std::vector<int64_t>& h : hits) rounds = std::max(rounds, h.size());
    Value one = b.constant(Shape{1}, {1.0}, t.dtype);
    Value srcs[] = {data, updates, one};
    Value y = data;
    for (size_t k = 0; k < rounds; ++k) {
      std::vector<double> pos(static_cast<size_t>(n));
      for (int64_t e = 0; e < n; ++e) {
        const std::vector<int64_t>& h = hits[static_cast<size_t>(e)];
        pos[static_cast<size_t>(e)] = k < h.size()         ? static_cast<double>(n + h[k])
                                      : reduction == "mul" ? static_cast<double>(n + u_count)
                                                           : static_cast<double>(e);
      }
      Value v = take_positions(c, srcs, t.shape, std::move(pos));
      y = reduction == "mul"   ? b.multiply(y, v)
          : reduction == "max" ? b.maximum(y, v)
                               : b.minimum(y, v);
    }
    c.set_output(0, y);
    return;
  }
  if (reduction != "add")
    c.fail(fmt::format("expected reduction 'none', 'add', 'mul', 'max' or 'min', got '{}'",
                       reduction));
  if (u_count * n >= kMaxPositions)
    c.fail(fmt::format("expected fewer than 2^24 update-by-element pairs, got {}", u_count * n));
  std::vector<double> m(static_cast<size_t>(u_count * n), 0.0);
  for (int64_t u = 0; u < u_count; ++u)
    m[static_cast<size_t>(u * n + target[static_cast<size_t>(u)])] += 1.0;
  Value row = b.reshape(updates, {1, u_count});
  Value added = b.matmul(row, b.constant(Shape{u_count, n}, std::move(m), t.dtype));
  c.set_output(0, b.add(data, b.reshape(added, t.shape.dims())));
}

} // namespace

void convert_scatter_elements(NodeContext& c) {
  if (!c.input(1).data) {
    scatter_elements_runtime(c);
    return;
  }
  Shape s = c.input_shape(0);
  const HostTensor& ind = c.input_data(1, "indices");
  int64_t rank = s.rank();
  int64_t axis = norm_axis(c.attr_int("axis", 0), std::max<int64_t>(rank, 1), "'axis'");
  if (static_cast<int64_t>(ind.dims.size()) != rank)
    c.fail(fmt::format("expected indices of rank {}, got {}", rank, ind.dims.size()));
  if (c.input_shape(2).dims() != ind.dims) c.fail("expected updates of the indices' shape");
  std::vector<int64_t> idx = ind.ints(), target;
  for (int64_t e = 0; e < static_cast<int64_t>(idx.size()); ++e) {
    std::vector<int64_t> co = coord_of(e, ind.dims);
    co[static_cast<size_t>(axis)] = index_in(c, idx[static_cast<size_t>(e)], s[axis], axis);
    target.push_back(flat_of(co, s.dims()));
  }
  scatter(c, target);
}

void convert_scatter_nd_runtime(NodeContext& c) {
  if (c.input_static(0) && c.input_static(1) && c.input_static(2)) {
    convert_scatter_nd(c); // folded at import
    return;
  }
  Shape s = c.input_shape(0);
  const HostTensor& ind = c.input_data(1, "indices");
  if (ind.dims.empty()) c.fail("expected indices of rank >= 1");
  int64_t depth = ind.dims.back(), rank = s.rank();
  if (depth < 1 || depth > rank)
    c.fail(fmt::format("expected the last indices dim in [1, {}], got {}", rank, depth));
  int64_t slice = 1;
  for (int64_t d = depth; d < rank; ++d) slice *= s[d];
  int64_t tuples = static_cast<int64_t>(ind.values.size()) / depth;
  if (c.input_shape(2).numel() != tuples * slice)
    c.fail(
        fmt::format("expected {} update values, got {}", tuples * slice, c.input_shape(2).numel()));
  std::vector<int64_t> idx = ind.ints(), target;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t offset = 0;
    for (int64_t d = 0; d < depth; ++d)
      offset = offset * s[d] + index_in(c, idx[static_cast<size_t>(t * depth + d)], s[d], d);
    for (int64_t e = 0; e < slice; ++e) target.push_back(offset * slice + e);
  }
  scatter(c, target);
}

void convert_gather_nd(NodeContext& c) {
  Value data = c.operand(0);
  Shape s = c.builder().type(data).shape;
  const HostTensor& ind = c.input_data(1, "indices");
  int64_t batch = c.attr_int("batch_dims", 0), rank = s.rank();
  auto q = static_cast<int64_t>(ind.dims.size());
  if (q < 1 || batch < 0 || batch >= q) c.fail("expected indices of rank > batch_dims");
  int64_t depth = ind.dims.back();
  if (depth < 1 || batch + depth > rank)
    c.fail(fmt::format("expected the last indices dim in [1, {}], got {}", rank - batch, depth));
  // Output: the batch dims, the indices' other dims, then data's dims after the indexed ones.
  std::vector<int64_t> out(ind.dims.begin(), ind.dims.end() - 1);
  for (int64_t d = batch + depth; d < rank; ++d) out.push_back(s[d]);
  int64_t slice = 1;
  for (int64_t d = batch + depth; d < rank; ++d) slice *= s[d];
  int64_t per_batch = 1; // index tuples per batch element
  for (int64_t d = batch; d + 1 < q; ++d) per_batch *= ind.dims[static_cast<size_t>(d)];
  int64_t batch_size = 1;
  for (int64_t d = batch; d < rank; ++d) batch_size *= s[d];
  std::vector<int64_t> idx = ind.ints();
  std::vector<double> pos;
  int64_t tuples = static_cast<int64_t>(idx.size()) / depth;
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t bi = t / per_batch, offset = 0;
    for (int64_t d = 0; d < depth; ++d)
      offset = offset * s[batch + d] +
               index_in(c, idx[static_cast<size_t>(t * depth + d)], s[batch + d], batch + d);
    for (int64_t e = 0; e < slice; ++e)
      pos.push_back(static_cast<double>(bi * batch_size + offset * slice + e));
  }
  Value srcs[] = {data};
  c.set_output(0, take_positions(c, srcs, Shape(out), std::move(pos)));
}

void convert_compress(NodeContext& c) {
  Value x = c.operand(0);
  Shape s = c.builder().type(x).shape;
  std::vector<int64_t> cond = c.input_data(1, "condition").ints();
  std::vector<double> pos;
  std::vector<int64_t> out;
  if (!c.has_attr("axis")) {
    for (size_t i = 0; i < cond.size() && static_cast<int64_t>(i) < s.numel(); ++i)
      if (cond[i] != 0) pos.push_back(static_cast<double>(i));
    out = {static_cast<int64_t>(pos.size())};
  } else {
    int64_t axis = norm_axis(c.attr_int("axis", 0), std::max<int64_t>(s.rank(), 1), "'axis'");
    std::vector<int64_t> kept;
    for (size_t i = 0; i < cond.size() && static_cast<int64_t>(i) < s[axis]; ++i)
      if (cond[i] != 0) kept.push_back(static_cast<int64_t>(i));
    out = s.dims();
    out[static_cast<size_t>(axis)] = static_cast<int64_t>(kept.size());
    int64_t n = Shape(out).numel();
    for (int64_t e = 0; e < n; ++e) {
      std::vector<int64_t> co = coord_of(e, out);
      co[static_cast<size_t>(axis)] = kept[static_cast<size_t>(co[static_cast<size_t>(axis)])];
      pos.push_back(static_cast<double>(flat_of(co, s.dims())));
    }
  }
  if (pos.empty()) c.fail("expected a condition that keeps at least one element");
  Value srcs[] = {x};
  c.set_output(0, take_positions(c, srcs, Shape(out), std::move(pos)));
}

void convert_tile(NodeContext& c) {
  Value x = c.operand(0);
  Shape s = c.builder().type(x).shape;
  std::vector<int64_t> rep = c.input_data(1, "repeats").ints();
  if (static_cast<int64_t>(rep.size()) != s.rank())
    c.fail(fmt::format("expected {} repeats, got {}", s.rank(), rep.size()));
  std::vector<int64_t> out = s.dims();
  for (size_t d = 0; d < out.size(); ++d) {
    if (rep[d] < 1) c.fail(fmt::format("expected repeats >= 1, got {}", rep[d]));
    out[d] *= rep[d];
  }
  std::vector<double> pos;
  for (int64_t e = 0; e < Shape(out).numel(); ++e) {
    std::vector<int64_t> co = coord_of(e, out);
    for (size_t d = 0; d < co.size(); ++d) co[d] %= s.dims()[d];
    pos.push_back(static_cast<double>(flat_of(co, s.dims())));
  }
  Value srcs[] = {x};
  c.set_output(0, take_positions(c, srcs, Shape(out), std::move(pos)));
}

void convert_depth_space(NodeContext& c) {
  Value x = c.operand(0);
  Shape s = c.builder().type(x).shape;
  if (s.rank() != 4) c.fail(fmt::format("expected an NCHW input, got rank {}", s.rank()));
  int64_t bs = c.attr_int("blocksize", 0);
  if (bs < 1) c.fail(fmt::format("expected 'blocksize' >= 1, got {}", bs));
  int64_t n = s[0], ch = s[1], h = s[2], w = s[3];
  bool to_space = c.node().op_type() == "DepthToSpace";
  bool crd = c.attr_string("mode", "DCR") == "CRD";
  if (to_space ? ch % (bs * bs) != 0 : (h % bs != 0 || w % bs != 0))
    c.fail("expected dims divisible by the block size");
  std::vector<int64_t> out = to_space ? std::vector<int64_t>{n, ch / (bs * bs), h * bs, w * bs}
                                      : std::vector<int64_t>{n, ch * bs * bs, h / bs, w / bs};
  std::vector<double> pos;
  for (int64_t e = 0; e < Shape(out).numel(); ++e) {
    std::vector<int64_t> o = coord_of(e, out);
    int64_t src_c = 0, src_h = 0, src_w = 0;
    if (to_space) {
      int64_t bh = o[2] % bs, bw = o[3] % bs, oc = out[1];
      // DCR: channel = (bh * bs + bw) * C' + c; CRD: channel = c * bs * bs + bh * bs + bw.
      src_c = crd ? o[1] * bs * bs + bh * bs + bw : (bh * bs + bw) * oc + o[1];
      src_h = o[2] / bs;
      src_w = o[3] / bs;
    } else {
      int64_t block = o[1] / ch, cc = o[1] % ch;
      src_c = cc;
      src_h = o[2] * bs + block / bs;
      src_w = o[3] * bs + block % bs;
    }
    pos.push_back(static_cast<double>(((o[0] * ch + src_c) * h + src_h) * w + src_w));
  }
  Value srcs[] = {x};
  c.set_output(0, take_positions(c, srcs, Shape(out), std::move(pos)));
}

void convert_one_hot(NodeContext& c) {
  const HostTensor& ind = c.input_data(0, "indices");
  const HostTensor& depth_t = c.input_data(1, "depth");
  if (depth_t.numel() != 1) c.fail("expected a one-element 'depth'");
  auto depth = static_cast<int64_t>(depth_t.values[0]);
  if (depth < 1) c.fail(fmt::format("expected depth >= 1, got {}", depth));
  if (c.input_shape(2).numel() != 2) c.fail("expected 'values' [off, on]");
  auto rank = static_cast<int64_t>(ind.dims.size()) + 1;
  int64_t axis = norm_axis(c.attr_int("axis", -1), rank, "'axis'");
  std::vector<int64_t> out(ind.dims.begin(), ind.dims.end());
  out.insert(out.begin() + axis, depth);
  std::vector<int64_t> idx = ind.ints();
  std::vector<double> pos(static_cast<size_t>(Shape(out).numel()), 0.0);
  for (int64_t e = 0; e < static_cast<int64_t>(pos.size()); ++e) {
    std::vector<int64_t> o = coord_of(e, out);
    int64_t k = o[static_cast<size_t>(axis)];
    o.erase(o.begin() + axis);
    int64_t i = idx[static_cast<size_t>(flat_of(o, ind.dims))];
    if (i < 0) i += depth;
    pos[static_cast<size_t>(e)] = i == k ? 1.0 : 0.0; // values[1] (on) or values[0] (off)
  }
  Value values = c.operand(2);
  Value srcs[] = {values};
  c.set_output(0, take_positions(c, srcs, Shape(out), std::move(pos)));
}

void convert_conv_transpose(NodeContext& c) {
  // A transposed convolution is a convolution (stride 1, the same dilation) of the input with
  // stride - 1 zeros between its elements and dilation * (kernel - 1) - pad zeros around it,
  // by the kernel flipped in space with its two channel dims swapped per group. The spread
  // input and the flipped kernel are takes at constant positions (the kernel's is one-time
  // work on weights); 1-D is 2-D with a height of 1, 3-D a 3-D convolution (volume.cpp).
  Builder& b = c.builder();
  Value x = c.operand(0);
  TensorType xt = b.type(x);
  DType dt = xt.dtype;
  Value w = operand_like(c, 1, dt, false);
  Shape ws = b.type(w).shape;
  int64_t rank = xt.shape.rank();
  if (rank < 3 || rank > 5)
    c.fail(fmt::format("expected a 1-D, 2-D or 3-D (rank 3, 4 or 5) input, got rank {}", rank));
  int64_t sp = rank - 2; // spatial dims
  if (ws.rank() != rank)
    c.fail(fmt::format("expected a weight of rank {}, got {}", rank, ws.rank()));
  int64_t groups = c.attr_int("group", 1);
  int64_t n = xt.shape[0], cin = xt.shape[1];
  if (groups < 1 || cin % groups != 0 || ws[0] != cin)
    c.fail(fmt::format("expected a weight [C={}, M/group, k...] with C divisible by group {}", cin,
                       groups));
  int64_t mg = ws[1], cg = cin / groups, m = mg * groups;
  auto ints = [&](const char* name, int64_t fill, int64_t count) {
    std::vector<int64_t> v =
        c.attr_ints(name, std::vector<int64_t>(static_cast<size_t>(count), fill));
    if (static_cast<int64_t>(v.size()) != count)
      c.fail(fmt::format("expected {} values in '{}', got {}", count, name, v.size()));
    return v;
  };
  std::vector<int64_t> stride = ints("strides", 1, sp), dil = ints("dilations", 1, sp);
  std::vector<int64_t> out_pad = ints("output_padding", 0, sp), pads = ints("pads", 0, 2 * sp);
  std::vector<int64_t> in_sp, k_sp;
  for (int64_t d = 0; d < sp; ++d) {
    in_sp.push_back(xt.shape[2 + d]);
    k_sp.push_back(ws[2 + d]);
  }
  std::string auto_pad = c.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> out_shape = c.attr_ints("output_shape", {});
  if (!out_shape.empty() && static_cast<int64_t>(out_shape.size()) != sp)
    c.fail(fmt::format("expected {} values in 'output_shape', got {}", sp, out_shape.size()));
  for (int64_t d = 0; d < sp; ++d) {
    auto i = static_cast<size_t>(d);
    int64_t full = stride[i] * (in_sp[i] - 1) + out_pad[i] + (k_sp[i] - 1) * dil[i] + 1;
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      int64_t want = out_shape.empty() ? in_sp[i] * stride[i] : out_shape[i];
      int64_t total = full - want; // negative: zeros added at the end
      // SAME_UPPER (and an output_shape) put the odd padding at the end.
      int64_t small = total / 2;
      pads[i] = auto_pad == "SAME_LOWER" ? total - small : small;
      pads[i + static_cast<size_t>(sp)] = total - pads[i];
    } else if (auto_pad == "VALID") {
      pads[i] = pads[i + static_cast<size_t>(sp)] = 0;
    } else if (auto_pad != "NOTSET") {
      c.fail(fmt::format("unsupported 'auto_pad' \"{}\"", auto_pad));
    }
  }
  // As 2-D or 3-D: [N, C, H, W] with H = 1 for 1-D.
  const int64_t nd = sp == 1 ? 2 : sp;
  auto lifted = [&](const std::vector<int64_t>& v, int64_t fill) {
    std::vector<int64_t> out = v;
    if (sp == 1) out.insert(out.begin(), fill);
    return out;
  };
  std::vector<int64_t> in2 = lifted(in_sp, 1), k2 = lifted(k_sp, 1), s2 = lifted(stride, 1),
                       d2 = lifted(dil, 1);
  std::vector<int64_t> lo(static_cast<size_t>(nd), 0), hi(static_cast<size_t>(nd), 0);
  for (int64_t d = 0; d < sp; ++d) {
    auto i = static_cast<size_t>(d), j = static_cast<size_t>(d + nd - sp);
    lo[j] = dil[i] * (k_sp[i] - 1) - pads[i];
    hi[j] = dil[i] * (k_sp[i] - 1) - pads[i + static_cast<size_t>(sp)] + out_pad[i];
  }
  std::vector<int64_t> sdims{n, cin}, kdims{m, cg};
  for (size_t j = 0; j < static_cast<size_t>(nd); ++j) {
    sdims.push_back((in2[j] - 1) * s2[j] + 1 + lo[j] + hi[j]);
    kdims.push_back(k2[j]);
    if (sdims.back() < d2[j] * (k2[j] - 1) + 1)
      c.fail("expected an output of at least one element");
  }
  // The spread input: element (n, c, p...) is x at ((p - lo) / s...) where that is a whole
  // in-range position, else the zero after x's elements.
  int64_t x_count = n * cin;
  for (int64_t e : in2) x_count *= e;
  std::vector<double> pos;
  pos.reserve(static_cast<size_t>(Shape(sdims).numel()));
  for (int64_t e = 0; e < Shape(sdims).numel(); ++e) {
    std::vector<int64_t> o = coord_of(e, sdims);
    int64_t src = o[0] * cin + o[1];
    for (size_t j = 0; j < static_cast<size_t>(nd) && src < x_count; ++j) {
      int64_t p = o[j + 2] - lo[j];
      bool inside = p >= 0 && p % s2[j] == 0 && p / s2[j] < in2[j];
      src = inside ? src * in2[j] + p / s2[j] : x_count; // else the zero
    }
    pos.push_back(static_cast<double>(src));
  }
  Value srcs[] = {x, b.constant(Shape{1}, {0.0}, dt)};
  Value xs = take_positions(c, srcs, Shape(sdims), std::move(pos));
  // The kernel: out channel g * M/g + mo, in channel ci of group g reads
  // w[g * C/g + ci, mo, k - 1 - i...], flipped in every spatial dim.
  std::vector<double> kpos;
  for (int64_t e = 0; e < Shape(kdims).numel(); ++e) {
    std::vector<int64_t> o = coord_of(e, kdims);
    int64_t g = o[0] / mg, mo = o[0] % mg;
    int64_t src = (g * cg + o[1]) * mg + mo;
    for (size_t j = 0; j < static_cast<size_t>(nd); ++j) src = src * k2[j] + (k2[j] - 1 - o[j + 2]);
    kpos.push_back(static_cast<double>(src));
  }
  Value ws_src[] = {w};
  Value kernel = take_positions(c, ws_src, Shape(kdims), std::move(kpos));
  Value bias;
  if (c.has_input(2)) bias = operand_like(c, 2, dt, false);
  Value y;
  if (nd == 3) {
    ConvWindow win{k2, {1, 1, 1}, d2, {0, 0, 0}, {0, 0, 0}};
    y = conv3d_as_2d(b, xs, kernel, c.has_input(2) ? &bias : nullptr, win, groups);
  } else {
    Conv2dOptions o;
    o.dilation = d2;
    o.groups = groups;
    y = c.has_input(2) ? b.conv2d(xs, kernel, bias, o) : b.conv2d(xs, kernel, o);
  }
  if (sp == 1) {
    Shape ys = b.type(y).shape;
    y = b.reshape(y, {ys[0], ys[1], ys[3]});
  }
  c.set_output(0, y);
}

} // namespace tilesat::onnx
