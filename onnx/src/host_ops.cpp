// host_ops.cpp: import-time evaluation of the ops that compute shapes.
#include "host_ops.h"

#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/shape.h"

#include <fmt/format.h>

namespace tilesat::onnx {

namespace {

std::vector<int64_t> strides_of(std::span<const int64_t> dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

int64_t numel_of(std::span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d != 0 && n > kMaxHostElements / d) {
      throw Error(fmt::format("expected at most {} elements in a folded tensor, got more",
                              kMaxHostElements));
    }
    n *= d;
  }
  return n;
}

// Calls f(flat result index, index vector) over a row-major shape.
template <class F>
void for_each_index(std::span<const int64_t> dims, F f) {
  int64_t n = numel_of(dims);
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(k, idx);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
}

} // namespace

int64_t norm_axis(int64_t axis, int64_t rank, std::string_view what) {
  std::optional<int64_t> a = normalize_axis(axis, rank);
  if (!a) throw Error(fmt::format("expected {} in [{}, {}), got {}", what, -rank, rank, axis));
  return *a;
}

HostTensor host_unary(const HostTensor& a, const std::function<double(double)>& f,
                      int32_t elem_type) {
  HostTensor out{elem_type, a.dims, {}};
  out.values.reserve(a.values.size());
  for (double v : a.values) out.values.push_back(f(v));
  return out;
}

HostTensor host_binary(const HostTensor& a, const HostTensor& b,
                       const std::function<double(double, double)>& f, int32_t elem_type) {
  std::optional<Shape> s = broadcast_shapes(Shape(a.dims), Shape(b.dims));
  if (!s) {
    throw Error(fmt::format("expected broadcastable shapes, got [{}] and [{}]",
                            fmt::join(a.dims, ", "), fmt::join(b.dims, ", ")));
  }
  HostTensor out{elem_type, s->dims(), {}};
  auto rank = static_cast<size_t>(s->rank());
  auto operand_strides = [&](const std::vector<int64_t>& dims) {
    std::vector<int64_t> own = strides_of(dims), st(rank, 0);
    for (size_t i = 0; i < dims.size(); ++i) {
      if (dims[i] != 1) st[rank - dims.size() + i] = own[i];
    }
    return st;
  };
  std::vector<int64_t> sa = operand_strides(a.dims), sb = operand_strides(b.dims);
  out.values.resize(static_cast<size_t>(numel_of(out.dims)));
  for_each_index(out.dims, [&](int64_t k, const std::vector<int64_t>& idx) {
    int64_t ia = 0, ib = 0;
    for (size_t d = 0; d < rank; ++d) {
      ia += idx[d] * sa[d];
      ib += idx[d] * sb[d];
    }
    out.values[static_cast<size_t>(k)] =
        f(a.values[static_cast<size_t>(ia)], b.values[static_cast<size_t>(ib)]);
  });
  return out;
}

HostTensor host_take(const HostTensor& data, const HostTensor& indices, int64_t axis) {
  if (data.dims.empty()) throw Error("expected data of rank >= 1, got rank 0");
  auto r = static_cast<int64_t>(data.dims.size());
  axis = norm_axis(axis, r, "'axis'");
  int64_t outer = 1, extent = data.dims[static_cast<size_t>(axis)], inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= data.dims[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < r; ++d) inner *= data.dims[static_cast<size_t>(d)];
  HostTensor out{data.elem_type, {}, {}};
  out.dims.assign(data.dims.begin(), data.dims.begin() + axis);
  out.dims.insert(out.dims.end(), indices.dims.begin(), indices.dims.end());
  out.dims.insert(out.dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  numel_of(out.dims);
  std::vector<int64_t> idx = indices.ints();
  for (int64_t& i : idx) {
    if (i < -extent || i >= extent) {
      throw Error(fmt::format("expected indices in [{}, {}), got {}", -extent, extent, i));
    }
    if (i < 0) i += extent;
  }
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i : idx) {
      for (int64_t k = 0; k < inner; ++k) {
        out.values.push_back(data.values[static_cast<size_t>((o * extent + i) * inner + k)]);
      }
    }
  }
  return out;
}

