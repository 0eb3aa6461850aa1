// rule_file.cpp: the rule file reader: lines, op sets, patterns checked against the op
// registry, guards and computed right sides resolved against builtins.h.
#include "tilesat/rewrites/rule_file.h"

#include "tensor_rule.h"
#include "tilesat/egraph/error.h"
#include "tilesat/egraph/multipattern.h"
#include "tilesat/graph/data_files.h"
#include "tilesat/graph/diagnostic.h"
#include "tilesat/rewrites/payload.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <deque>
#include <fmt/format.h>
#include <fstream>
#include <map>
#include <sstream>

namespace tilesat::rewrites {
namespace {

using PatternPtr = std::shared_ptr<const egraph::Pattern>;

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// One line being read: its text and where it is, for errors.
class LineReader {
public:
  LineReader(std::string file, int line, std::string_view text)
      : file_(std::move(file)), line_(line), text_(text) {}

  [[noreturn]] void fail(size_t offset, const std::string& message) const {
    throw Error(SourceLoc{file_, line_, static_cast<int>(offset) + 1}, message);
  }
  /// Offset of `part` (a view into the line) within the line.
  size_t offset_of(std::string_view part) const {
    return static_cast<size_t>(part.data() - text_.data());
  }
  std::string_view text() const { return text_; }
  const std::string& file() const { return file_; }
  int line() const { return line_; }

private:
  std::string file_;
  int line_;
  std::string_view text_;
};

/// Index of `token` at bracket depth 0 (outside strings) in `s`, or npos.
size_t find_top_level(std::string_view s, std::string_view token, size_t from = 0) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = from; i < s.size(); ++i) {
    char c = s[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '(' || c == '[')
      ++depth;
    else if (c == ')' || c == ']')
      --depth;
    else if (depth == 0 && s.substr(i, token.size()) == token)
      return i;
  }
  return std::string_view::npos;
}

/// Splits `s` at top-level commas.
std::vector<std::string_view> split_top_level(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t comma = find_top_level(s, ",", start);
    if (comma == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
}

/// The position of the keyword ` if ` at depth 0, or npos.
size_t find_if_keyword(std::string_view s) {
  size_t from = 0;
  for (;;) {
    size_t p = find_top_level(s, "if", from);
    if (p == std::string_view::npos) return p;
    bool before = p > 0 && std::isspace(static_cast<unsigned char>(s[p - 1]));
    bool after = p + 2 == s.size() || std::isspace(static_cast<unsigned char>(s[p + 2]));
    if (before && after) return p;
    from = p + 2;
  }
}

std::string kind_name(AttrKind k) {
  return std::string(attr_kind_name(k));
}

/// `text` with every word `name` (an op, or a bare attribute value) replaced by `member`;
/// variables (`?name`) and strings are left alone.
std::string replace_op(std::string_view text, std::string_view name, std::string_view member) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < text.size();) {
    char c = text[i];
    if (c == '"') in_string = !in_string;
    if (in_string || !is_name_char(c) ||
        (i > 0 && (is_name_char(text[i - 1]) || text[i - 1] == '?'))) {
      out += c;
      ++i;
      continue;
    }
    size_t k = i;
    while (k < text.size() && is_name_char(text[k])) ++k;
    std::string_view word = text.substr(i, k - i);
    out += word == name ? member : word;
    i = k;
  }
  return out;
}

/// Op names used in `text` (the word after each '(').
std::vector<std::string> op_tokens(std::string_view text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '(') continue;
    size_t j = i + 1;
    while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    size_t k = j;
    while (k < text.size() && is_name_char(text[k])) ++k;
    if (k > j) out.emplace_back(text.substr(j, k - j));
  }
  return out;
}

class RuleBuilder {
public:
  RuleBuilder(const LineReader& line, std::string_view side_text) : line_(line), side_(side_text) {}

