// fused_body.cpp: parsing and printing the s-expression body of a fused_eltwise op.
#include "tilesat/graph/fused_body.h"

#include "tilesat/graph/diagnostic.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace tilesat {
namespace {

// A deep body would recurse deeply; real kernels fuse far fewer ops (seed 001: <= 32 buffers).
constexpr int kMaxDepth = 256;

class BodyReader {
public:
  explicit BodyReader(std::string_view text) : text_(text) {}

  FusedBody read() {
    FusedBody body;
    read_node(body, 0);
    skip_space();
    if (pos_ != text_.size()) fail("end of body", found());
    return body;
  }

private:
  [[noreturn]] void fail(std::string_view expected, std::string_view got) const {
    throw Error(fmt::format("fused body: expected {}, got {} at offset {}", expected, got, pos_));
  }
  std::string found() const {
    if (pos_ >= text_.size()) return "end of body";
    return fmt::format("'{}'", text_.substr(pos_, 12));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string_view word() {
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '(' && text_[pos_] != ')' &&
           !std::isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  uint32_t push(FusedBody& body, FusedNode n) {
    body.nodes.push_back(std::move(n));
    return body.root();
  }

  uint32_t read_node(FusedBody& body, int depth) {
    if (depth > kMaxDepth) fail(fmt::format("at most {} levels of nesting", kMaxDepth), "more");
    skip_space();
    if (pos_ >= text_.size()) fail("'(', '%N' or a number", "end of body");
    if (text_[pos_] == '(') {
      ++pos_;
      skip_space();
      std::string_view name = word();
      std::optional<OpKind> kind = op_by_name(name);
      if (!kind) fail("an op name", fmt::format("'{}'", name));
      if (!fusable_in_body(*kind)) {
        fail("an elementwise unary or binary op", fmt::format("'{}'", name));
      }
      FusedNode n;
      n.kind = FusedNode::Kind::Op;
      n.op = *kind;
      for (;;) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ')') break;
        n.args.push_back(read_node(body, depth + 1));
      }
      ++pos_;
      auto arity = static_cast<size_t>(op_info(*kind).min_operands);
      if (n.args.size() != arity) {
        fail(fmt::format("{} argument{} for '{}'", arity, arity == 1 ? "" : "s", name),
             std::to_string(n.args.size()));
      }
      return push(body, std::move(n));
    }
    std::string_view w = word();
    if (w.empty()) fail("'(', '%N' or a number", found());
    FusedNode n;
    if (w[0] == '%') {
      int64_t index = -1;
      auto [p, ec] = std::from_chars(w.data() + 1, w.data() + w.size(), index);
      if (ec != std::errc() || p != w.data() + w.size() || index < 0 || index > 1'000'000) {
        fail("an operand reference '%N'", fmt::format("'{}'", w));
      }
      n.kind = FusedNode::Kind::Operand;
      n.operand = index;
      return push(body, std::move(n));
    }
    double v = 0;
    auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc() || p != w.data() + w.size()) fail("a number", fmt::format("'{}'", w));
    n.kind = FusedNode::Kind::Literal;
    n.literal = v;
    return push(body, std::move(n));
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string literal_text(double v) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  for (int precision = 1; precision < 17; ++precision) {
    std::string s = fmt::format("{:.{}g}", v, precision);
    double back = 0;
    std::from_chars(s.data(), s.data() + s.size(), back);
    if (back == v) return s;
  }
  return fmt::format("{:.17g}", v);
}

void print_node(const FusedBody& body, uint32_t i, std::string& out) {
  const FusedNode& n = body.nodes[i];
  switch (n.kind) {
  case FusedNode::Kind::Operand:
    out += fmt::format("%{}", n.operand);
    return;
  case FusedNode::Kind::Literal:
    out += literal_text(n.literal);
    return;
  case FusedNode::Kind::Op:
    out += "(";
    out += op_name(n.op);
    for (uint32_t a : n.args) {
      out += " ";
      print_node(body, a, out);
    }
    out += ")";
    return;
  }
}

} // namespace

size_t FusedBody::num_ops() const {
  size_t n = 0;
  for (const FusedNode& node : nodes) n += node.kind == FusedNode::Kind::Op ? 1 : 0;
  return n;
}

int64_t FusedBody::max_operand() const {
  int64_t m = -1;
  for (const FusedNode& node : nodes) {
    if (node.kind == FusedNode::Kind::Operand) m = std::max(m, node.operand);
  }
  return m;
}

FusedBody parse_fused_body(std::string_view text) {
  return BodyReader(text).read();
}

std::string print_fused_body(const FusedBody& body) {
  std::string out;
  if (!body.nodes.empty()) print_node(body, body.root(), out);
  return out;
}

bool fusable_in_body(OpKind kind) {
  const OpInfo& info = op_info(kind);
  if (kind == OpKind::FusedEltwise) return false;
  if (!info.has_trait(OpTrait::ElementwiseUnary) && !info.has_trait(OpTrait::ElementwiseBinary)) {
    return false;
  }
  for (const AttrSpec& a : info.attrs) {
    if (!a.default_value) return false;
  }
  return true;
}

} // namespace tilesat
