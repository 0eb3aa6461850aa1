// recurrent.cpp: LSTM, GRU and RNN, unrolled over the sequence into the graph's own ops, so
// they plan, lower and run like any other: one matrix product of the whole input sequence with
// the input weights per direction, then per time step a product of the hidden state with the
// recurrent weights, slices of the gates and their activations. The sequence length is the
// input's static extent; `sequence_lens` known at import time masks the steps past each
// batch item's length (the state is kept, the output is zero), as the ONNX spec defines them.
//
//   LSTM(X [T, B, I], W [D, 4H, I], R [D, 4H, H], B [D, 8H]) -> Y [T, D, B, H], Y_h, Y_c
#include "converters.h"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

namespace tilesat::onnx {
namespace {

struct ActivationSpec {
  std::string_view name;
  bool has_alpha, has_beta;
  double alpha, beta; // the spec's defaults
};

constexpr ActivationSpec kActivations[] = {
    {"Relu", false, false, 0, 0},        {"Tanh", false, false, 0, 0},
    {"Sigmoid", false, false, 0, 0},     {"Affine", true, true, 1, 0},
    {"LeakyRelu", true, false, 0.01, 0}, {"ThresholdedRelu", true, false, 1, 0},
    {"ScaledTanh", true, true, 1, 1},    {"HardSigmoid", true, true, 0.2, 0.5},
    {"Elu", true, false, 1, 0},          {"Softsign", false, false, 0, 0},
    {"Softplus", false, false, 0, 0},
};

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Which recurrence a node is: its gates per hidden unit and its activation functions.
enum class Cell { Lstm, Gru, Rnn };

int gates_of(Cell cell) {
  return cell == Cell::Lstm ? 4 : cell == Cell::Gru ? 3 : 1;
}

// The node's inputs and attributes, checked against one another.
struct Recurrence {
  Cell cell = Cell::Rnn;
  int64_t seq = 0, batch = 0, input_size = 0, hidden = 0, directions = 1;
  bool batch_first = false; // layout 1: X [B, T, I], Y [B, T, D, H], states [B, D, H]
  std::string direction;
  std::optional<double> clip;
  std::vector<Activation> activations; // per direction, in the spec's order
  std::vector<int64_t> lengths;        // per batch item, empty when every one is `seq`
};

Recurrence read_recurrence(NodeContext& c, Cell cell) {
  Recurrence r;
  r.cell = cell;
  const int64_t gates = gates_of(cell);
  r.batch_first = c.attr_int("layout", 0) != 0;
  r.direction = c.attr_string("direction", "forward");
  if (r.direction == "bidirectional")
    r.directions = 2;
  else if (r.direction != "forward" && r.direction != "reverse")
    c.fail(fmt::format("expected 'direction' forward, reverse or bidirectional, got \"{}\"",
                       r.direction));
  Shape x = c.input_shape(0), w = c.input_shape(1), rr = c.input_shape(2);
  if (x.rank() != 3) c.fail(fmt::format("expected a rank-3 input X, got rank {}", x.rank()));
  r.seq = x[r.batch_first ? 1 : 0];
  r.batch = x[r.batch_first ? 0 : 1];
  r.input_size = x[2];
  if (rr.rank() != 3) c.fail(fmt::format("expected a rank-3 input R, got rank {}", rr.rank()));
  r.hidden = rr[2];
  if (c.has_attr("hidden_size") && c.attr_int("hidden_size", 0) != r.hidden)
    c.fail(fmt::format("'hidden_size' {} does not match R's last dim {}",
                       c.attr_int("hidden_size", 0), r.hidden));
  auto expect = [&](size_t i, std::string_view what, const std::vector<int64_t>& dims) {
    if (!c.has_input(i)) return;
    Shape s = c.input_shape(i);
    if (s.dims() != dims)
      c.fail(fmt::format("expected input {} ({}) of shape {}, got {}", i, what, Shape(dims).str(),
                         s.str()));
  };
  const int64_t d = r.directions, h = r.hidden, b = r.batch;
  expect(1, "W", {d, gates * h, r.input_size});
  expect(2, "R", {d, gates * h, h});
  expect(3, "B", {d, 2 * gates * h});
  std::vector<int64_t> state =
      r.batch_first ? std::vector<int64_t>{b, d, h} : std::vector<int64_t>{d, b, h};
  expect(5, "initial_h", state);
  if (cell == Cell::Lstm) {
    expect(6, "initial_c", state);
    expect(7, "P", {d, 3 * h});
  }
  if (r.seq < 1) c.fail("expected a sequence of at least one step");
  if (c.has_input(4)) {
    std::vector<int64_t> lens = c.input_data(4, "sequence_lens").ints();
    if (static_cast<int64_t>(lens.size()) != b)
      c.fail(fmt::format("expected 'sequence_lens' to hold {} lengths (the batch), got {}", b,
                         lens.size()));
    for (int64_t len : lens)
      if (len < 1 || len > r.seq)
        c.fail(fmt::format("expected every 'sequence_lens' entry in [1, {}], got {}", r.seq, len));
    if (std::any_of(lens.begin(), lens.end(), [&](int64_t len) { return len != r.seq; }))
      r.lengths = lens;
  }
  if (c.has_attr("clip")) {
    r.clip = c.attr_float("clip", 0);
    if (!(*r.clip > 0)) c.fail(fmt::format("expected a positive 'clip', got {}", *r.clip));
  }
  // activations: f, g, h (LSTM), f, g (GRU) or f (RNN) per direction.
  const std::vector<std::string_view> defaults =
      cell == Cell::Lstm  ? std::vector<std::string_view>{"Sigmoid", "Tanh", "Tanh"}
      : cell == Cell::Gru ? std::vector<std::string_view>{"Sigmoid", "Tanh"}
                          : std::vector<std::string_view>{"Tanh"};
  std::vector<std::string> names;
  if (const auto* a = c.attr("activations")) names.assign(a->strings().begin(), a->strings().end());
  if (names.empty())
    for (int64_t dir = 0; dir < d; ++dir)
      names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != defaults.size() * static_cast<size_t>(d))
    c.fail(fmt::format("expected {} 'activations' ({} per direction), got {}",
                       defaults.size() * static_cast<size_t>(d), defaults.size(), names.size()));
  std::vector<float> alphas, betas;
  if (const auto* a = c.attr("activation_alpha"))
    alphas.assign(a->floats().begin(), a->floats().end());
  if (const auto* a = c.attr("activation_beta"))
    betas.assign(a->floats().begin(), a->floats().end());
  std::span<const float> alpha_rest(alphas), beta_rest(betas);
  for (const std::string& name : names) {
    std::optional<Activation> a = activation_named(name, alpha_rest, beta_rest);
    if (!a) c.fail(fmt::format("unsupported activation \"{}\" in 'activations'", name));
    r.activations.push_back(*a);
  }
  return r;
}

// One direction's weights, each a slice of the node's inputs.
struct DirectionWeights {
  Value w;                 // [G*H, I]
  Value r;                 // [G*H, H]
  std::optional<Value> wb; // [G*H]
  std::optional<Value> rb; // [G*H]
  Value h0, c0;            // [B, H]
  std::optional<Value> p;  // [3H]
};

class Unroller {
public:
  Unroller(NodeContext& c, const Recurrence& r) : c_(c), b_(c.builder()), r_(r) {
    dtype_ = b_.type(c.operand(0)).dtype;
  }