  // Parses one side and checks it against the op registry; `fill_defaults` (left sides)
  // constrains every unwritten defaulted attribute to its default.
  egraph::Pattern parse_side(bool fill_defaults, bool is_rhs) const {
    egraph::Pattern p = [&] {
      try {
        return egraph::Pattern::parse(side_);
      } catch (const egraph::ParseError& e) {
        std::string what = e.what();
        // Drop the pattern-relative "line:col: " prefix; the position is ours.
        size_t colon = what.find(": ");
        line_.fail(line_.offset_of(side_) + static_cast<size_t>(std::max(e.col(), 1) - 1),
                   colon == std::string::npos ? what : what.substr(colon + 2));
      }
    }();
    std::vector<egraph::PatternNode> nodes = p.nodes();
    for (egraph::PatternNode& n : nodes) {
      if (n.kind == egraph::PatternNode::Kind::kLiteral) {
        fail_at(n.literal.to_string(), fmt::format("expected a tensor pattern, got the literal {}",
                                                   n.literal.to_string()));
      }
      if (n.kind != egraph::PatternNode::Kind::kOp) continue;
      std::string_view op = n.op.str();
      std::optional<OpKind> kind = op_by_name(op);
      if (!kind || *kind == OpKind::Argument) {
        fail_at(std::string(op), fmt::format("unknown op '{}'", op));
      }
      const OpInfo& info = op_info(*kind);
      int arity = static_cast<int>(n.children.size());
      if (arity < info.min_operands || (info.max_operands >= 0 && arity > info.max_operands)) {
        std::string want =
            info.min_operands == info.max_operands ? std::to_string(info.min_operands)
            : info.max_operands < 0                ? fmt::format("at least {}", info.min_operands)
                                    : fmt::format("{} to {}", info.min_operands, info.max_operands);
        fail_at(std::string(op), fmt::format("'{}' expects {} operands, got {}", op, want, arity));
      }
      for (egraph::PatternAttr& a : n.attrs) check_attr(info, a);
      if (is_rhs) {
        for (const AttrSpec& spec : info.attrs) {
          if (spec.default_value) continue;
          bool written = false;
          for (const egraph::PatternAttr& a : n.attrs)
            written = written || a.key.str() == spec.name;
          if (!written) {
            fail_at(std::string(op),
                    fmt::format("right side: '{}' needs attribute '{}'", op, spec.name));
          }
        }
      }
      if (!fill_defaults) continue;
      for (const AttrSpec& spec : info.attrs) {
        if (!spec.default_value) continue;
        bool written = false;
        for (const egraph::PatternAttr& a : n.attrs) written = written || a.key.str() == spec.name;
        if (written) continue;
        egraph::PatternAttr d;
        d.key = egraph::Symbol::intern(spec.name);
        d.value = to_egraph_value(*spec.default_value);
        n.attrs.push_back(d);
      }
    }
    const auto& names = p.var_names();
    std::vector<std::string> class_vars(names.begin(), names.begin() + p.num_class_vars());
    std::vector<std::string> attr_vars(names.begin() + p.num_class_vars(), names.end());
    return egraph::Pattern(std::move(nodes), std::move(class_vars), std::move(attr_vars));
  }

  [[noreturn]] void fail_at(const std::string& token, const std::string& message) const {
    size_t pos = side_.find(token);
    line_.fail(line_.offset_of(side_) + (pos == std::string_view::npos ? 0 : pos), message);
  }

private:
  void check_attr(const OpInfo& info, egraph::PatternAttr& a) const {
    std::string_view key = a.key.str();
    const AttrSpec* spec = info.attr_spec(key);
    if (spec == nullptr) {
      std::string known;
      for (const AttrSpec& s : info.attrs)
        known += (known.empty() ? "" : ", ") + std::string(s.name);
      fail_at(std::string(key), fmt::format("unknown attribute '{}' of '{}' (attributes: {})", key,
                                            info.name, known.empty() ? "none" : known));
    }
    if (a.is_var) return;
    using K = egraph::AttrValue::Kind;
    K got = a.value.kind();
    bool ok = false;
    switch (spec->kind) {
    case AttrKind::Bool:
      ok = got == K::kBool;
      break;
    case AttrKind::Int:
      ok = got == K::kInt;
      break;
    case AttrKind::Float:
      if (got == K::kInt || got == K::kRational) {
        egraph::Rational r = a.value.as_rational();
        a.value = egraph::AttrValue(static_cast<double>(r.num) / static_cast<double>(r.den));
        got = K::kDouble;
      }
      ok = got == K::kDouble;
      break;
    case AttrKind::String:
      ok = got == K::kString;
      break;
    case AttrKind::IntList:
      ok = got == K::kIntList;
      break;
    case AttrKind::DType:
      ok = got == K::kString && parse_dtype(a.value.as_string()).has_value();
      break;
    case AttrKind::FloatList:
    case AttrKind::Opaque:
      ok = false;
      break;
    }
    if (!ok) {
      fail_at(std::string(key), fmt::format("attribute '{}' of '{}' expects {}, got {}", key,
                                            info.name, kind_name(spec->kind), a.value.to_string()));
    }
  }

  const LineReader& line_;
  std::string_view side_;
};

/// A parsed `name(args)` call of a guard or applier.
struct Call {
  std::string_view name;
  std::vector<std::string_view> args;
};

