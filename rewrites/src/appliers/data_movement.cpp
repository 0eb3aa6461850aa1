// data_movement.cpp: computed right sides of the transpose, broadcast and canonical families.
#include "applier_impl.h"

#include <map>
#include <numeric>

namespace tilesat::rewrites::appliers {
namespace {

std::vector<int64_t> right_aligned(int64_t rank, int64_t result_rank) {
  std::vector<int64_t> d(static_cast<size_t>(rank));
  std::iota(d.begin(), d.end(), result_rank - rank);
  return d;
}

} // namespace

egraph::Id compose_permutations(ApplyContext& c) {
  std::optional<std::vector<int64_t>> inner = c.int_list(1), outer = c.int_list(2);
  if (!inner || !outer || inner->size() != outer->size()) return egraph::kNoId;
  // y = permute(x, q): y dim i is x dim q[i]; z = permute(y, p): z dim i is x dim q[p[i]].
  std::vector<int64_t> composed;
  bool identity = true;
  for (size_t i = 0; i < outer->size(); ++i) {
    int64_t p = (*outer)[i];
    if (p < 0 || p >= static_cast<int64_t>(inner->size())) return egraph::kNoId;
    composed.push_back((*inner)[static_cast<size_t>(p)]);
    identity = identity && composed.back() == static_cast<int64_t>(i);
  }
  egraph::Id x = c.cls(0);
  if (identity) return c.if_fits_root(x);
  Attrs a;
  a.set("permutation", composed);
  egraph::Id xs[] = {x};
  return c.if_fits_root(c.add(OpKind::Permute, xs, a));
}

egraph::Id compose_broadcasts(ApplyContext& c) {
  std::optional<std::vector<int64_t>> inner_shape = c.int_list(1), inner_dims = c.int_list(2);
  std::optional<std::vector<int64_t>> shape = c.int_list(3), dims = c.int_list(4);
  if (!inner_shape || !inner_dims || !shape || !dims) return egraph::kNoId;
  egraph::Id x = c.cls(0);
  auto x_rank = static_cast<int64_t>(c.analysis()[x].type.shape.rank());
  auto mid_rank = static_cast<int64_t>(inner_shape->size());
  auto out_rank = static_cast<int64_t>(shape->size());
  std::vector<int64_t> e = inner_dims->empty() ? right_aligned(x_rank, mid_rank) : *inner_dims;
  std::vector<int64_t> d = dims->empty() ? right_aligned(mid_rank, out_rank) : *dims;
  if (static_cast<int64_t>(e.size()) != x_rank || static_cast<int64_t>(d.size()) != mid_rank) {
    return egraph::kNoId;
  }
  std::vector<int64_t> composed;
  for (int64_t m : e) {
    if (m < 0 || m >= mid_rank) return egraph::kNoId;
    composed.push_back(d[static_cast<size_t>(m)]);
  }
  Attrs a;
  a.set("shape", *shape);
  if (composed != right_aligned(x_rank, out_rank)) a.set("dims", composed);
  egraph::Id xs[] = {x};
  return c.if_fits_root(c.add(OpKind::Broadcast, xs, a));
}

namespace {

// Beyond this many elements chain_as_reshape declines a chain whose strides do not decide it
// rather than trace every index.
constexpr int64_t kMaxTracedElements = int64_t{1} << 22;
// The chains chain_as_reshape remembers per thread before it forgets them all.
constexpr size_t kMaxTracedChains = 4096;

// `data` (row-major over `shape`) permuted: result dim i is operand dim perm[i].
std::optional<std::vector<int64_t>> permuted(const std::vector<int64_t>& data,
                                             std::vector<int64_t>& shape,
                                             const std::vector<int64_t>& perm) {
  size_t rank = shape.size();
  if (perm.size() != rank) return std::nullopt;
  std::vector<int64_t> strides(rank, 1), out_shape(rank), out_strides(rank);
  for (size_t i = rank; i-- > 1;) strides[i - 1] = strides[i] * shape[i];
  for (size_t i = 0; i < rank; ++i) {
    if (perm[i] < 0 || perm[i] >= static_cast<int64_t>(rank)) return std::nullopt;
    out_shape[i] = shape[static_cast<size_t>(perm[i])];
    out_strides[i] = strides[static_cast<size_t>(perm[i])];
  }
  std::vector<int64_t> out(data.size()), index(rank, 0);
  int64_t offset = 0;
  for (int64_t& o : out) {
    o = data[static_cast<size_t>(offset)];
    for (size_t d = rank; d-- > 0;) { // odometer over the result's row-major order
      offset += out_strides[d];
      if (++index[d] < out_shape[d]) break;
      offset -= out_strides[d] * out_shape[d];
      index[d] = 0;
    }
  }
  shape = out_shape;
  return out;
}

// Where element `i` of x (row-major over `shape`) lands after permute `perm`, reshape to the
// second permute's operand shape `mid` and permute `q`: its row-major index in the result.
int64_t chained_index(int64_t i, const std::vector<int64_t>& shape,
                      const std::vector<int64_t>& perm, const std::vector<int64_t>& mid,
                      const std::vector<int64_t>& q) {
  auto unravel = [](int64_t at, const std::vector<int64_t>& dims) {
    std::vector<int64_t> idx(dims.size());
    for (size_t d = dims.size(); d-- > 0;) {
      idx[d] = dims[d] == 0 ? 0 : at % dims[d];
      at = dims[d] == 0 ? 0 : at / dims[d];
    }
    return idx;
  };
  // The row-major index of `idx` permuted by `order` over `dims` permuted by it.
  auto permuted_index = [](const std::vector<int64_t>& idx, const std::vector<int64_t>& dims,
                           const std::vector<int64_t>& order) {
    int64_t at = 0;
    for (int64_t k : order) at = at * dims[static_cast<size_t>(k)] + idx[static_cast<size_t>(k)];
    return at;
  };
  int64_t after_p = permuted_index(unravel(i, shape), shape, perm);
  return permuted_index(unravel(after_p, mid), mid, q);
}

// The chain as strided views of x, when its reshape needs no copy: permute p is x with its
// strides permuted; the reshape of that view to `mid` is again a view exactly when each run of
// its dims that merges or splits is contiguous in it (NumPy's no-copy reshape); the chain is
// a reshape iff permute q of that view has the row-major strides of `out` on every dim longer
// than 1. Nullopt when the reshape would copy (the caller traces the elements instead).
std::optional<bool> chain_is_reshape_by_strides(const std::vector<int64_t>& shape,
                                                const std::vector<int64_t>& p,
                                                const std::vector<int64_t>& mid,
                                                const std::vector<int64_t>& q,
                                                const std::vector<int64_t>& out) {
  const size_t rank = shape.size();
  std::vector<int64_t> x_strides(rank, 1);
  for (size_t i = rank; i-- > 1;) x_strides[i - 1] = x_strides[i] * shape[i];
  // The permuted view without its unit dims (they carry no elements).
  std::vector<int64_t> dims, strides;
  for (int64_t k : p) {
    const auto d = static_cast<size_t>(k);
    if (shape[d] == 1) continue;
    if (shape[d] == 0) return std::nullopt;
    dims.push_back(shape[d]);
    strides.push_back(x_strides[d]);
  }
  // Match runs of the view's dims with runs of mid's whose products agree.
  std::vector<int64_t> mid_strides(mid.size(), 0);
  size_t oi = 0, ni = 0;
  while (oi < dims.size() && ni < mid.size()) {
    if (mid[ni] == 1) {
      ++ni;
      continue;
    }
    size_t oj = oi + 1, nj = ni + 1;
    int64_t op = dims[oi], np = mid[ni];
    while (op != np) {
      if (np < op) {
        if (nj == mid.size()) return std::nullopt;
        np *= mid[nj++];
      } else {
        if (oj == dims.size()) return std::nullopt;
        op *= dims[oj++];
      }
    }
    for (size_t k = oi; k + 1 < oj; ++k)
      if (strides[k] != dims[k + 1] * strides[k + 1]) return std::nullopt; // would copy
    mid_strides[nj - 1] = strides[oj - 1];
    for (size_t k = nj - 1; k > ni; --k) mid_strides[k - 1] = mid_strides[k] * mid[k];
    oi = oj;
    ni = nj;
  }
  std::vector<int64_t> out_strides(out.size(), 1);
  for (size_t i = out.size(); i-- > 1;) out_strides[i - 1] = out_strides[i] * out[i];
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] > 1 && mid_strides[static_cast<size_t>(q[i])] != out_strides[i]) return false;
  return true;
}

} // namespace