  void run() {
    const int64_t t_steps = r_.seq, batch = r_.batch, h = r_.hidden;
    Value x = c_.operand(0);
    if (r_.batch_first) x = b_.permute(x, {1, 0, 2});
    Value rows = b_.reshape(x, {t_steps * batch, r_.input_size});
    std::vector<Value> ys, hs, cs;
    for (int64_t dir = 0; dir < r_.directions; ++dir) {
      const bool reverse = r_.direction == "reverse" || dir == 1;
      DirectionWeights wt = weights(dir);
      // Every step's input product at once: [T*B, G*H].
      Value xw = b_.matmul(rows, wt.w, MatmulOptions{.transpose_b = true});
      if (wt.wb) xw = b_.add(xw, *wt.wb);
      Value state = wt.h0, cell = wt.c0;
      std::vector<std::optional<Value>> outputs(static_cast<size_t>(t_steps));
      for (int64_t s = 0; s < t_steps; ++s) {
        const int64_t t = reverse ? t_steps - 1 - s : s;
        Value xt = b_.slice(xw, {t * batch, 0}, {(t + 1) * batch, gates_of(r_.cell) * h});
        auto [next_h, next_c] = step(dir, wt, xt, state, cell);
        if (r_.lengths.empty()) {
          state = next_h;
          cell = next_c;
          outputs[static_cast<size_t>(t)] = next_h;
          continue;
        }
        // Past a batch item's length its state stays and its output is zero.
        Value live = mask(t);
        outputs[static_cast<size_t>(t)] = b_.multiply(next_h, live);
        state = blend(live, next_h, state);
        if (r_.cell == Cell::Lstm) cell = blend(live, next_c, cell);
      }
      std::vector<Value> per_step;
      for (const auto& y : outputs) per_step.push_back(b_.reshape(*y, {1, 1, batch, h}));
      ys.push_back(b_.concat(per_step, 0));
      hs.push_back(b_.reshape(state, {1, batch, h}));
      cs.push_back(b_.reshape(cell, {1, batch, h}));
    }
    Value y = b_.concat(ys, 1); // [T, D, B, H]
    Value yh = b_.concat(hs, 0), yc = b_.concat(cs, 0);
    if (r_.batch_first) {
      y = b_.permute(y, {2, 0, 1, 3});
      yh = b_.permute(yh, {1, 0, 2});
      yc = b_.permute(yc, {1, 0, 2});
    }
    if (c_.wants_output(0)) c_.set_output(0, y);
    if (c_.wants_output(1)) c_.set_output(1, yh);
    if (r_.cell == Cell::Lstm && c_.wants_output(2)) c_.set_output(2, yc);
  }

private:
  // A slice [from, to) of dim `dim` of input i's direction `dir`, without the direction dim.
  Value part(size_t i, int64_t dir, int64_t from, int64_t to) {
    Value v = operand_like(c_, i, dtype_, false);
    Shape s = b_.type(v).shape;
    std::vector<int64_t> begins(static_cast<size_t>(s.rank()), 0), ends = s.dims();
    begins[0] = dir;
    ends[0] = dir + 1;
    begins[1] = from;
    ends[1] = to;
    std::vector<int64_t> out(ends.begin() + 1, ends.end());
    out[0] = to - from;
    return b_.reshape(b_.slice(v, begins, ends), out);
  }

