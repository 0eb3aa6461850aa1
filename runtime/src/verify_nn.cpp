// verify_nn.cpp: parameter checks of conv2d, pool2d, layer_norm, rms_norm, take and where.
#include "verify_nn.h"

#include "tilesat/graph/window.h"

#include <fmt/format.h>

namespace tilesat::runtime::detail {
namespace {

constexpr int64_t kMaxWindow = int64_t{1} << 20;

void require(bool ok, std::string field, std::string what) {
  if (!ok) throw ParamError{std::move(field), std::move(what)};
}

void arity(std::span<const Dims> in, size_t lo, size_t hi) {
  require(in.size() >= lo && in.size() <= hi, ".inputs",
          fmt::format("expected {}..{} inputs, got {}", lo, hi, in.size()));
}

void result_shape(const Dims& want, const Dims& out, const char* what) {
  require(
      out == want, "",
      fmt::format("expected the {} result shape {}, got {}", what, dims_str(want), dims_str(out)));
}

void rank(const Dims& d, size_t r, const char* field, const char* what) {
  require(d.size() == r, field,
          fmt::format("expected {} of rank {}, got rank {}", what, r, d.size()));
}

// The output extents of a window over the input's spatial dims [N, C, H, W].
std::pair<int64_t, int64_t> window_out(const fb::Window2d* w, const Dims& x, bool ceil_mode) {
  require(w != nullptr, ".params.window", "expected a window, got none");
  auto positive = [](uint32_t v) { return v >= 1 && v <= kMaxWindow; };
  require(positive(w->kernel_h()) && positive(w->kernel_w()) && positive(w->stride_h()) &&
              positive(w->stride_w()) && positive(w->dilation_h()) && positive(w->dilation_w()),
          ".params.window",
          fmt::format("expected kernel, stride and dilation in [1, {}], got kernel {}x{} stride "
                      "{}x{} dilation {}x{}",
                      kMaxWindow, w->kernel_h(), w->kernel_w(), w->stride_h(), w->stride_w(),
                      w->dilation_h(), w->dilation_w()));
  require(w->pad_top() <= kMaxWindow && w->pad_left() <= kMaxWindow &&
              w->pad_bottom() <= kMaxWindow && w->pad_right() <= kMaxWindow,
          ".params.window", fmt::format("expected padding of at most {}", kMaxWindow));
  std::optional<int64_t> oh = window_extent(x[2], w->kernel_h(), w->stride_h(), w->pad_top(),
                                            w->pad_bottom(), w->dilation_h(), ceil_mode);
  std::optional<int64_t> ow = window_extent(x[3], w->kernel_w(), w->stride_w(), w->pad_left(),
                                            w->pad_right(), w->dilation_w(), ceil_mode);
  require(oh.has_value() && ow.has_value(), ".params.window",
          fmt::format("expected the dilated kernel inside the padded {}x{} input", x[2], x[3]));
  return {*oh, *ow};
}

// The input as an NCHW image: as is, or the [N, C, H, W] of a flattened NHWC input.
Dims image(const fb::FlatImage* flat, const Dims& x) {
  rank(x, 4, ".inputs[0]", flat != nullptr ? "a flattened NHWC input" : "an NCHW input");
  if (flat == nullptr) return x;
  auto in_range = [](uint32_t v) { return v >= 1 && v <= kMaxWindow; };
  require(in_range(flat->batch()) && in_range(flat->height()) && in_range(flat->width()),
          ".params.flat",
          fmt::format("expected batch, height and width in [1, {}], got {}, {}, {}", kMaxWindow,
                      flat->batch(), flat->height(), flat->width()));
  int64_t pixels = int64_t{flat->batch()} * flat->height() * flat->width();
  require(
      x[0] == 1 && x[1] == 1 && x[2] == pixels, ".inputs[0]",
      fmt::format("expected a flattened NHWC input [1, 1, {}, C], got {}", pixels, dims_str(x)));
  return {flat->batch(), x[3], flat->height(), flat->width()};
}

// The result shape of an image of `channels` channels and extents oh x ow.
Dims result_of(const fb::FlatImage* flat, int64_t batch, int64_t channels, int64_t oh, int64_t ow) {
  if (flat == nullptr) return {batch, channels, oh, ow};
  return {1, 1, batch * oh * ow, channels};
}

void conv2d(const fb::Conv2d& p, std::span<const Dims> in, const Dims& out) {
  arity(in, 2, 3);
  const Dims x = image(p.flat(), in[0]);
  const Dims& w = in[1];
  rank(w, 4, ".inputs[1]", "an OIHW weight");
  int64_t groups = p.groups();
  require(groups >= 1 && x[1] % groups == 0 && w[0] % groups == 0 && w[1] * groups == x[1],
          ".params.groups",
          fmt::format("expected groups dividing {} input and {} output channels, with {} input "
                      "channels per group in the weight, got groups {}",
                      x[1], w[0], w[1], groups));
  require(p.window() != nullptr && p.window()->kernel_h() == w[2] && p.window()->kernel_w() == w[3],
          ".params.window", fmt::format("expected the weight's {}x{} kernel", w[2], w[3]));
  require(p.has_bias() == (in.size() == 3), ".params.has_bias",
          fmt::format("expected has_bias to say whether there is a third input ({} inputs)",
                      in.size()));
  if (p.has_bias()) {
    // [O] or a broadcastable form such as 1x1x1xO: O elements read in order.
    int64_t elems = 1;
    for (int64_t e : in[2]) elems *= e;
    require(elems == w[0] && !in[2].empty(), ".inputs[2]",
            fmt::format("expected a bias of {} elements, got {}", w[0], dims_str(in[2])));
  }
  require(!p.has_activation() || p.activation() <= fb::UnaryKind::MAX, ".params.activation",
          "expected a known unary op");
  auto [oh, ow] = window_out(p.window(), x, false);
  result_shape(result_of(p.flat(), x[0], w[0], oh, ow), out, "conv2d");
}

void pool2d(const fb::Pool2d& p, std::span<const Dims> in, const Dims& out) {
  arity(in, 1, 1);
  require(p.kind() <= fb::PoolKind::MAX, ".params.kind", "expected max or avg");
  const Dims x = image(p.flat(), in[0]);
  auto [oh, ow] = window_out(p.window(), x, p.ceil_mode());
  result_shape(result_of(p.flat(), x[0], x[1], oh, ow), out, "pool2d");
}

// The checks layer_norm and rms_norm share: `axis` a dim of the input, a non-negative
// `epsilon`, `params` inputs after the first (`flags` names the fields that say so), each
// broadcasting right-aligned over the normalized dims [axis, rank).
void norm(const char* name, int64_t axis, double epsilon, size_t params, const std::string& flags,
          std::span<const Dims> in, const Dims& out) {
  const Dims& x = in[0];
  require(!x.empty() && axis >= 0 && axis < static_cast<int64_t>(x.size()), ".params.axis",
          fmt::format("expected a dim of the rank-{} input, got {}", x.size(), axis));
  require(epsilon >= 0.0, ".params.epsilon",
          fmt::format("expected a non-negative epsilon, got {}", epsilon));
  require(in.size() == 1 + params, ".inputs",
          fmt::format("expected {} inputs ({}), got {}", 1 + params, flags, in.size()));
  Dims normalized(x.begin() + axis, x.end());
  for (size_t i = 1; i < in.size(); ++i) {
    require(in[i].size() <= normalized.size(), fmt::format(".inputs[{}]", i),
            fmt::format("expected at most the {} normalized dims", normalized.size()));
    std::optional<std::string> e =
        dims_map_error(in[i], normalized, right_aligned_map(in[i].size(), normalized.size()));
    require(!e, fmt::format(".inputs[{}]", i), e.value_or(""));
  }
  result_shape(x, out, name);
}

void layer_norm(const fb::LayerNorm& p, std::span<const Dims> in, const Dims& out) {
  arity(in, 1, 3);
  require(!p.has_bias() || p.has_scale(), ".params", "expected a bias only with a scale");
  norm("layer_norm", p.axis(), p.epsilon(), (p.has_scale() ? 1 : 0) + (p.has_bias() ? 1 : 0),
       fmt::format("has_scale {}, has_bias {}", p.has_scale(), p.has_bias()), in, out);
}

void rms_norm(const fb::RmsNorm& p, std::span<const Dims> in, const Dims& out) {
  arity(in, 1, 2);
  norm("rms_norm", p.axis(), p.epsilon(), p.has_weight() ? 1 : 0,
       fmt::format("has_weight {}", p.has_weight()), in, out);
}

void take(const fb::Take& p, std::span<const Dims> in, std::span<const fb::DType> dtypes,
          const Dims& out) {
  arity(in, 2, 2);
  const Dims& data = in[0];
  require(!data.empty() && p.dim() >= 0 && p.dim() < static_cast<int64_t>(data.size()),
          ".params.dim",
          fmt::format("expected a dim of the rank-{} data, got {}", data.size(), p.dim()));
  require(dtypes[1] == fb::DType::I32, ".inputs[1]",
          fmt::format("expected i32 indices, got {}", fb::EnumNameDType(dtypes[1])));
  auto d = static_cast<size_t>(p.dim());
  Dims want(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(d));
  want.insert(want.end(), in[1].begin(), in[1].end());
  want.insert(want.end(), data.begin() + static_cast<std::ptrdiff_t>(d) + 1, data.end());
  result_shape(want, out, "take");
}

void where(std::span<const Dims> in, const Dims& out) {
  arity(in, 3, 3);
  for (size_t i = 0; i < 3; ++i) {
    std::string field = fmt::format(".inputs[{}]", i);
    require(in[i].size() <= out.size(), field, "expected an operand of rank <= the result's");
    std::optional<std::string> e =
        dims_map_error(in[i], out, right_aligned_map(in[i].size(), out.size()));
    require(!e, field, e.value_or(""));
  }
}

} // namespace

std::string dims_str(const Dims& d) {
  return fmt::format("[{}]", fmt::join(d, ", "));
}

std::optional<std::string> dims_map_error(const Dims& in, const Dims& out, const Dims& map) {
  if (map.size() != in.size())
    return fmt::format("expected {} entries (the operand rank), got {}", in.size(), map.size());
  std::vector<bool> used(out.size(), false);
  for (size_t i = 0; i < map.size(); ++i) {
    if (map[i] < 0 || static_cast<size_t>(map[i]) >= out.size() ||
        used[static_cast<size_t>(map[i])])
      return fmt::format("expected distinct dims < {}, got {}", out.size(), map[i]);
    used[static_cast<size_t>(map[i])] = true;
    int64_t e = in[i], o = out[static_cast<size_t>(map[i])];
    if (e != 1 && e != o)
      return fmt::format("expected operand dim {} to be 1 or {}, got {}", i, o, e);
  }
  return std::nullopt;
}

Dims right_aligned_map(size_t rank, size_t out_rank) {
  Dims m;
  for (size_t i = 0; i < rank; ++i) m.push_back(static_cast<int64_t>(out_rank - rank + i));
  return m;
}

bool is_nn_op(const fb::Op& op) {
  switch (op.params_type()) {
  case fb::OpParams::Conv2d:
  case fb::OpParams::Pool2d:
  case fb::OpParams::LayerNorm:
  case fb::OpParams::RmsNorm:
  case fb::OpParams::Take:
  case fb::OpParams::Where:
    return true;
  default:
    return false;
  }
}

void check_nn_params(const fb::Op& op, std::span<const Dims> in, std::span<const fb::DType> dtypes,
                     const Dims& out) {
  switch (op.params_type()) {
  case fb::OpParams::Conv2d:
    return conv2d(*op.params_as_Conv2d(), in, out);
  case fb::OpParams::Pool2d:
    return pool2d(*op.params_as_Pool2d(), in, out);
  case fb::OpParams::LayerNorm:
    return layer_norm(*op.params_as_LayerNorm(), in, out);
  case fb::OpParams::RmsNorm:
    return rms_norm(*op.params_as_RmsNorm(), in, out);
  case fb::OpParams::Take:
    return take(*op.params_as_Take(), in, dtypes, out);
  case fb::OpParams::Where:
    return where(in, out);
  default:
    throw ParamError{".params", "expected known op parameters"};
  }
}

} // namespace tilesat::runtime::detail