Call parse_call(const LineReader& line, std::string_view text) {
  text = trim(text);
  Call c;
  size_t open = text.find('(');
  c.name = trim(text.substr(0, open));
  if (c.name.empty()) line.fail(line.offset_of(text), "expected a guard name, got nothing");
  for (char ch : c.name) {
    if (!is_name_char(ch)) {
      line.fail(line.offset_of(text), fmt::format("expected a name, got '{}'", c.name));
    }
  }
  if (open == std::string_view::npos) return c;
  if (text.back() != ')') line.fail(line.offset_of(text) + text.size() - 1, "expected ')'");
  std::string_view inner = trim(text.substr(open + 1, text.size() - open - 2));
  if (inner.empty()) return c;
  for (std::string_view a : split_top_level(inner)) c.args.push_back(trim(a));
  return c;
}

egraph::AttrValue parse_literal(const LineReader& line, std::string_view s) {
  if (s == "true") return egraph::AttrValue(true);
  if (s == "false") return egraph::AttrValue(false);
  if (!s.empty() && s.front() == '[') {
    if (s.back() != ']') line.fail(line.offset_of(s), "expected ']' to end the list");
    std::vector<std::int64_t> v;
    std::string_view inner = trim(s.substr(1, s.size() - 2));
    if (!inner.empty()) {
      for (std::string_view item : split_top_level(inner)) {
        item = trim(item);
        std::int64_t x = 0;
        auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), x);
        if (ec != std::errc() || p != item.data() + item.size()) {
          line.fail(line.offset_of(item), fmt::format("expected an integer, got '{}'", item));
        }
        v.push_back(x);
      }
    }
    return egraph::AttrValue(std::move(v));
  }
  std::int64_t i = 0;
  auto [pi, eci] = std::from_chars(s.data(), s.data() + s.size(), i);
  if (eci == std::errc() && pi == s.data() + s.size()) return egraph::AttrValue(i);
  double d = 0;
  auto [pd, ecd] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ecd == std::errc() && pd == s.data() + s.size()) return egraph::AttrValue(d);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
    return egraph::AttrValue(std::string(s.substr(1, s.size() - 2)));
  }
  for (char ch : s) {
    if (!is_name_char(ch))
      line.fail(line.offset_of(s), fmt::format("expected a value, got '{}'", s));
  }
  return egraph::AttrValue(std::string(s));
}

/// The variables a left side (a pattern or a multi-pattern) binds: class variables first.
struct LeftVars {
  const std::vector<std::string>& names;
  uint32_t num_class_vars;

  template <class Searcher>
  static LeftVars of(const Searcher& s) {
    return {s.var_names(), s.num_class_vars()};
  }
  std::optional<egraph::Var> find_var(std::string_view name) const {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) return std::nullopt;
    return egraph::Var{static_cast<uint32_t>(it - names.begin())};
  }
  bool is_attr_var(egraph::Var v) const { return v.index >= num_class_vars; }
};

/// The arguments of a call, checked against the declared parameter kinds.
std::vector<RuleArg> resolve_args(const LineReader& line, const Call& call,
                                  const std::vector<ParamKind>& params, const LeftVars& lhs,
                                  std::string_view what) {
  if (call.args.size() != params.size()) {
    line.fail(line.offset_of(call.name),
              fmt::format("{} '{}' expects {} argument{}, got {}", what, call.name, params.size(),
                          params.size() == 1 ? "" : "s", call.args.size()));
  }
  std::vector<RuleArg> out;
  for (size_t i = 0; i < params.size(); ++i) {
    std::string_view a = call.args[i];
    RuleArg r;
    r.kind = params[i];
    if (!a.empty() && a.front() == '?') {
      std::optional<egraph::Var> v = lhs.find_var(a);
      if (!v) {
        line.fail(line.offset_of(a),
                  fmt::format("unbound variable {} (the left side does not bind it)", a));
      }
      bool is_attr = lhs.is_attr_var(*v);
      if (is_attr != (params[i] == ParamKind::Attr)) {
        line.fail(line.offset_of(a),
                  fmt::format("argument {} of {} '{}' expects {}, got {} {}", i + 1, what,
                              call.name, params[i] == ParamKind::Attr ? "an attribute" : "a tensor",
                              is_attr ? "the attribute variable" : "the tensor variable", a));
      }
      r.var = std::string(a);
    } else {
      if (params[i] == ParamKind::Tensor) {
        line.fail(line.offset_of(a), fmt::format("argument {} of {} '{}' expects a tensor "
                                                 "variable, got '{}'",
                                                 i + 1, what, call.name, a));
      }
      r.literal = parse_literal(line, a);
    }
    out.push_back(std::move(r));
  }
  return out;
}

/// The text of one rule after op-set expansion.
struct RuleText {
  std::string name;
  std::string lhs, rhs, guards; // guards without the `if`
  bool both = false;
};

class FileReader {
public:
  FileReader(std::string_view text, std::string filename)
      : text_(text), filename_(std::move(filename)) {}