  // Input i ([D, B, H], or [B, D, H] batch first) for direction `dir` as [B, H]; zero without it.
  Value state_input(size_t i, int64_t dir) {
    const int64_t batch = r_.batch, h = r_.hidden;
    if (!c_.has_input(i)) return b_.full(Shape({batch, h}), 0, dtype_);
    Value v = operand_like(c_, i, dtype_, false);
    Value s = r_.batch_first ? b_.slice(v, {0, dir, 0}, {batch, dir + 1, h})
                             : b_.slice(v, {dir, 0, 0}, {dir + 1, batch, h});
    return b_.reshape(s, {batch, h});
  }

  DirectionWeights weights(int64_t dir) {
    const int64_t gh = gates_of(r_.cell) * r_.hidden;
    const bool lstm = r_.cell == Cell::Lstm;
    Value h0 = state_input(5, dir);
    DirectionWeights wt{part(1, dir, 0, gh),
                        part(2, dir, 0, gh),
                        std::nullopt,
                        std::nullopt,
                        h0,
                        lstm ? state_input(6, dir) : h0,
                        std::nullopt};
    if (c_.has_input(3)) {
      wt.wb = part(3, dir, 0, gh);
      wt.rb = part(3, dir, gh, 2 * gh);
    }
    if (lstm && c_.has_input(7)) wt.p = part(7, dir, 0, 3 * r_.hidden);
    return wt;
  }