egraph::Id chain_as_reshape(ApplyContext& c) {
  std::optional<std::vector<int64_t>> p = c.int_list(1), q = c.int_list(3);
  egraph::Id x = c.cls(0);
  const TensorType& xt = c.analysis()[x].type;
  int64_t n = xt.shape.numel();
  if (!p || !q) return egraph::kNoId;
  std::vector<int64_t> shape = xt.shape.dims();
  // The reshape keeps the row-major data; its shape is the second permute's operand shape.
  const Shape& out = c.root().type.shape;
  if (static_cast<int64_t>(q->size()) != out.rank() || p->size() != shape.size())
    return egraph::kNoId;
  for (int64_t k : *p)
    if (k < 0 || k >= static_cast<int64_t>(shape.size())) return egraph::kNoId;
  std::vector<int64_t> mid(q->size());
  for (size_t i = 0; i < q->size(); ++i) {
    int64_t src = (*q)[i];
    if (src < 0 || src >= out.rank()) return egraph::kNoId;
    mid[static_cast<size_t>(src)] = out[static_cast<int64_t>(i)];
  }
  // Most chains move elements: the first element of every dim, its last one and the last
  // element of all show it without tracing the whole tensor.
  std::vector<int64_t> samples{1, n - 1};
  for (int64_t stride = 1, d = static_cast<int64_t>(shape.size()); d-- > 0;) {
    samples.push_back(stride);
    stride *= shape[static_cast<size_t>(d)];
    samples.push_back(stride - 1);
  }
  for (int64_t i : samples)
    if (i > 0 && i < n && chained_index(i, shape, *p, mid, *q) != i) return egraph::kNoId;
  // Where each element of x ends up, from the strides when the reshape is a view of the
  // permuted x, else traced; the chain is a reshape iff nothing moved. A match recurs every
  // iteration: each chain is decided once (per thread).
  std::vector<int64_t> key = shape;
  for (const std::vector<int64_t>* part : {&*p, &mid, &*q}) {
    key.push_back(-1);
    key.insert(key.end(), part->begin(), part->end());
  }
  thread_local std::map<std::vector<int64_t>, bool> traced;
  if (traced.size() >= kMaxTracedChains) traced.clear(); // bounded in a long-lived process
  auto [it, fresh] = traced.try_emplace(std::move(key), false);
  if (fresh) {
    if (std::optional<bool> by_strides =
            chain_is_reshape_by_strides(shape, *p, mid, *q, out.dims())) {
      it->second = *by_strides;
    } else if (n <= kMaxTracedElements) {
      std::vector<int64_t> data(static_cast<size_t>(n));
      std::iota(data.begin(), data.end(), 0);
      std::optional<std::vector<int64_t>> after = permuted(data, shape, *p);
      if (after) after = permuted(*after, mid, *q);
      it->second = after && *after == data;
    }
  }
  if (!it->second) return egraph::kNoId;
  Attrs a;
  a.set("shape", out.dims());
  egraph::Id xs[] = {x};
  return c.if_fits_root(c.add(OpKind::Reshape, xs, a));
}

egraph::Id softmax_from_sum(ApplyContext& c) {
  std::optional<std::vector<int64_t>> dims = c.int_list(1);
  egraph::Id x = c.cls(0);
  int64_t rank = c.analysis()[x].type.shape.rank();
  int64_t dim = 0;
  if (dims && dims->size() == 1) {
    std::optional<int64_t> d = normalize_axis((*dims)[0], rank);
    if (!d) return egraph::kNoId;
    dim = *d;
  } else if (dims && dims->empty() && rank == 1) {
    dim = 0; // a sum over all dims of a vector is a sum over its one dim
  } else {
    return egraph::kNoId;
  }
  Attrs a;
  a.set("dimension", dim);
  // tt-mlir's fused softmax carries this flag; tilesat keeps it as text (the reference
  // softmax is exact either way).
  a.set("numericStable", OpaqueAttr{"false"});
  egraph::Id xs[] = {x};
  return c.if_fits_root(c.add(OpKind::Softmax, xs, a));
}

} // namespace tilesat::rewrites::appliers