  RuleFile read() {
    RuleFile out;
    out.path = filename_;
    std::istringstream in{std::string(text_)};
    std::string raw;
    int lineno = 0;
    while (std::getline(in, raw)) {
      ++lineno;
      if (!raw.empty() && raw.back() == '\r') raw.pop_back();
      std::string_view line_text = raw;
      size_t hash = find_top_level(line_text, "#");
      std::string_view body = trim(line_text.substr(0, hash));
      if (body.empty()) continue;
      LineReader line(filename_, lineno, line_text);
      if (body.starts_with("ops ") || body.starts_with("ops\t")) {
        read_op_set(line, body);
        continue;
      }
      if (body.starts_with("layout ") || body.starts_with("layout\t")) {
        out.layouts.push_back(read_layout(line, body));
        continue;
      }
      if (body.starts_with("reads ") || body.starts_with("reads\t")) {
        out.reads.push_back(read_reads(line, body));
        continue;
      }
      if (body.starts_with("mesh ") || body.starts_with("mesh\t")) {
        out.meshes.push_back(read_mesh(line, body));
        continue;
      }
      read_rule(line, body, out);
    }
    return out;
  }

private:
  void read_op_set(const LineReader& line, std::string_view body) {
    std::string_view rest = trim(body.substr(3));
    size_t eq = rest.find('=');
    if (eq == std::string_view::npos)
      line.fail(line.offset_of(rest), "expected 'ops NAME = op, ...'");
    std::string_view name = trim(rest.substr(0, eq));
    if (name.empty() || op_by_name(name)) {
      line.fail(line.offset_of(rest), fmt::format("expected a new op set name, got '{}'", name));
    }
    std::vector<std::string> members;
    for (std::string_view m : split_top_level(rest.substr(eq + 1))) {
      m = trim(m);
      std::optional<OpKind> k = op_by_name(m);
      if (!k || *k == OpKind::Argument) {
        line.fail(line.offset_of(m), fmt::format("unknown op '{}' in op set '{}'", m, name));
      }
      members.emplace_back(m);
    }
    op_sets_[std::string(name)] = std::move(members);
  }

  // The common head of `layout` and `reads` lines, `KEYWORD NAME: OPS => RIGHT`: fills the
  // name, origin and op selection of `rule`; returns RIGHT.
  template <class Rule>
  std::string_view read_selection(const LineReader& line, std::string_view body,
                                  std::string_view keyword, std::string_view usage, Rule& rule) {
    std::string_view rest = trim(body.substr(keyword.size()));
    size_t colon = rest.find(':');
    std::string_view name = trim(rest.substr(0, colon == std::string_view::npos ? 0 : colon));
    bool name_ok = colon != std::string_view::npos && !name.empty();
    for (char c : name) name_ok = name_ok && is_name_char(c);
    if (!name_ok) line.fail(line.offset_of(rest), fmt::format("expected '{}'", usage));
    rule.name = std::string(name);
    rule.origin = fmt::format("{}:{}", line.file(), line.line());
    std::string_view after_colon = rest.substr(colon + 1);
    size_t arrow = find_top_level(after_colon, "=>");
    if (arrow == std::string_view::npos) line.fail(line.offset_of(after_colon), "expected '=>'");
    for (std::string_view item : split_top_level(after_colon.substr(0, arrow))) {
      item = trim(item);
      bool negated = !item.empty() && item.front() == '!';
      std::string_view op = trim(negated ? item.substr(1) : item);
      if (op == "*" && !negated) {
        rule.all = true;
        continue;
      }
      std::vector<OpKind>& into = negated ? rule.excluded : rule.ops;
      if (auto set = op_sets_.find(std::string(op)); set != op_sets_.end()) {
        for (const std::string& m : set->second) into.push_back(*op_by_name(m));
        continue;
      }
      std::optional<OpKind> k = op_by_name(op);
      if (!k || *k == OpKind::Argument || *k == OpKind::Constant) {
        line.fail(line.offset_of(op),
                  fmt::format("expected '*', an op or an op set, got '{}'", op.empty() ? "" : op));
      }
      into.push_back(*k);
    }
    if (!rule.all && rule.ops.empty())
      line.fail(line.offset_of(after_colon),
                fmt::format("expected the ops the {} applies to", keyword));
    return after_colon.substr(arrow + 2);
  }

  static std::vector<std::string_view> words_of(std::string_view text) {
    std::vector<std::string_view> words;
    for (size_t i = 0; i < text.size();) {
      size_t j = text.find_first_of(" \t", i);
      if (j == std::string_view::npos) j = text.size();
      if (j > i) words.push_back(text.substr(i, j - i));
      i = j + 1;
    }
    return words;
  }

