// guards.cpp: every named guard rule files can use, one line of doc each. A guard that
// declines says why; `tilesat opt --explain` prints the reasons.
#include "tilesat/rewrites/builtins.h"
#include "tilesat/rewrites/payload.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tilesat::rewrites {
namespace {

using egraph::Verdict;
using P = ParamKind;

Verdict accept_if(bool ok, std::string_view reason) {
  return ok ? Verdict::accept() : Verdict::decline(reason);
}

// The normalized pair {i, j} of a tensor of `rank` dims, or nullopt when out of range.
std::optional<std::pair<int64_t, int64_t>> dim_pair(std::optional<int64_t> i,
                                                    std::optional<int64_t> j, int64_t rank) {
  if (!i || !j) return std::nullopt;
  std::optional<int64_t> a = normalize_axis(*i, rank), b = normalize_axis(*j, rank);
  if (!a || !b) return std::nullopt;
  return std::pair{std::min(*a, *b), std::max(*a, *b)};
}

bool is_last_two(std::optional<std::pair<int64_t, int64_t>> p, int64_t rank) {
  return rank >= 2 && p && p->first == rank - 2 && p->second == rank - 1;
}

bool is_identity(const std::vector<int64_t>& p) {
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

Verdict last_two_dims(const MatchContext& m) {
  int64_t rank = m.tensor(0).type.shape.rank();
  return accept_if(is_last_two(dim_pair(m.integer(1), m.integer(2), rank), rank),
                   "the dims are not the last two of the tensor");
}

Verdict root_last_two_dims(const MatchContext& m) {
  int64_t rank = m.root().type.shape.rank();
  return accept_if(is_last_two(dim_pair(m.integer(0), m.integer(1), rank), rank),
                   "the dims are not the last two of the result");
}

Verdict permutes_last_two(const MatchContext& m) {
  std::optional<std::vector<int64_t>> p = m.int_list(0);
  if (!p || p->size() < 2) return Verdict::decline("not a permutation of rank >= 2");
  std::vector<int64_t> want(p->size());
  std::iota(want.begin(), want.end(), 0);
  std::swap(want[want.size() - 2], want[want.size() - 1]);
  return accept_if(*p == want, "the permutation does not swap exactly the last two dims");
}

Verdict same_swap(const MatchContext& m) {
  int64_t rank = m.tensor(0).type.shape.rank();
  auto a = dim_pair(m.integer(1), m.integer(2), rank);
  auto b = dim_pair(m.integer(3), m.integer(4), rank);
  return accept_if(a && b && *a == *b, "the two transposes swap different dims");
}

Verdict identity_permutation(const MatchContext& m) {
  std::optional<std::vector<int64_t>> p = m.int_list(0);
  return accept_if(p && is_identity(*p), "not the identity permutation");
}

Verdict identity_dims(const MatchContext& m) {
  std::optional<std::vector<int64_t>> p = m.int_list(0);
  return accept_if(p && is_identity(*p), "the dims are not empty or the identity");
}

Verdict splat_equals(const MatchContext& m) {
  const std::optional<double>& s = m.tensor(0).splat;
  std::optional<double> v = m.number(1);
  if (!s) return Verdict::decline("the value is not a known splat constant");
  return accept_if(v && *s == *v, "the splat constant has another value");
}

Verdict splat_near(const MatchContext& m) {
  const std::optional<double>& s = m.tensor(0).splat;
  std::optional<double> v = m.number(1);
  if (!s) return Verdict::decline("the value is not a known splat constant");
  // Within bf16 rounding (relative 2^-8): exporters write constants such as sqrt(2) rounded
  // to the model's dtype.
  return accept_if(v && std::fabs(*s - *v) <= std::fabs(*v) * 0x1p-8,
                   "the splat constant is not close to the value");
}

Verdict single_use(const MatchContext& m) {
  return accept_if(m.tensor(0).users <= 1, "the value has more than one user");
}

// An intermediate value with several users is still fused when all its uses come together
// at the matched value and none of them feeds a leaf of the match: the linear of
// gelu(linear(...)), whose GELU was recognized from x * 0.5 * (1 + erf(x / sqrt 2)).
bool uses_end_in_root(const MatchContext& m, const TensorFacts& f) {
  const egraph::EGraph& eg = m.egraph();
  auto at = std::find_if(f.exits.begin(), f.exits.end(),
                         [&](egraph::Id e) { return eg.find(e) == m.root_class(); });
  if (at == f.exits.end()) return false;
  auto exit = static_cast<uint32_t>(at - f.exits.begin());
  for (egraph::Id leaf : m.leaf_classes()) {
    for (auto [r, stage] : f.region) {
      if (stage <= exit && eg.find(r) == leaf) return false;
    }
  }
  return true;
}

Verdict inner_single_use(const MatchContext& m) {
  for (egraph::Id c : m.inner_classes()) {
    const TensorFacts& f = m.analysis()[c];
    if (f.users > 1 && !uses_end_in_root(m, f)) {
      return Verdict::decline("an intermediate value has more than one user");
    }
  }
  return Verdict::accept();
}

Verdict same_shape(const MatchContext& m) {
  return accept_if(m.tensor(0).type.shape == m.tensor(1).type.shape, "the shapes differ");
}

Verdict exact_cast(const MatchContext& m) {
  const egraph::AttrValue& t = m.attr(1);
  std::optional<DType> d =
      t.kind() == egraph::AttrValue::Kind::kString ? parse_dtype(t.as_string()) : std::nullopt;
  const DType x = m.tensor(0).type.dtype;
  return accept_if(d && (*d == x || (*d == DType::F32 && is_float(x))),
                   "the cast to that dtype rounds the tensor");
}

Verdict rank_at_most(const MatchContext& m) {
  std::optional<int64_t> n = m.integer(1);
  return accept_if(n && m.tensor(0).type.shape.rank() <= *n, "the rank is too high");
}

thread_local int size_thresholds_off = 0;

Verdict result_elements_at_least(const MatchContext& m) {
  std::optional<int64_t> n = m.integer(0);
  if (!n) return Verdict::decline("the threshold is not an integer");
  return accept_if(SizeThresholdsOff::active() || m.root().type.shape.numel() >= *n,
                   "the result is smaller");
}

Verdict right_aligned(const MatchContext& m) {
  std::optional<std::vector<int64_t>> d = m.int_list(1);
  if (!d) return Verdict::decline("the dims are not a list");
  int64_t rank = m.tensor(0).type.shape.rank(), out = m.root().type.shape.rank();
  for (size_t i = 0; i < d->size(); ++i) {
    if ((*d)[i] != out - rank + static_cast<int64_t>(i)) {
      return Verdict::decline("the broadcast dims are not NumPy's right alignment");
    }
  }
  return Verdict::accept();
}

Verdict broadcast_foldable(const MatchContext& m) {
  std::optional<std::vector<int64_t>> shape = m.int_list(2), d = m.int_list(3);
  if (!shape || !d) return Verdict::decline("the broadcast's shape or dims are not lists");
  // NumPy alignment composes: broadcasting b right-aligned, then right-aligned again.
  if (d->empty()) return Verdict::accept();
  // Explicit dims are relative to the broadcast's result; as the binary op's broadcast_dims
  // they are relative to the op's result, so the two must have the same rank.
  int64_t a_rank = m.tensor(0).type.shape.rank(), b_rank = m.tensor(1).type.shape.rank();
  if (static_cast<int64_t>(shape->size()) != a_rank) {
    return Verdict::decline("the broadcast's rank differs from the result's, so its dims would "
                            "shift");
  }
  // broadcast_dims describe the operand of lower rank (or are the identity at equal rank).
  return accept_if(b_rank < a_rank || (b_rank == a_rank && is_identity(*d)),
                   "explicit broadcast dims but the broadcast operand is not of lower rank");
}

Verdict leading_ones_reshape(const MatchContext& m) {
  std::optional<std::vector<int64_t>> s = m.int_list(2);
  if (!s) return Verdict::decline("the reshape's shape is not a list");
  const std::vector<int64_t>& from = m.tensor(1).type.shape.dims();
  if (s->size() < from.size() ||
      !std::equal(from.begin(), from.end(), s->end() - static_cast<std::ptrdiff_t>(from.size()))) {
    return Verdict::decline("the reshape does more than prepend dims");
  }
  if (!std::all_of(s->begin(), s->end() - static_cast<std::ptrdiff_t>(from.size()),
                   [](int64_t d) { return d == 1; })) {
    return Verdict::decline("a prepended dim is not of extent 1");
  }
  return accept_if(m.tensor(0).type.shape.rank() >= static_cast<int64_t>(s->size()),
                   "the other operand's rank is lower than the reshape's, so the result's "
                   "rank would change");
}

// The values `cls` concatenates, through nested concats (itself when it is no concat).
void concat_sources(const egraph::EGraph& eg, egraph::Id cls, std::vector<egraph::Id>& out,
                    int depth) {
  cls = eg.find(cls);
  static const egraph::Symbol concat = op_symbol(OpKind::Concat);
  bool joined = false;
  if (depth < 8) {
    for (egraph::NodeId n : eg.nodes_with_op(cls, concat)) {
      joined = true;
      for (egraph::Id ch : eg.node(n).children) concat_sources(eg, ch, out, depth + 1);
    }
  }
  if (!joined) out.push_back(cls);
}

Verdict concat_sources_ordered(const MatchContext& m) {
  std::optional<int64_t> n = m.integer(2);
  if (!n) return Verdict::decline("the limit is not an integer");
  std::vector<egraph::Id> a, b;
  concat_sources(m.egraph(), m.cls(0), a, 0);
  concat_sources(m.egraph(), m.cls(1), b, 0);
  egraph::Id last_a = *std::max_element(a.begin(), a.end());
  egraph::Id first_b = *std::min_element(b.begin(), b.end());
  if (last_a >= first_b) {
    return Verdict::decline("the first value's parts do not all precede the second's");
  }
  return accept_if(static_cast<int64_t>(a.size() + b.size()) <= *n,
                   "together they would concatenate too many values");
}

const std::vector<GuardDef>& table() {
  static const std::vector<GuardDef> t = {
      // Dims ?i and ?j of ?x are its last two (in either order, negative counting from the end).
      {"last-two-dims",
       {P::Tensor, P::Attr, P::Attr},
       "?i, ?j are the last two dims of ?x",
       last_two_dims},
      // As last-two-dims, for the matched (root) value.
      {"root-last-two-dims",
       {P::Attr, P::Attr},
       "?i, ?j are the last two dims of the result",
       root_last_two_dims},
      // The permutation swaps the last two dims and keeps the others.
      {"permutes-last-two", {P::Attr}, "?p swaps exactly the last two dims", permutes_last_two},
      // Two transposes of ?x swap the same pair of dims.
      {"same-swap",
       {P::Tensor, P::Attr, P::Attr, P::Attr, P::Attr},
       "(?i, ?j) and (?k, ?l) name the same pair of dims of ?x",
       same_swap},
      // The permutation is [0, 1, ..., n-1].
      {"identity-permutation", {P::Attr}, "?p is the identity", identity_permutation},
      // A broadcast's dims are the identity map (or empty).
      {"identity-dims", {P::Attr}, "?d is empty or [0, 1, ..., n-1]", identity_dims},
      // Every element of ?x is the number v (full, zeros, splat constant, or moved splat).
      {"splat-equals", {P::Tensor, P::Attr}, "?x is a constant splat of value v", splat_equals},
      // Every element of ?x is v up to bf16 rounding (constants such as sqrt(2) as exported).
      {"splat-near",
       {P::Tensor, P::Attr},
       "?x is a constant splat within relative 2^-8 of v",
       splat_near},
      // ?x has at most one user in the source graph (fusing across it duplicates no work).
      {"single-use", {P::Tensor}, "?x has at most one user", single_use},
      // Every intermediate value of the left side has at most one user (seed 001: fusion only
      // over op trees), or all its users lead into the matched value and into no leaf (they
      // were part of what the matched value replaced, e.g. a GELU's decomposition).
      {"inner-single-use", {}, "the left side's inner values have one user each", inner_single_use},
      // ?a and ?b have the same shape.
      {"same-shape", {P::Tensor, P::Tensor}, "?a and ?b have equal shapes", same_shape},
      // Casting ?x to dtype t keeps every value: t is f32 (and ?x a float) or ?x's own dtype
      // (a computation widened to f32 and cast back).
      {"exact-cast", {P::Tensor, P::Attr}, "?x cast to dtype t loses nothing", exact_cast},
      // ?x has rank at most n (device eltwise kernels take tensors of rank <= 4).
      {"rank-at-most", {P::Tensor, P::Attr}, "rank(?x) <= n", rank_at_most},
      // The matched value is big (the rule-file threshold of the splitting rules).
      {"result-elements-at-least",
       {P::Attr},
       "the result has at least n elements",
       result_elements_at_least},
      // ?d maps ?x's dims as NumPy would into the result (or is empty).
      {"right-aligned",
       {P::Tensor, P::Attr},
       "?d is empty or NumPy's alignment of ?x",
       right_aligned},
      // A broadcast of ?b (to ?s, dims ?d) combined with ?a can become implicit broadcasting.
      {"broadcast-foldable",
       {P::Tensor, P::Tensor, P::Attr, P::Attr},
       "?d is empty, or ?s has ?a's rank and ?b lower rank (or ?d is the identity)",
       broadcast_foldable},
      // reshape(?b) to ?s only prepends dims of extent 1, and ?a has at least ?s's rank: under
      // implicit broadcasting with ?a the reshape changes nothing.
      {"leading-ones-reshape",
       {P::Tensor, P::Tensor, P::Attr},
       "?s is ?b's shape with 1s prepended, and rank(?a) >= len(?s)",
       leading_ones_reshape},
      // Bounds merging and keeps one order: ?a and ?b, seen through concats, are made of
      // different values, each of ?a's before each of ?b's (by e-class id), at most n in all.
      // Of two alike parts of a multi-pattern (?p, ?q and ?q, ?p both match) one passes, a
      // value never pairs with itself or a part of itself, and every merge concatenates the
      // same values in the same order, so merges in different orders meet in one e-node.
      {"concat-sources-ordered",
       {P::Tensor, P::Tensor, P::Attr},
       "?a's values (through concats) all precede ?b's, at most n in all",
       concat_sources_ordered},
  };
  return t;
}

} // namespace

std::span<const GuardDef> all_guards() {
  return table();
}

const GuardDef* find_guard(std::string_view name) {
  for (const GuardDef& g : table()) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

SizeThresholdsOff::SizeThresholdsOff() {
  ++size_thresholds_off;
}
SizeThresholdsOff::~SizeThresholdsOff() {
  --size_thresholds_off;
}
bool SizeThresholdsOff::active() {
  return size_thresholds_off > 0;
}

} // namespace tilesat::rewrites
