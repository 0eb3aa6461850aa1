// einsum.cpp: Einsum as the graph's own ops. The operands are combined left to right, two at a
// time, each pair as one (batched) matrix product: the labels both share and still need become
// the batch, the labels only they share are contracted, the others are the rows and columns. A
// label no later operand and not the output names is summed first; the result is permuted to
// the output's order. Ellipsis dims broadcast as NumPy's do; a label repeated within one term
// takes the diagonal.
//
//   Einsum("bhqd,bhkd->bhqk", q, k) = matmul(q, k^T) over the batch dims b, h
#include "converters.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace tilesat::onnx {
namespace {

// A dim's label: a letter's code, or kEllipsis + k for the k-th ellipsis dim from the right.
using Label = int;
constexpr Label kEllipsis = 1000;

struct Term {
  std::vector<Label> labels; // one per dim
  Value value;
};

// The labels of one term of the equation for an operand of `rank` dims (rank -1: the output,
// whose ellipsis covers `ellipsis_dims`).
std::vector<Label> parse_term(NodeContext& c, std::string_view term, int64_t rank,
                              int64_t ellipsis_dims) {
  std::vector<Label> letters_before, letters_after;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    char ch = term[i];
    if (ch == '.') {
      if (ellipsis || term.substr(i, 3) != "...")
        c.fail(fmt::format("expected at most one '...' in the term \"{}\"", term));
      ellipsis = true;
      i += 2;
    } else if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
      (ellipsis ? letters_after : letters_before).push_back(ch);
    } else {
      c.fail(fmt::format("unexpected character '{}' in the 'equation' term \"{}\"", ch, term));
    }
  }
  int64_t letters = static_cast<int64_t>(letters_before.size() + letters_after.size());
  int64_t dots = rank < 0 ? ellipsis_dims : rank - letters;
  if (!ellipsis && rank >= 0 && dots != 0)
    c.fail(
        fmt::format("the term \"{}\" names {} dims of an operand of rank {}", term, letters, rank));
  if (dots < 0)
    c.fail(
        fmt::format("the term \"{}\" names {} dims of an operand of rank {}", term, letters, rank));
  std::vector<Label> labels = letters_before;
  if (ellipsis)
    for (int64_t k = dots - 1; k >= 0; --k) labels.push_back(kEllipsis + static_cast<Label>(k));
  labels.insert(labels.end(), letters_after.begin(), letters_after.end());
  return labels;
}

std::string label_name(Label l) {
  return l >= kEllipsis ? "..." : std::string(1, static_cast<char>(l));
}

class Einsum {
public:
  explicit Einsum(NodeContext& c) : c_(c), b_(c.builder()) {}

  void run() {
    std::string eq;
    for (char ch : c_.attr_string("equation", "")) eq += ch == ' ' ? "" : std::string(1, ch);
    size_t arrow = eq.find("->");
    std::string lhs = eq.substr(0, arrow);
    std::vector<std::string> terms;
    for (size_t from = 0;;) {
      size_t comma = lhs.find(',', from);
      terms.push_back(lhs.substr(from, comma - from));
      if (comma == std::string::npos) break;
      from = comma + 1;
    }
    if (terms.size() != c_.num_inputs())
      c_.fail(fmt::format("the 'equation' \"{}\" has {} operand terms for {} inputs", eq,
                          terms.size(), c_.num_inputs()));
    int64_t ellipsis_dims = 0;
    std::map<Label, int64_t> counts;
    for (size_t i = 0; i < terms.size(); ++i) {
      Value v = c_.operand(i);
      Term t{parse_term(c_, terms[i], b_.type(v).shape.rank(), 0), v};
      for (Label l : t.labels) {
        if (l >= kEllipsis) ellipsis_dims = std::max<int64_t>(ellipsis_dims, l - kEllipsis + 1);
        ++counts[l];
      }
      operands_.push_back(std::move(t));
    }
    if (arrow != std::string::npos) {
      output_ = parse_term(c_, eq.substr(arrow + 2), -1, ellipsis_dims);
      for (Label l : output_)
        if (!counts.count(l))
          c_.fail(fmt::format("the output label '{}' names no operand dim", label_name(l)));
    } else {
      // Implicit output: the ellipsis dims, then the letters used once, in alphabetical order.
      for (int64_t k = ellipsis_dims - 1; k >= 0; --k)
        output_.push_back(kEllipsis + static_cast<Label>(k));
      for (auto [l, n] : counts)
        if (l < kEllipsis && n == 1) output_.push_back(l);
    }
    check_extents();
    for (Term& t : operands_) t = diagonal(std::move(t));
    Term acc = sum_unneeded(operands_[0], 1);
    for (size_t i = 1; i < operands_.size(); ++i)
      acc = combine(acc, sum_unneeded(operands_[i], i + 1, acc.labels), i + 1);
    // Everything not in the output is summed by now; permute to the output's order.
    Value y = permuted(acc, output_);
    if (output_.empty() && b_.type(y).shape.rank() != 0) y = b_.reshape(y, {});
    c_.set_output(0, y);
  }

private:
  // Each letter's extent (equal wherever it appears) and each ellipsis dim's broadcast extent.
  void check_extents() {
    for (const Term& t : operands_) {
      const Shape& s = b_.type(t.value).shape;
      for (size_t d = 0; d < t.labels.size(); ++d) {
        Label l = t.labels[d];
        int64_t e = s[static_cast<int64_t>(d)];
        auto [it, fresh] = extent_.emplace(l, e);
        if (fresh || it->second == e) continue;
        if (l >= kEllipsis && (it->second == 1 || e == 1)) {
          it->second = std::max(it->second, e);
          continue;
        }
        c_.fail(fmt::format("the label '{}' has extent {} in one operand and {} in another",
                            label_name(l), it->second, e));
      }
    }
  }