  static LayoutBuffer read_buffer(const LineReader& line, std::string_view word) {
    if (word == "dram") return LayoutBuffer::Dram;
    if (word != "l1")
      line.fail(line.offset_of(word),
                fmt::format("expected the buffer 'dram' or 'l1', got '{}'", word));
    return LayoutBuffer::L1;
  }

  // One memory layout; with `sharded_ok`, also `sharded` (every sharding).
  static std::vector<LayoutMemory> read_memory(const LineReader& line, std::string_view word,
                                               bool sharded_ok) {
    static const std::pair<std::string_view, LayoutMemory> kMemory[] = {
        {"interleaved", LayoutMemory::Interleaved},
        {"height_sharded", LayoutMemory::HeightSharded},
        {"width_sharded", LayoutMemory::WidthSharded},
        {"block_sharded", LayoutMemory::BlockSharded}};
    for (const auto& [name, m] : kMemory)
      if (name == word) return {m};
    if (sharded_ok && word == "sharded")
      return {LayoutMemory::HeightSharded, LayoutMemory::WidthSharded, LayoutMemory::BlockSharded};
    line.fail(line.offset_of(word),
              fmt::format("expected 'interleaved', {}'height_sharded', 'width_sharded' or "
                          "'block_sharded', got '{}'",
                          sharded_ok ? "'sharded', " : "", word));
  }

  // `reads NAME: OPS => BUFFER MEMORY`.
  OperandRule read_reads(const LineReader& line, std::string_view body) {
    OperandRule rule;
    std::string_view right =
        read_selection(line, body, "reads", "reads NAME: ops => BUFFER MEMORY", rule);
    std::vector<std::string_view> words = words_of(trim(right));
    if (words.size() != 2) line.fail(line.offset_of(right), "expected 'BUFFER MEMORY' after '=>'");
    rule.buffer = read_buffer(line, words[0]);
    rule.memory = read_memory(line, words[1], true);
    if (rule.buffer == LayoutBuffer::Dram && rule.memory.front() != LayoutMemory::Interleaved)
      line.fail(line.offset_of(words[1]), "DRAM is interleaved (sharding is in L1)");
    return rule;
  }

  // One term of a `mesh` line: `replicated`, `partial`, `shard(N)` or `shard(NAME)`; a
  // variable must be the rule's one variable `var` (set by its first use).
  static MeshTerm read_mesh_term(const LineReader& line, std::string_view text, std::string& var) {
    text = trim(text);
    if (text == "replicated") return {MeshTerm::Kind::Replicated, 0};
    if (text == "partial") return {MeshTerm::Kind::Partial, 0};
    const std::string_view usage = "'replicated', 'partial', 'shard(DIM)' or 'shard(NAME)'";
    if (!text.starts_with("shard(") || !text.ends_with(")"))
      line.fail(line.offset_of(text), fmt::format("expected {}, got '{}'", usage, text));
    std::string_view arg = trim(text.substr(6, text.size() - 7));
    if (arg.empty()) line.fail(line.offset_of(text), fmt::format("expected {}", usage));
    if (std::isalpha(static_cast<unsigned char>(arg.front()))) {
      for (char c : arg)
        if (!is_name_char(c))
          line.fail(line.offset_of(arg), fmt::format("expected a dim or a name, got '{}'", arg));
      if (var.empty()) var = std::string(arg);
      if (arg != var)
        line.fail(line.offset_of(arg),
                  fmt::format("a mesh rule has one dim variable ('{}'), got '{}'", var, arg));
      return {MeshTerm::Kind::ShardVar, 0};
    }
    egraph::AttrValue v = parse_literal(line, arg);
    if (!v.is_int())
      line.fail(line.offset_of(arg), fmt::format("expected an integer dim, got '{}'", arg));
    return {MeshTerm::Kind::ShardDim, v.as_int()};
  }

  // `mesh NAME: OPS => OPERAND, ...[...] -> RESULT` (mesh_rule.h).
  MeshRule read_mesh(const LineReader& line, std::string_view body) {
    MeshRule rule;
    std::string_view right =
        read_selection(line, body, "mesh", "mesh NAME: ops => OPERAND, ... -> RESULT", rule);
    size_t arrow = find_top_level(right, "->");
    if (arrow == std::string_view::npos)
      line.fail(line.offset_of(right), "expected '-> RESULT' after the operands");
    std::string var;
    std::vector<std::string_view> items = split_top_level(right.substr(0, arrow));
    for (size_t i = 0; i < items.size(); ++i) {
      std::string_view item = trim(items[i]);
      if (item.ends_with("...")) {
        if (i + 1 != items.size())
          line.fail(line.offset_of(item), "'...' follows the last operand only");
        rule.repeat_last = true;
        item = trim(item.substr(0, item.size() - 3));
      }
      rule.operands.push_back(read_mesh_term(line, item, var));
    }
    rule.result = read_mesh_term(line, right.substr(arrow + 2), var);
    bool operand_var = false;
    for (const MeshTerm& t : rule.operands)
      operand_var = operand_var || t.kind == MeshTerm::Kind::ShardVar;
    if (operand_var && rule.result.kind != MeshTerm::Kind::ShardVar)
      line.fail(line.offset_of(right) + arrow,
                fmt::format("an operand's 'shard({})' needs the result 'shard({})' too", var, var));
    if (rule.result.kind == MeshTerm::Kind::ShardVar) {
      bool bound = false;
      for (const MeshTerm& t : rule.operands) bound = bound || t.kind == MeshTerm::Kind::ShardVar;
      if (!bound)
        line.fail(line.offset_of(right) + arrow,
                  fmt::format("the result's 'shard({})' needs an operand split by it", var));
    }
    return rule;
  }