HostTensor host_concat(std::span<const HostTensor* const> parts, int64_t axis) {
  if (parts.empty()) throw Error("expected at least one input, got none");
  const HostTensor& first = *parts[0];
  auto r = static_cast<int64_t>(first.dims.size());
  axis = norm_axis(axis, r, "'axis'");
  HostTensor out{first.elem_type, first.dims, {}};
  out.dims[static_cast<size_t>(axis)] = 0;
  for (const HostTensor* p : parts) {
    bool ok = static_cast<int64_t>(p->dims.size()) == r;
    for (int64_t d = 0; ok && d < r; ++d) {
      ok = d == axis || p->dims[static_cast<size_t>(d)] == first.dims[static_cast<size_t>(d)];
    }
    if (!ok) {
      throw Error(fmt::format("expected inputs to match except in axis {}, got [{}] and [{}]", axis,
                              fmt::join(p->dims, ", "), fmt::join(first.dims, ", ")));
    }
    out.dims[static_cast<size_t>(axis)] += p->dims[static_cast<size_t>(axis)];
  }
  int64_t outer = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= first.dims[static_cast<size_t>(d)];
  for (int64_t o = 0; o < outer; ++o) {
    for (const HostTensor* p : parts) {
      int64_t chunk = outer == 0 ? 0 : p->numel() / outer;
      auto begin = p->values.begin() + o * chunk;
      out.values.insert(out.values.end(), begin, begin + chunk);
    }
  }
  return out;
}

HostTensor host_slice(const HostTensor& a, std::span<const SliceDim> dims) {
  HostTensor out{a.elem_type, {}, {}};
  for (const SliceDim& d : dims) out.dims.push_back(d.count);
  std::vector<int64_t> st = strides_of(a.dims);
  out.values.resize(static_cast<size_t>(numel_of(out.dims)));
  for_each_index(out.dims, [&](int64_t k, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < dims.size(); ++d) off += (dims[d].start + idx[d] * dims[d].step) * st[d];
    out.values[static_cast<size_t>(k)] = a.values[static_cast<size_t>(off)];
  });
  return out;
}

HostTensor host_permute(const HostTensor& a, std::span<const int64_t> perm) {
  HostTensor out{a.elem_type, {}, {}};
  std::vector<int64_t> st = strides_of(a.dims), pst;
  for (int64_t p : perm) {
    out.dims.push_back(a.dims[static_cast<size_t>(p)]);
    pst.push_back(st[static_cast<size_t>(p)]);
  }
  out.values.resize(static_cast<size_t>(numel_of(out.dims)));
  for_each_index(out.dims, [&](int64_t k, const std::vector<int64_t>& idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * pst[d];
    out.values[static_cast<size_t>(k)] = a.values[static_cast<size_t>(off)];
  });
  return out;
}

std::vector<SliceDim> slice_dims(std::span<const int64_t> shape, std::span<const int64_t> starts,
                                 std::span<const int64_t> ends, std::span<const int64_t> axes,
                                 std::span<const int64_t> steps) {
  auto rank = static_cast<int64_t>(shape.size());
  std::vector<SliceDim> out;
  for (int64_t d : shape) out.push_back(SliceDim{0, d, 1});
  if (starts.size() != ends.size() || (!axes.empty() && axes.size() != starts.size()) ||
      (!steps.empty() && steps.size() != starts.size())) {
    throw Error(fmt::format("expected starts, ends, axes and steps of equal length, got {}, {}, "
                            "{} and {}",
                            starts.size(), ends.size(), axes.size(), steps.size()));
  }
  std::vector<bool> seen(shape.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = norm_axis(axes.empty() ? static_cast<int64_t>(i) : axes[i], rank, "axes");
    if (seen[static_cast<size_t>(axis)]) throw Error("expected distinct axes, got a repeat");
    seen[static_cast<size_t>(axis)] = true;
    int64_t dim = shape[static_cast<size_t>(axis)];
    int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0) throw Error("expected non-zero steps, got 0");
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    int64_t count = step > 0 ? (e - s + step - 1) / step : (s - e + (-step) - 1) / (-step);
    out[static_cast<size_t>(axis)] = SliceDim{s, std::max<int64_t>(count, 0), step};
  }
  return out;
}

std::vector<int64_t> reshape_dims(std::span<const int64_t> in, std::span<const int64_t> shape,
                                  bool allow_zero) {
  int64_t total = numel_of(in);
  std::vector<int64_t> out;
  int64_t known = 1, infer_at = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allow_zero) {
      if (i >= in.size()) {
        throw Error(fmt::format("expected a 0 in the shape only where the input has a dim, got "
                                "one at position {}",
                                i));
      }
      d = in[i];
    }
    if (d == -1) {
      if (infer_at >= 0) throw Error("expected at most one -1 in the shape, got two");
      infer_at = static_cast<int64_t>(i);
      out.push_back(1);
      continue;
    }
    if (d < 0) throw Error(fmt::format("expected shape entries >= -1, got {}", d));
    out.push_back(d);
    known = numel_of(out);
  }
  if (infer_at >= 0) {
    if (known == 0 || total % known != 0) {
      throw Error(fmt::format("cannot infer the -1 of shape [{}] for {} elements",
                              fmt::join(shape, ", "), total));
    }
    out[static_cast<size_t>(infer_at)] = total / known;
  }
  if (numel_of(out) != total) {
    throw Error(
        fmt::format("expected a shape with {} elements, got [{}]", total, fmt::join(out, ", ")));
  }
  return out;
}

} // namespace tilesat::onnx