  Value cols(Value v, int64_t gate, int64_t count = 1) {
    const int64_t h = r_.hidden;
    return b_.slice(v, {0, gate * h}, {r_.batch, (gate + count) * h});
  }

  // `v` sliced to [from, to) of its only dim.
  Value range(Value v, int64_t from, int64_t to) { return b_.slice(v, {from}, {to}); }

  Value act(int64_t dir, size_t which, Value v) {
    if (r_.clip) {
      Value clamped = b_.maximum(v, b_.scalar(-*r_.clip, dtype_));
      v = b_.minimum(clamped, b_.scalar(*r_.clip, dtype_));
    }
    size_t per = r_.activations.size() / static_cast<size_t>(r_.directions);
    return apply_activation(b_, r_.activations[static_cast<size_t>(dir) * per + which], v);
  }

  // h @ R[rows]^T (+ Rb[rows]) for gate rows [from, to) of R.
  Value recurrent(const DirectionWeights& wt, Value h, int64_t from, int64_t to) {
    Value r = (from == 0 && to == b_.type(wt.r).shape[0])
                  ? wt.r
                  : b_.slice(wt.r, {from, 0}, {to, r_.hidden});
    Value out = b_.matmul(h, r, MatmulOptions{.transpose_b = true});
    if (wt.rb)
      out = b_.add(out,
                   from == 0 && to == b_.type(*wt.rb).shape[0] ? *wt.rb : range(*wt.rb, from, to));
    return out;
  }

  std::pair<Value, Value> step(int64_t dir, const DirectionWeights& wt, Value xt, Value h,
                               Value cell) {
    const int64_t hid = r_.hidden;
    switch (r_.cell) {
    case Cell::Rnn:
      return {act(dir, 0, b_.add(xt, recurrent(wt, h, 0, hid))), cell};
    case Cell::Gru: {
      // Gates z, r, h: z and r from x and h; the candidate from x and r * h (or r times h's
      // product with linear_before_reset).
      Value zr_in = cols(xt, 0, 2);
      Value zr = b_.add(zr_in, recurrent(wt, h, 0, 2 * hid));
      Value z = act(dir, 0, cols(zr, 0));
      Value reset = act(dir, 0, cols(zr, 1));
      Value candidate_in = c_.attr_int("linear_before_reset", 0) != 0
                               ? b_.multiply(reset, recurrent(wt, h, 2 * hid, 3 * hid))
                               : recurrent(wt, b_.multiply(reset, h), 2 * hid, 3 * hid);
      Value candidate = act(dir, 1, b_.add(cols(xt, 2), candidate_in));
      // (1 - z) * candidate + z * h
      Value one = b_.scalar(1, dtype_);
      Value kept_candidate = b_.multiply(b_.subtract(one, z), candidate);
      return {b_.add(kept_candidate, b_.multiply(z, h)), cell};
    }
    case Cell::Lstm: {
      // Gates i, o, f, c; peepholes P = [p_i, p_o, p_f] read the cell state. With input_forget
      // the forget gate is 1 - i, and p_f goes unread.
      Value g = b_.add(xt, recurrent(wt, h, 0, 4 * hid));
      Value i = cols(g, 0), o = cols(g, 1), cand = cols(g, 3);
      if (wt.p) i = b_.add(i, b_.multiply(range(*wt.p, 0, hid), cell));
      i = act(dir, 0, i);
      Value f = i;
      if (c_.attr_int("input_forget", 0) != 0) {
        f = b_.subtract(b_.scalar(1, dtype_), i);
      } else {
        f = cols(g, 2);
        if (wt.p) f = b_.add(f, b_.multiply(range(*wt.p, 2 * hid, 3 * hid), cell));
        f = act(dir, 0, f);
      }
      Value kept_cell = b_.multiply(f, cell);
      Value next_c = b_.add(kept_cell, b_.multiply(i, act(dir, 1, cand)));
      if (wt.p) o = b_.add(o, b_.multiply(range(*wt.p, hid, 2 * hid), next_c));
      o = act(dir, 0, o);
      return {b_.multiply(o, act(dir, 2, next_c)), next_c};
    }
    }
    return {h, cell};
  }