  // `layout NAME: OPS => LAYOUT BUFFER MEMORY [grids all|largest] [if CONDITION, ...]`.
  LayoutRule read_layout(const LineReader& line, std::string_view body) {
    LayoutRule rule;
    std::string_view right =
        read_selection(line, body, "layout", "layout NAME: ops => LAYOUT BUFFER MEMORY", rule);
    size_t if_pos = find_if_keyword(right);
    std::vector<std::string_view> words = words_of(trim(right.substr(0, if_pos)));
    if (words.size() != 3 && words.size() != 5)
      line.fail(line.offset_of(right),
                "expected 'LAYOUT BUFFER MEMORY [grids all|largest]' after '=>'");
    if (words[0] == "tile")
      rule.tiling = LayoutTiling::Tile;
    else if (words[0] == "row_major")
      rule.tiling = LayoutTiling::RowMajor;
    else
      line.fail(line.offset_of(words[0]),
                fmt::format("expected the layout 'tile' or 'row_major', got '{}'", words[0]));
    rule.buffer = read_buffer(line, words[1]);
    rule.memory = read_memory(line, words[2], false).front();
    if (rule.buffer == LayoutBuffer::Dram && rule.memory != LayoutMemory::Interleaved)
      line.fail(line.offset_of(words[2]), "a DRAM variant is interleaved (sharding is in L1)");
    if (rule.tiling == LayoutTiling::RowMajor && rule.memory != LayoutMemory::Interleaved)
      line.fail(line.offset_of(words[2]),
                "a row-major variant is interleaved (sharded values are whole tiles)");
    if (words.size() == 5) {
      if (words[3] != "grids")
        line.fail(line.offset_of(words[3]), fmt::format("expected 'grids', got '{}'", words[3]));
      if (words[4] == "all")
        rule.every_grid = true;
      else if (words[4] != "largest")
        line.fail(line.offset_of(words[4]),
                  fmt::format("expected 'grids all' or 'grids largest', got 'grids {}'", words[4]));
      if (rule.memory == LayoutMemory::Interleaved)
        line.fail(line.offset_of(words[3]),
                  "'grids' applies to sharded variants (interleaved pages use every core)");
    }
    if (if_pos == std::string_view::npos) return rule;
    for (std::string_view g : split_top_level(right.substr(if_pos + 2))) {
      Call c = parse_call(line, g);
      LayoutCondition cond;
      if (c.name == "tile-aligned" && c.args.empty()) {
        cond.kind = LayoutCondition::Kind::TileAligned;
      } else if ((c.name == "min-cores" || c.name == "max-cores") && c.args.size() == 1) {
        cond.kind = c.name == "min-cores" ? LayoutCondition::Kind::MinCores
                                          : LayoutCondition::Kind::MaxCores;
        egraph::AttrValue v = parse_literal(line, c.args[0]);
        if (!v.is_int() || v.as_int() < 1)
          line.fail(line.offset_of(c.args[0]),
                    fmt::format("{} expects a core count >= 1, got '{}'", c.name, c.args[0]));
        cond.value = v.as_int();
      } else {
        line.fail(line.offset_of(c.name),
                  fmt::format("unknown layout condition '{}' with {} argument{} (conditions: "
                              "tile-aligned, min-cores(N), max-cores(N))",
                              c.name, c.args.size(), c.args.size() == 1 ? "" : "s"));
      }
      rule.conditions.push_back(cond);
    }
    return rule;
  }