  // `t` with each label repeated within it taken once: the elements where the repeated dims'
  // indices agree (x times an identity mask over the two dims, summed over the second).
  Term diagonal(Term t) {
    for (size_t d2 = 1; d2 < t.labels.size(); ++d2) {
      auto first =
          std::find(t.labels.begin(), t.labels.begin() + static_cast<long>(d2), t.labels[d2]);
      if (first == t.labels.begin() + static_cast<long>(d2)) continue;
      const auto d1 = static_cast<int64_t>(first - t.labels.begin());
      const int64_t n = extent_.at(t.labels[d2]);
      std::vector<double> eye(static_cast<size_t>(n * n), 0.0);
      for (int64_t i = 0; i < n; ++i) eye[static_cast<size_t>(i * n + i)] = 1.0;
      DType dtype = b_.type(t.value).dtype;
      Value masked = b_.multiply(t.value, b_.constant(Shape({n, n}), std::move(eye), dtype),
                                 BinaryOptions{{d1, static_cast<int64_t>(d2)}});
      t.value = b_.sum(masked, ReduceOptions{{static_cast<int64_t>(d2)}, false});
      t.labels.erase(t.labels.begin() + static_cast<long>(d2));
      --d2;
    }
    return t;
  }

  // True when a label is read by an operand from `from` on or by the output.
  bool needed(Label l, size_t from) const {
    if (std::find(output_.begin(), output_.end(), l) != output_.end()) return true;
    for (size_t i = from; i < operands_.size(); ++i)
      if (std::find(operands_[i].labels.begin(), operands_[i].labels.end(), l) !=
          operands_[i].labels.end())
        return true;
    return false;
  }

  // `t` with the labels needed by no operand from `from` on, nor the output, summed out; the
  // labels a partner shares are kept (the product contracts them).
  Term sum_unneeded(Term t, size_t from, const std::vector<Label>& partner = {}) {
    ReduceOptions o;
    std::vector<Label> kept;
    for (size_t d = 0; d < t.labels.size(); ++d) {
      Label l = t.labels[d];
      bool shared = std::find(partner.begin(), partner.end(), l) != partner.end();
      if (needed(l, from) || shared)
        kept.push_back(l);
      else
        o.dims.push_back(static_cast<int64_t>(d));
    }
    if (o.dims.empty()) return t;
    return Term{kept, b_.sum(t.value, o)};
  }

  // `t`'s value with its dims in the order of `order` (a permutation of its labels).
  Value permuted(const Term& t, const std::vector<Label>& order) {
    std::vector<int64_t> perm;
    bool identity = true;
    for (Label l : order) {
      perm.push_back(std::find(t.labels.begin(), t.labels.end(), l) - t.labels.begin());
      identity = identity && perm.back() == static_cast<int64_t>(perm.size() - 1);
    }
    return identity ? t.value : b_.permute(t.value, perm);
  }

  // `t` permuted to `order` and broadcast to the labels' extents.
  Value arranged(const Term& t, const std::vector<Label>& order) {
    Value v = permuted(t, order);
    std::vector<int64_t> dims;
    for (Label l : order) dims.push_back(extent_.at(l));
    if (b_.type(v).shape.dims() != dims) v = b_.broadcast(v, Shape(dims));
    return v;
  }

  int64_t extent_of(const std::vector<Label>& labels) const {
    int64_t n = 1;
    for (Label l : labels) n *= extent_.at(l);
    return n;
  }

  // The product of `a` and `b` over their shared labels; `from` is the first operand after b.
  Term combine(const Term& a, const Term& b, size_t from) {
    std::vector<Label> batch, contracted, rows, cols;
    for (Label l : a.labels) {
      bool in_b = std::find(b.labels.begin(), b.labels.end(), l) != b.labels.end();
      if (!in_b)
        rows.push_back(l);
      else if (needed(l, from))
        batch.push_back(l);
      else
        contracted.push_back(l);
    }
    for (Label l : b.labels)
      if (std::find(a.labels.begin(), a.labels.end(), l) == a.labels.end()) cols.push_back(l);
    auto concat = [](std::vector<Label> x, const std::vector<Label>& y) {
      x.insert(x.end(), y.begin(), y.end());
      return x;
    };
    Value x = arranged(a, concat(concat(batch, rows), contracted));
    Value y = arranged(b, concat(concat(batch, contracted), cols));
    const int64_t nb = extent_of(batch), m = extent_of(rows), k = extent_of(contracted),
                  n = extent_of(cols);
    std::vector<int64_t> xs{m, k}, ys{k, n};
    if (!batch.empty()) {
      xs.insert(xs.begin(), nb);
      ys.insert(ys.begin(), nb);
    }
    Value x2 = shaped(x, xs);
    Value y2 = shaped(y, ys);
    Value p = b_.matmul(x2, y2);
    std::vector<Label> labels = concat(concat(batch, rows), cols);
    std::vector<int64_t> dims;
    for (Label l : labels) dims.push_back(extent_.at(l));
    return Term{labels, shaped(p, dims)};
  }

  Value shaped(Value v, const std::vector<int64_t>& dims) {
    return b_.type(v).shape.dims() == dims ? v : b_.reshape(v, dims);
  }

  NodeContext& c_;
  Builder& b_;
  std::vector<Term> operands_;
  std::vector<Label> output_;
  std::map<Label, int64_t> extent_;
};

} // namespace

void convert_einsum(NodeContext& c) {
  Einsum(c).run();
}

} // namespace tilesat::onnx