  // 1 for the batch items still inside their sequence at step t, else 0: [B, 1].
  Value mask(int64_t t) {
    std::vector<double> live;
    for (int64_t len : r_.lengths) live.push_back(t < len ? 1.0 : 0.0);
    return b_.constant(Shape({r_.batch, 1}), std::move(live), dtype_);
  }

  // live * next + (1 - live) * prev
  Value blend(Value live, Value next, Value prev) {
    return b_.add(prev, b_.multiply(live, b_.subtract(next, prev)));
  }

  NodeContext& c_;
  Builder& b_;
  const Recurrence& r_;
  DType dtype_ = DType::F32;
};

void convert_recurrent(NodeContext& c, Cell cell) {
  Recurrence r = read_recurrence(c, cell);
  Unroller(c, r).run();
}

} // namespace

std::optional<Activation> activation_named(std::string_view name, std::span<const float>& alphas,
                                           std::span<const float>& betas) {
  for (const ActivationSpec& s : kActivations) {
    if (!same_name(s.name, name)) continue;
    Activation a{std::string(s.name), s.alpha, s.beta};
    if (s.has_alpha && !alphas.empty()) {
      a.alpha = alphas.front();
      alphas = alphas.subspan(1);
    }
    if (s.has_beta && !betas.empty()) {
      a.beta = betas.front();
      betas = betas.subspan(1);
    }
    return a;
  }
  return std::nullopt;
}

Value apply_activation(Builder& b, const Activation& a, Value x) {
  DType d = b.type(x).dtype;
  auto k = [&](double v) { return b.scalar(v, d); };
  const std::string& n = a.name;
  if (n == "Relu") return b.relu(x);
  if (n == "Tanh") return b.tanh(x);
  if (n == "Sigmoid") return b.sigmoid(x);
  if (n == "Affine") {
    Value scaled = b.multiply(x, k(a.alpha));
    return b.add(scaled, k(a.beta));
  }
  if (n == "LeakyRelu") {
    Value pos = b.maximum(x, k(0));
    Value slope = k(a.alpha);
    Value neg = b.multiply(slope, b.minimum(x, k(0)));
    return b.add(pos, neg);
  }
  if (n == "ThresholdedRelu") {
    Value above = b.greater(x, k(a.alpha));
    return b.where(above, x, k(0));
  }
  if (n == "ScaledTanh") {
    Value scale = k(a.alpha);
    return b.multiply(scale, b.tanh(b.multiply(x, k(a.beta))));
  }
  if (n == "HardSigmoid") return hard_sigmoid(b, x, a.alpha, a.beta);
  if (n == "Elu") {
    Value positive = b.greater(x, k(0));
    Value scale = k(a.alpha);
    Value e = b.exp(x);
    Value negative = b.multiply(scale, b.subtract(e, k(1)));
    return b.where(positive, x, negative);
  }
  if (n == "Softsign") {
    Value magnitude = b.abs(x);
    return b.divide(x, b.add(magnitude, k(1)));
  }
  if (n == "Softplus") {
    Value e = b.exp(x);
    return b.log(b.add(e, k(1)));
  }
  throw Error(fmt::format("unknown activation '{}'", n));
}

void convert_lstm(NodeContext& c) {
  convert_recurrent(c, Cell::Lstm);
}
void convert_gru(NodeContext& c) {
  convert_recurrent(c, Cell::Gru);
}
void convert_rnn(NodeContext& c) {
  convert_recurrent(c, Cell::Rnn);
}

} // namespace tilesat::onnx