  void read_rule(const LineReader& line, std::string_view body, RuleFile& out) {
    size_t colon = body.find(':');
    std::string_view name = trim(body.substr(0, colon == std::string_view::npos ? 0 : colon));
    bool name_ok = colon != std::string_view::npos && !name.empty();
    for (char c : name) name_ok = name_ok && is_name_char(c);
    if (!name_ok) line.fail(line.offset_of(body), "expected 'name: lhs => rhs', got no rule name");
    std::string_view rest = body.substr(colon + 1);
    size_t arrow = find_top_level(rest, "<=>");
    bool both = arrow != std::string_view::npos;
    size_t arrow_len = 3;
    if (!both) {
      arrow = find_top_level(rest, "=>");
      arrow_len = 2;
    }
    if (arrow == std::string_view::npos) line.fail(line.offset_of(rest), "expected '=>' or '<=>'");
    std::string_view lhs = trim(rest.substr(0, arrow));
    std::string_view after = rest.substr(arrow + arrow_len);
    size_t if_pos = find_if_keyword(after);
    std::string_view rhs = trim(after.substr(0, if_pos));
    std::string_view guards =
        if_pos == std::string_view::npos ? std::string_view{} : trim(after.substr(if_pos + 2));
    if (lhs.empty()) line.fail(line.offset_of(rest), "expected a left side");
    if (rhs.empty()) line.fail(line.offset_of(after), "expected a right side");

    // Op sets: one rule per member.
    std::string used_set;
    for (std::string_view part : {lhs, rhs}) {
      for (const std::string& tok : op_tokens(part)) {
        if (!op_sets_.count(tok)) continue;
        if (!used_set.empty() && used_set != tok) {
          line.fail(line.offset_of(part), "expected at most one op set per rule");
        }
        used_set = tok;
      }
    }
    if (used_set.empty()) {
      build(line, line, std::string(name), lhs, rhs, guards, both, out);
      return;
    }
    for (const std::string& member : op_sets_[used_set]) {
      // The expanded text lives in `expanded_`, so positions in errors refer to the rule's
      // member instance; the line reader reports the rule's line and the side's column.
      std::string l = replace_op(lhs, used_set, member), r = replace_op(rhs, used_set, member);
      expanded_.push_back(l + " " + r);
      std::string_view both_text = expanded_.back();
      LineReader sub(line.file(), line.line(), both_text);
      build(sub, line, fmt::format("{}.{}", name, member), both_text.substr(0, l.size()),
            both_text.substr(l.size() + 1), guards, both, out);
    }
  }

  /// `guard_line` holds `guard_text` (the rule's own line, also when `line` is the expanded
  /// text of one op-set member).
  void build(const LineReader& line, const LineReader& guard_line, const std::string& name,
             std::string_view lhs_text, std::string_view rhs_text, std::string_view guard_text,
             bool both, RuleFile& out) {
    RuleOrigin origin{line.file(), line.line(), std::string(trim(line.text()))};
    std::vector<Call> calls;
    if (!guard_text.empty()) {
      for (std::string_view g : split_top_level(guard_text))
        calls.push_back(parse_call(guard_line, g));
    }
    // `left_ptr` is null for a multi-pattern, whose guards see no single left-side term.
    auto conditions_for = [&](const LeftVars& left, const PatternPtr& left_ptr) {
      egraph::Rewrite::Conditions conds;
      for (const Call& c : calls) {
        const GuardDef* def = find_guard(c.name);
        if (def == nullptr)
          guard_line.fail(guard_line.offset_of(c.name), fmt::format("unknown guard '{}'", c.name));
        if (left_ptr == nullptr && def->name == "inner-single-use")
          guard_line.fail(guard_line.offset_of(c.name),
                          "guard 'inner-single-use' reads one left-side term; a multi-pattern has "
                          "several");
        conds.push_back(std::make_shared<detail::TensorGuard>(
            *def, resolve_args(guard_line, c, def->params, left, "guard"), left_ptr));
      }
      return conds;
    };
    auto computed = [&](const LeftVars& left, const PatternPtr& left_ptr) {
      if (both)
        line.fail(line.offset_of(rhs_text), "a computed right side cannot be used with '<=>'");
      Call call = parse_call(line, rhs_text.substr(1));
      const ApplierDef* def = find_applier(call.name);
      if (def == nullptr) {
        line.fail(line.offset_of(call.name), fmt::format("unknown applier '@{}'", call.name));
      }
      return std::make_shared<detail::ComputedRhs>(
          *def, resolve_args(line, call, def->params, left, "applier"), left_ptr,
          egraph::Symbol::intern(name));
    };
    if (is_multi_pattern(lhs_text)) {
      auto multi = std::make_shared<const egraph::MultiPattern>(read_multi_pattern(line, lhs_text));
      if (rhs_text.front() != '@') {
        line.fail(line.offset_of(rhs_text),
                  "a multi-pattern left side needs a computed right side, '@name(...)', which "
                  "rewrites each root");
      }
      LeftVars left = LeftVars::of(*multi);
      auto applier = computed(left, nullptr);
      out.rewrites.emplace_back(name, multi, applier, conditions_for(left, nullptr));
      out.origins.push_back(origin);
      return;
    }
    auto lhs = std::make_shared<const egraph::Pattern>(
        RuleBuilder(line, lhs_text).parse_side(true, false));
    if (rhs_text.front() == '@') {
      auto applier = computed(LeftVars::of(*lhs), lhs);
      out.rewrites.emplace_back(name, lhs, applier, conditions_for(LeftVars::of(*lhs), lhs));
      out.origins.push_back(origin);
      return;
    }
    auto rhs = std::make_shared<const egraph::Pattern>(
        RuleBuilder(line, rhs_text).parse_side(false, true));
    check_bound(line, rhs_text, *rhs, *lhs);
    out.rewrites.emplace_back(name, lhs, std::make_shared<detail::PatternRhs>(rhs, lhs),
                              conditions_for(LeftVars::of(*lhs), lhs));
    out.origins.push_back(origin);
    if (!both) return;
    auto rev_lhs = std::make_shared<const egraph::Pattern>(
        RuleBuilder(line, rhs_text).parse_side(true, false));
    auto rev_rhs = std::make_shared<const egraph::Pattern>(
        RuleBuilder(line, lhs_text).parse_side(false, true));
    check_bound(line, lhs_text, *rev_rhs, *rev_lhs);
    out.rewrites.emplace_back(name + "-rev", rev_lhs,
                              std::make_shared<detail::PatternRhs>(rev_rhs, rev_lhs),
                              conditions_for(LeftVars::of(*rev_lhs), rev_lhs));
    out.origins.push_back(origin);
  }

  /// A left side of several parts, `?root = pattern, ...` (a `=` outside brackets).
  static bool is_multi_pattern(std::string_view lhs) {
    return find_top_level(lhs, "=") != std::string_view::npos;
  }

  /// Reads `?p = pattern, ?q = pattern, ...`; each part is checked as a left side is.
  static egraph::MultiPattern read_multi_pattern(const LineReader& line, std::string_view text) {
    std::vector<std::pair<std::string, egraph::Pattern>> parts;
    for (std::string_view part : split_top_level(text)) {
      std::string_view p = trim(part);
      if (p.empty()) {
        line.fail(line.offset_of(part), "expected '?root = pattern' (a multi-pattern part)");
      }
      size_t eq = find_top_level(p, "=");
      std::string_view root = trim(p.substr(0, eq));
      bool root_ok = root.size() > 1 && root.front() == '?';
      for (char c : root.substr(root_ok ? 1 : 0)) root_ok = root_ok && is_name_char(c);
      if (eq == std::string_view::npos || !root_ok) {
        line.fail(line.offset_of(p),
                  fmt::format("expected '?root = pattern' (a multi-pattern part), got '{}'", p));
      }
      std::string_view pattern = trim(p.substr(eq + 1));
      if (pattern.empty()) {
        line.fail(line.offset_of(p) + eq, fmt::format("expected a pattern after '{} ='", root));
      }
      if (pattern.front() != '(') {
        line.fail(
            line.offset_of(pattern),
            fmt::format("expected an op pattern '(op ...)' after '{} =', got '{}'", root, pattern));
      }
      parts.emplace_back(std::string(root), RuleBuilder(line, pattern).parse_side(true, false));
    }
    try {
      return egraph::MultiPattern(std::move(parts));
    } catch (const egraph::RuleError& e) {
      line.fail(line.offset_of(text), e.what());
    }
  }

  static void check_bound(const LineReader& line, std::string_view side, const egraph::Pattern& rhs,
                          const egraph::Pattern& lhs) {
    for (size_t i = 0; i < rhs.var_names().size(); ++i) {
      const std::string& v = rhs.var_names()[i];
      std::optional<egraph::Var> lv = lhs.find_var(v);
      size_t pos = side.find(v);
      size_t col = line.offset_of(side) + (pos == std::string_view::npos ? 0 : pos);
      if (!lv)
        line.fail(col, fmt::format("unbound variable {} (the left side does not bind it)", v));
      bool rhs_attr = rhs.is_attr_var(egraph::Var{static_cast<std::uint32_t>(i)});
      if (rhs_attr != lhs.is_attr_var(*lv)) {
        line.fail(col, fmt::format("{} is {} on the right side but {} on the left side", v,
                                   rhs_attr ? "an attribute" : "a tensor",
                                   rhs_attr ? "a tensor" : "an attribute"));
      }
    }
  }

  std::string_view text_;
  std::string filename_;
  std::map<std::string, std::vector<std::string>> op_sets_;
  std::deque<std::string> expanded_;
};

} // namespace

RuleFile parse_rule_file(std::string_view text, std::string filename) {
  return FileReader(text, std::move(filename)).read();
}

RuleFile load_rule_file(const std::string& path) {
  return parse_rule_file(read_user_file(path, "rule file"), path);
}

} // namespace tilesat::rewrites
