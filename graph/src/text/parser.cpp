// parser.cpp: files, modules, functions and op statements (generic and custom form).
#include "tilesat/graph/parser.h"

#include "text/attr_parser.h"
#include "text/import.h"
#include "tilesat/graph/data_files.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace tilesat {
namespace text {
namespace {

std::string unquote_symbol(std::string_view at_id) {
  std::string_view s = at_id.substr(1);
  if (s.size() >= 2 && s.front() == '"') s = s.substr(1, s.size() - 2);
  return std::string(s);
}

class Parser {
public:
  Parser(std::string_view source, std::string file)
      : source_(source), file_(file), c_(source, std::move(file)) {}

  SourceFile run() {
    while (!c_.is(Tok::Eof)) {
      if ((c_.is(Tok::HashId) || c_.is(Tok::BangId)) && c_.peek().kind == Tok::Equal) {
        parse_alias();
      } else if (c_.is_word("module")) {
        parse_module();
        implicit_module_ = false;
      } else if (c_.is_word("func.func")) {
        // Functions outside any module go into one unnamed module, as MLIR does.
        if (!implicit_module_) {
          out_.modules.emplace_back();
          symbols_.clear();
          find_functions();
        }
        implicit_module_ = true;
        out_.modules.back().functions.push_back(parse_function());
        out_.modules.back().destination_passing |= saw_destinations_;
        out_.modules.back().device_tensors |= saw_ttnn_;
      } else {
        c_.expected("'module', 'func.func' or an alias definition");
      }
    }
    return std::move(out_);
  }

private:
  std::string_view source_;
  std::string file_;
  /// The function names of the module being parsed, with where each is defined.
  std::map<std::string, SourceLoc> symbols_;
  /// Where each function of the module being parsed starts (its `func.func`), found before
  /// its functions are parsed so that a call may name a function defined after it.
  std::map<std::string, size_t> function_offsets_;
  /// Functions parsed for calls (each once per module), and the calls being inlined (a call
  /// back into one of them is recursion).
  std::shared_ptr<std::map<std::string, Graph>> callees_ =
      std::make_shared<std::map<std::string, Graph>>();
  std::set<std::string> calling_;

  /// Records where each function of the module that starts here begins: up to the module's
  /// closing brace, or (functions outside a module) up to the next `module`.
  void find_functions() {
    function_offsets_.clear();
    callees_ = std::make_shared<std::map<std::string, Graph>>();
    size_t start = c_.tok().offset;
    int depth = 0;
    try {
      skim_functions(depth);
    } catch (const Error&) {
      // Text the skim cannot read is reported where the parse reaches it; a call of a function
      // after it then names an unknown function.
    }
    c_.seek(start);
  }

  void skim_functions(int depth) {
    while (!c_.is(Tok::Eof)) {
      if (c_.is(Tok::LBrace)) {
        ++depth;
      } else if (c_.is(Tok::RBrace)) {
        if (--depth < 0) break;
      } else if (depth == 0 && c_.is_word("module")) {
        break;
      } else if (depth == 0 && c_.is_word("func.func")) {
        size_t at = c_.tok().offset;
        c_.take();
        if (c_.is_word("private") || c_.is_word("public") || c_.is_word("nested")) c_.take();
        if (c_.is(Tok::AtId)) function_offsets_.emplace(unquote_symbol(c_.tok().text), at);
        continue;
      }
      c_.take();
    }
  }

  /// The function `name` of this module, parsed on its own (once) for a call at `at`.
  const Graph& callee(const std::string& name, const SourceLoc& at) {
    if (auto it = callees_->find(name); it != callees_->end()) return it->second;
    auto off = function_offsets_.find(name);
    if (off == function_offsets_.end()) {
      throw Error(at, fmt::format("call of unknown function @{}", name));
    }
    if (calling_.contains(name)) {
      throw Error(at, fmt::format("recursive call of @{} (calls are inlined)", name));
    }
    Parser nested(source_, file_);
    nested.function_offsets_ = function_offsets_;
    nested.callees_ = callees_;
    nested.calling_ = calling_;
    nested.calling_.insert(name);
    nested.c_.seek(off->second);
    nested.c_.nest_inside(c_);
    Cursor::Nest nest(nested.c_);
    Graph g = nested.parse_function();
    return callees_->emplace(name, std::move(g)).first->second;
  }

  /// `call @f(%a, ...) : (types) -> type` (or `func.call`): the callee's body inlined, its
  /// nodes keeping their locations in the callee.
  void parse_call(FunctionScope& s, OpRecord& rec) {
    rec.name = std::string(c_.take().text);
    Token sym = c_.expect(Tok::AtId, "a function name such as '@relu'");
    std::string name = unquote_symbol(sym.text);
    parse_paren_operands(rec);
    if (c_.is(Tok::LBrace)) add_attrs(rec, parse_attr_dict(c_));
    c_.expect(Tok::Colon, "':'");
    parse_function_type(rec);
    skip_trailing_loc();
    inline_function(s, rec, name, c_.loc_of(sym));
  }

  /// `rec`'s results defined as the body of @`name` (written at `at`) on `rec`'s operands.
  void inline_function(FunctionScope& s, OpRecord& rec, const std::string& name,
                       const SourceLoc& at) {
    std::vector<NodeId> args = resolve_operands(s, rec);
    const Graph& f = callee(name, at);
    size_t want = std::max<size_t>(1, rec.results.size());
    if (f.arguments().size() != args.size() || f.results().size() != want) {
      throw Error(rec.name_loc,
                  fmt::format("'{}' of @{} with {} operands and {} result{}: @{} takes {} "
                              "arguments and has {} results",
                              rec.name, name, args.size(), want, want == 1 ? "" : "s", name,
                              f.arguments().size(), f.results().size()));
    }
    for (size_t i = 0; i < args.size(); ++i) {
      const TensorType& want = f.node(f.arguments()[i]).type;
      if (!want.same_value_type(s.graph.node(args[i]).type)) {
        throw Error(rec.operands[i].loc,
                    fmt::format("operand #{} of the call of @{}: expected {}, got {}", i, name,
                                want.str(), s.graph.node(args[i]).type.str()));
      }
    }
    define_results(s, rec, inline_graph(s.graph, f, args), fmt::format("@{} returns", name));
  }
  /// `stablehlo.composite "name" %a, ... {decomposition = @f, ...}`: the decomposition
  /// inlined as a call of @f (the composite's name and attributes only label it).
  void parse_composite(FunctionScope& s, OpRecord& rec) {
    const ParsedAttr* d = rec.attr("decomposition");
    if (d == nullptr) {
      throw Error(rec.loc, fmt::format("'{}' needs attribute 'decomposition'", rec.name));
    }
    if (!d->spelling.starts_with("@")) {
      throw Error(d->loc, fmt::format("attribute 'decomposition' of '{}': expected a function "
                                      "such as @f, got {}",
                                      rec.name, render_attr(*d)));
    }
    inline_function(s, rec, unquote_symbol(d->spelling), d->loc);
  }
  /// Whether the function parsed last declared `ttir.empty()` destinations.
  bool saw_destinations_ = false;
  /// Whether the function parsed last holds `ttnn.*` ops (its arguments are device tensors).
  bool saw_ttnn_ = false;

  void skip_trailing_loc() {
    if (c_.is_word("loc") && c_.peek().kind == Tok::LParen) {
      c_.take();
      c_.take_balanced_paren();
    }
  }

  void parse_alias() {
    std::string name(c_.take().text);
    c_.expect(Tok::Equal, "'='");
    for (const auto& [k, v] : out_.aliases) {
      if (k == name) c_.fail(fmt::format("alias {} is defined twice", name));
    }
    out_.aliases.emplace_back(std::move(name), render_attr(parse_attr(c_)));
  }

  void parse_module() {
    c_.take();
    symbols_.clear();
    Module m;
    if (c_.is(Tok::AtId)) m.name = unquote_symbol(c_.take().text);
    if (c_.accept_word("attributes")) {
      for (auto& [k, v] : parse_attr_dict(c_)) m.attributes.emplace_back(k, render_attr(v));
    }
    c_.expect(Tok::LBrace, "'{'");
    find_functions();
    while (!c_.accept(Tok::RBrace)) {
      if (c_.is_word("func.func")) {
        m.functions.push_back(parse_function());
        m.destination_passing |= saw_destinations_;
        m.device_tensors |= saw_ttnn_;
      } else if (c_.is_word("module")) {
        c_.fail("nested modules are not supported");
      } else {
        c_.expected("'func.func' or '}'");
      }
    }
    skip_trailing_loc();
    out_.modules.push_back(std::move(m));
  }

  static ArgRole role_of(const std::vector<NamedAttr>& attrs) {
    for (const auto& [k, v] : attrs) {
      if ((k == "ttcore.argument_type" || k == "tt.argument_type") &&
          (v.spelling.find("parameter") != std::string::npos ||
           v.spelling.find("constant") != std::string::npos)) {
        return ArgRole::Weight;
      }
    }
    return ArgRole::Input;
  }

  Graph parse_function() {
    c_.take();
    if (c_.is_word("private") || c_.is_word("public") || c_.is_word("nested")) c_.take();
    Token sym = c_.expect(Tok::AtId, "a function name such as '@main'");
    Graph g(unquote_symbol(sym.text));
    // A module's functions are its symbols: one name, one function (as MLIR's verifier says).
    if (auto [it, fresh] = symbols_.emplace(g.name(), c_.loc_of(sym)); !fresh)
      throw Error(c_.loc_of(sym), fmt::format("redefinition of symbol named '{}' (first defined "
                                              "at {})",
                                              g.name(), it->second.str()));
    saw_ttnn_ = false;
    FunctionScope scope{g, {}, {}, {}};
    c_.expect(Tok::LParen, "'('");
    if (!c_.accept(Tok::RParen)) {
      do {
        Token v = c_.expect(Tok::PercentId, "an argument such as '%arg0'");
        SourceLoc loc = c_.loc_of(v);
        c_.expect(Tok::Colon, "':'");
        TensorType type = parse_type(c_);
        std::vector<NamedAttr> attrs;
        if (c_.is(Tok::LBrace)) attrs = parse_attr_dict(c_);
        std::string name(v.text);
        if (auto prev = scope.defined_at.find(name); prev != scope.defined_at.end()) {
          throw Error(loc, fmt::format("redefinition of {} (first defined at {})", name,
                                       prev->second.str()));
        }
        // tt-mlir keeps a source name in `ttir.name`; otherwise the SSA name is the name.
        std::string arg_name = name.substr(1);
        for (const auto& [k, val] : attrs) {
          if (k != "ttir.name") continue;
          if (val.kind != ParsedAttr::Kind::String || val.text.empty()) {
            throw Error(val.loc, fmt::format("attribute 'ttir.name' of argument {}: expected a "
                                             "non-empty string, got {}",
                                             name, render_attr(val)));
          }
          arg_name = val.text;
        }
        NodeId id = g.add_argument(arg_name, type, role_of(attrs), loc);
        for (auto& [k, val] : attrs) {
          if (k == "ttcore.argument_type" || k == "tt.argument_type" || k == "ttir.name") {
            continue; // the role and the name
          }
          g.mutable_node(id).attrs.set(k, OpaqueAttr{render_attr(val)});
        }
        scope.values.emplace(name, id);
        scope.defined_at.emplace(name, loc);
        skip_trailing_loc();
      } while (c_.accept(Tok::Comma));
      c_.expect(Tok::RParen, "')'");
    }
    std::vector<TensorType> results;
    if (c_.accept(Tok::Arrow)) {
      if (c_.accept(Tok::LParen)) {
        if (!c_.accept(Tok::RParen)) {
          do {
            results.push_back(parse_type(c_));
            if (c_.is(Tok::LBrace)) parse_attr_dict(c_);
          } while (c_.accept(Tok::Comma));
          c_.expect(Tok::RParen, "')'");
        }
      } else {
        results.push_back(parse_type(c_));
      }
    }
    if (c_.accept_word("attributes")) parse_attr_dict(c_);
    c_.expect(Tok::LBrace, "'{'");
    bool returned = false;
    while (!c_.is(Tok::RBrace)) {
      if (returned) c_.expected("'}' after 'return'");
      returned = parse_statement(scope, results);
    }
    if (!returned)
      c_.fail(fmt::format("expected 'return' before the end of function @{}", g.name()));
    c_.take();
    skip_trailing_loc();
    std::vector<Diagnostic> problems = g.verify();
    if (!problems.empty()) throw Error(problems.front());
    // TTNN types carry the input's placements (`#ttnn_layout`); tilesat plans its own.
    if (saw_ttnn_)
      for (NodeId id = 0; id < g.num_nodes(); ++id) g.mutable_node(id).type.encoding.clear();
    saw_destinations_ = !scope.empties.empty();
    return g;
  }

  OperandRef take_operand() {
    Token v = c_.expect(Tok::PercentId, "an operand such as '%0'");
    return OperandRef{std::string(v.text), 0, c_.loc_of(v)};
  }

  /// `return %a, %b : t1, t2`; returns true (the statement ends the function).
  bool parse_return(FunctionScope& s, const std::vector<TensorType>& signature) {
    Token kw = c_.take();
    std::vector<OperandRef> values;
    if (c_.is(Tok::PercentId)) {
      do {
        values.push_back(take_operand());
      } while (c_.accept(Tok::Comma));
    }
    std::vector<TensorType> types;
    if (!values.empty()) {
      c_.expect(Tok::Colon, "':'");
      do {
        types.push_back(parse_type(c_));
      } while (c_.accept(Tok::Comma));
    }
    skip_trailing_loc();
    if (types.size() != values.size()) {
      c_.fail_at(
          kw, fmt::format("expected {} types after 'return', got {}", values.size(), types.size()));
    }
    if (values.size() != signature.size()) {
      c_.fail_at(kw, fmt::format("expected {} return values (the results of @{}), got {}",
                                 signature.size(), s.graph.name(), values.size()));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      NodeId id = lookup_value(s, values[i]);
      const TensorType& actual = s.graph.node(id).type;
      if (!actual.same_value_type(types[i]) || !actual.same_value_type(signature[i])) {
        const TensorType& wrong = actual.same_value_type(types[i]) ? signature[i] : types[i];
        throw Error(values[i].loc, fmt::format("type of return value #{}: expected {} (the type "
                                               "of {}), got {}",
                                               i, actual.str(), values[i].name, wrong.str()));
      }
      s.graph.add_result(id);
    }
    return true;
  }

  bool parse_statement(FunctionScope& s, const std::vector<TensorType>& signature) {
    if (c_.is_word("return") || c_.is_word("func.return")) return parse_return(s, signature);
    if (!c_.is(Tok::PercentId)) c_.expected("an op, 'return' or '}'");
    Token res = c_.take();
    OpRecord rec;
    rec.result = std::string(res.text);
    rec.loc = c_.loc_of(res);
    parse_result_names(rec);
    c_.expect(Tok::Equal, "'='");
    rec.name_loc = c_.loc();
    if (c_.is_word("call") || c_.is_word("func.call")) {
      parse_call(s, rec);
      return false;
    }
    if (c_.is(Tok::String)) {
      parse_generic(rec);
    } else if (c_.is(Tok::BareId)) {
      parse_custom(rec);
    } else {
      c_.expected("an op name");
    }
    skip_trailing_loc();
    if (rec.name == "stablehlo.composite") {
      parse_composite(s, rec);
      return false;
    }
    if (rec.name == "stablehlo.while" && loop_regions_.size() == 2) {
      std::vector<LoopRegion> regions = std::move(loop_regions_);
      loop_regions_.clear();
      import_while(
          s, rec,
          [&](std::span<const NodeId> v) { return run_loop_region(s, regions[0], v, 1)[0]; },
          [&](std::span<const NodeId> v) { return run_loop_region(s, regions[1], v, v.size()); });
      return false;
    }
    if (!rec.results.empty() && rec.name != "stablehlo.optimization_barrier" &&
        rec.name != "stablehlo.reduce" && rec.name != "stablehlo.while") {
      throw Error(rec.loc, fmt::format("'{}' with {} results is not supported (calls, "
                                       "composites, 'stablehlo.optimization_barrier', "
                                       "'stablehlo.reduce' and 'stablehlo.while' may have "
                                       "several)",
                                       rec.name, rec.results.size()));
    }
    if (rec.name.starts_with("ttir.") || rec.name == "tensor.empty") {
      import_ttir_op(s, rec);
    } else if (rec.name.starts_with("ttnn.")) {
      import_ttnn_op(s, rec);
      saw_ttnn_ = true;
    } else if (rec.name.starts_with("stablehlo.") || rec.name.starts_with("chlo.")) {
      import_stablehlo_op(s, rec);
    } else {
      throw Error(rec.name_loc, fmt::format("unknown op '{}'", rec.name));
    }
    return false;
  }

  /// After the first result name: `:N` (results `%r#0` ... `%r#N-1`) or `, %b, ...`.
  void parse_result_names(OpRecord& rec) {
    if (c_.accept(Tok::Colon)) {
      Token n = c_.expect(Tok::Integer, "a result count such as '2'");
      int64_t count = 0;
      auto [end, ec] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), count);
      if (ec != std::errc() || end != n.text.data() + n.text.size() || count < 1 ||
          count > kMaxResults) {
        c_.fail_at(
            n, fmt::format("expected a result count from 1 to {}, got {}", kMaxResults, n.text));
      }
      if (count == 1) return;
      for (int64_t i = 0; i < count; ++i)
        rec.results.push_back(fmt::format("{}#{}", rec.result, i));
      return;
    }
    if (!c_.is(Tok::Comma)) return;
    rec.results.push_back(rec.result);
    while (c_.accept(Tok::Comma)) {
      rec.results.emplace_back(c_.expect(Tok::PercentId, "a result name such as '%1'").text);
    }
  }
  static constexpr int64_t kMaxResults = 4096;

  void add_attrs(OpRecord& rec, std::vector<NamedAttr> attrs) {
    for (auto& [k, v] : attrs) {
      if (rec.attr(k) != nullptr) {
        throw Error(v.loc, fmt::format("attribute '{}' is given twice", k));
      }
      rec.attrs.emplace_back(std::move(k), std::move(v));
    }
  }

  std::vector<TensorType> parse_types_in_parens(std::vector<std::string>* elements = nullptr) {
    c_.expect(Tok::LParen, "'('");
    std::vector<TensorType> types;
    if (c_.accept(Tok::RParen)) return types;
    do {
      std::string element;
      types.push_back(parse_type(c_, &element));
      if (elements != nullptr) elements->push_back(std::move(element));
    } while (c_.accept(Tok::Comma));
    c_.expect(Tok::RParen, "')'");
    return types;
  }

  void parse_result_type(OpRecord& rec) {
    size_t want = std::max<size_t>(1, rec.results.size());
    if (c_.is(Tok::LParen)) {
      std::vector<TensorType> types = parse_types_in_parens();
      if (types.size() != want) {
        throw Error(rec.name_loc, fmt::format("expected {} result type{} for '{}', got {}", want,
                                              want == 1 ? "" : "s", rec.name, types.size()));
      }
      rec.result_type = types[0];
      if (want > 1) rec.result_types = std::move(types);
    } else {
      if (want > 1) c_.expected(fmt::format("'(' and {} result types", want));
      rec.result_type = parse_type(c_);
    }
    rec.has_result_type = true;
  }

  /// `(operand types) -> result type`
  void parse_function_type(OpRecord& rec) {
    SourceLoc at = c_.loc();
    rec.operand_types = parse_types_in_parens(&rec.operand_elements);
    c_.expect(Tok::Arrow, "'->'");
    parse_result_type(rec);
    check_operand_type_count(rec, at);
  }

  void check_operand_type_count(const OpRecord& rec, const SourceLoc& at) {
    if (rec.operand_types.size() != rec.operands.size()) {
      throw Error(at, fmt::format("expected {} operand types for '{}', got {}", rec.operands.size(),
                                  rec.name, rec.operand_types.size()));
    }
  }

  void parse_paren_operands(OpRecord& rec) {
    c_.expect(Tok::LParen, "'('");
    if (c_.accept(Tok::RParen)) return;
    do {
      rec.operands.push_back(take_operand());
    } while (c_.accept(Tok::Comma));
    c_.expect(Tok::RParen, "')'");
  }

  // "ttir.op"(%a, %b) <{props}> {attrs} : (types) -> type
  void parse_generic(OpRecord& rec) {
    std::string_view quoted = c_.take().text;
    rec.name = std::string(quoted.substr(1, quoted.size() - 2));
    parse_paren_operands(rec);
    if (rec.name == "stablehlo.while" && c_.is(Tok::LParen) && c_.peek().kind == Tok::LBrace) {
      parse_while_regions();
    } else if (c_.is(Tok::LParen) && c_.peek().kind == Tok::LBrace) {
      // ({ ^bb0(%a: t, %b: t): ... }): the reducer region of "stablehlo.reduce" (or
      // "stablehlo.reduce_window")
      if (rec.name != "stablehlo.reduce" && rec.name != "stablehlo.reduce_window")
        c_.fail(fmt::format("'{}' cannot have a region", rec.name));
      c_.take();
      c_.take();
      Token label = c_.expect(Tok::CaretId, "a block label such as '^bb0'");
      parse_reducer_body(rec, label);
      c_.expect(Tok::RParen, "')'");
    }
    if (c_.is(Tok::Less) && c_.peek().kind == Tok::LBrace) {
      c_.take();
      c_.take();
      Cursor::Nest nest(c_);
      add_attrs(rec, parse_attr_entries(c_, Tok::RBrace, "'}'"));
      c_.expect(Tok::Greater, "'>'");
    }
    if (c_.is(Tok::LBrace)) add_attrs(rec, parse_attr_dict(c_));
    c_.expect(Tok::Colon, "':'");
    parse_function_type(rec);
  }

  // ttir.op %a, 0.5, key = value, dense<...> {attrs} : types [-> type]
  void parse_custom(OpRecord& rec) {
    Token name = c_.take();
    rec.name = std::string(name.text);
    if (rec.name == "stablehlo.while" && c_.is(Tok::LParen)) {
      parse_while(rec);
      return;
    }
    bool reduce = rec.name == "stablehlo.reduce" && c_.is(Tok::LParen);
    if (reduce) {
      parse_reduce_head(rec);
    } else if (rec.name == "stablehlo.composite" && c_.is(Tok::String)) {
      // stablehlo.composite "name" %a, %b {decomposition = @f}
      std::vector<NamedAttr> one;
      one.emplace_back("name", parse_attr(c_, TypedValue::Forbidden));
      add_attrs(rec, std::move(one));
      while (c_.is(Tok::PercentId)) {
        rec.operands.push_back(take_operand());
        if (!c_.accept(Tok::Comma)) break;
      }
    } else if (c_.is(Tok::AtId) && c_.peek().kind == Tok::LParen) {
      // stablehlo.custom_call @target(%x, ...): the target as its generic attribute
      Token target = c_.take();
      ParsedAttr a;
      a.kind = ParsedAttr::Kind::String;
      a.loc = c_.loc_of(target);
      a.text = unquote_symbol(target.text);
      a.spelling = std::string(target.text);
      std::vector<NamedAttr> one;
      one.emplace_back("call_target_name", std::move(a));
      add_attrs(rec, std::move(one));
      parse_paren_operands(rec);
    } else if (c_.is(Tok::LParen)) {
      parse_paren_operands(rec);
      // stablehlo.convolution(%x, %w) dim_numbers = ..., window = {...}
      while (c_.is(Tok::BareId) && c_.peek().kind == Tok::Equal) {
        parse_custom_item(rec);
        if (!c_.accept(Tok::Comma)) break;
      }
    } else if (!c_.is(Tok::Colon) && !c_.is(Tok::LBrace)) {
      do {
        parse_custom_item(rec);
      } while (c_.accept(Tok::Comma));
    }
    if (rec.name == "stablehlo.slice" && c_.is(Tok::LSquare)) parse_slice_ranges(rec);
    if (c_.is(Tok::LBrace)) add_attrs(rec, parse_attr_dict(c_));
    c_.expect(Tok::Colon, "':'");
    parse_custom_types(rec);
    if (reduce && rec.reducer.empty()) {
      if (!c_.is_word("reducer")) c_.expected("'reducer' (or 'applies <op>' before 'across')");
      Token label = c_.take();
      parse_reducer_body(rec, label);
    }
  }

  void parse_custom_types(OpRecord& rec) {
    SourceLoc at = c_.loc();
    if (c_.is(Tok::LParen)) {
      parse_function_type(rec);
      return;
    }
    std::vector<TensorType> types;
    std::vector<std::string> elements;
    do {
      types.push_back(parse_type(c_, &elements.emplace_back()));
    } while (c_.accept(Tok::Comma));
    if (c_.accept(Tok::Arrow)) {
      rec.operand_types = std::move(types);
      rec.operand_elements = std::move(elements);
      parse_result_type(rec);
      check_operand_type_count(rec, at);
      return;
    }
    // StableHLO's select: `: pred_type, result_type` (the two choices have the result type).
    if (types.size() == 2 && rec.name == "stablehlo.select" && rec.operands.size() == 3) {
      rec.operand_types = {types[0], types[1], types[1]};
      rec.operand_elements = {elements[0], elements[1], elements[1]};
      rec.result_type = types[1];
      rec.has_result_type = true;
      return;
    }
    // stablehlo.optimization_barrier: `: t1, t2`, one type per operand and result.
    if (!rec.results.empty() && types.size() == rec.results.size()) {
      rec.operand_types = types;
      rec.operand_elements = std::move(elements);
      rec.result_type = types[0];
      rec.result_types = std::move(types);
      rec.has_result_type = true;
      check_operand_type_count(rec, at);
      return;
    }
    if (types.size() != 1) c_.expected("'->'");
    // One type names the result and every operand (`stablehlo.add %a, %b : tensor<4xf32>`).
    rec.result_type = types[0];
    rec.has_result_type = true;
    for (const OperandRef& o : rec.operands) {
      rec.operand_types.push_back(o.name.empty() ? TensorType{types[0].dtype, Shape{}, ""}
                                                 : types[0]);
      rec.operand_elements.push_back(elements[0]);
    }
  }

  /// `(%x init: %c) [applies stablehlo.add] across dimensions = [d, ...]` of stablehlo.reduce:
  /// the operands are %x and %c, the dims the attribute `dimensions`.
  void parse_reduce_head(OpRecord& rec) {
    // (%x init: %c), (%i init: %d), ...: the operands are the inputs, then the inits.
    std::vector<OperandRef> inits;
    do {
      c_.expect(Tok::LParen, "'('");
      rec.operands.push_back(take_operand());
      c_.expect_word("init");
      c_.expect(Tok::Colon, "':'");
      inits.push_back(take_operand());
      c_.expect(Tok::RParen, "')'");
    } while (c_.accept(Tok::Comma));
    rec.operands.insert(rec.operands.end(), inits.begin(), inits.end());
    if (inits.size() > 1 && c_.is_word("applies")) {
      c_.fail("a reduce of several operands needs a reducer region ('applies' names one op)");
    }
    if (c_.accept_word("applies")) {
      rec.reducer_loc = c_.loc();
      rec.reducer = std::string(c_.expect(Tok::BareId, "an op such as 'stablehlo.add'").text);
    }
    c_.expect_word("across");
    c_.expect_word("dimensions");
    c_.expect(Tok::Equal, "'='");
    if (!c_.is(Tok::LSquare)) c_.expected("'['");
    std::vector<NamedAttr> dims;
    dims.emplace_back("dimensions", parse_attr(c_, TypedValue::Forbidden));
    add_attrs(rec, std::move(dims));
  }

  /// A reducer region after its label (`reducer` or `^bb0`): `(%a: t, %b: t)`, then (after
  /// `:` for a block label) `{ %r = op %a, %b ... return %r ... }`. Only one op is read: it
  /// becomes `rec.reducer`.
  void parse_reducer_body(OpRecord& rec, const Token& label) {
    Cursor::Nest nest(c_);
    // The block's arguments: `(%a: t, %b: t)` per operand in the custom form (each operand's
    // accumulated and next value), one list in StableHLO's order after `^bb0`.
    std::vector<std::vector<RegionArg>> groups;
    do {
      auto& group = groups.emplace_back();
      c_.expect(Tok::LParen, "'('");
      do {
        Token v = c_.expect(Tok::PercentId, "a reducer argument such as '%a'");
        c_.expect(Tok::Colon, "':'");
        group.push_back(RegionArg{std::string(v.text), parse_type(c_), c_.loc_of(v)});
      } while (c_.accept(Tok::Comma));
      c_.expect(Tok::RParen, "')'");
    } while (label.kind != Tok::CaretId && c_.is(Tok::LParen));
    bool block = label.kind == Tok::CaretId;
    std::vector<RegionArg> args;
    if (block) {
      args = groups[0];
    } else {
      for (size_t half = 0; half < 2; ++half) {
        for (const auto& g : groups) {
          if (g.size() != 2) {
            c_.fail_at(label,
                       fmt::format("expected 2 reducer arguments per operand, got {}", g.size()));
          }
          args.push_back(g[half]);
        }
      }
    }
    size_t operands = rec.operands.size() / 2;
    if (args.size() != 2 * operands) {
      c_.fail_at(label, fmt::format("expected {} reducer arguments (two per operand), got {}",
                                    2 * operands, args.size()));
    }
    if (block) {
      c_.expect(Tok::Colon, "':'");
    } else {
      c_.expect(Tok::LBrace, "'{'");
    }
    if (operands > 1) {
      rec.regions.push_back(std::make_shared<const Graph>(parse_region(args, label, operands)));
      c_.expect(Tok::RBrace, "'}'");
      return;
    }
    parse_one_op_reducer(rec, {args[0].name, args[1].name});
  }

  /// A block argument of a region: `%a: tensor<f32>`.
  struct RegionArg {
    std::string name;
    TensorType type;
    SourceLoc loc;
  };

  /// `(%it = %init, ...) : types [attributes {...}] cond { ... } do { ... }` after
  /// stablehlo.while: the operands are the initial values, the regions the condition (one
  /// value) and the body (one value per loop value), both functions of the loop values.
  void parse_while(OpRecord& rec) {
    c_.expect(Tok::LParen, "'('");
    std::vector<RegionArg> args;
    if (!c_.accept(Tok::RParen)) {
      do {
        Token v = c_.expect(Tok::PercentId, "a loop value such as '%iterArg'");
        c_.expect(Tok::Equal, "'='");
        rec.operands.push_back(take_operand());
        args.push_back(RegionArg{std::string(v.text), {}, c_.loc_of(v)});
      } while (c_.accept(Tok::Comma));
      c_.expect(Tok::RParen, "')'");
    }
    c_.expect(Tok::Colon, "':'");
    SourceLoc at = c_.loc();
    std::vector<TensorType> types;
    do {
      types.push_back(parse_type(c_, &rec.operand_elements.emplace_back()));
    } while (c_.accept(Tok::Comma));
    if (types.size() != args.size()) {
      throw Error(at, fmt::format("expected {} types for the loop values of '{}', got {}",
                                  args.size(), rec.name, types.size()));
    }
    for (size_t i = 0; i < args.size(); ++i) args[i].type = types[i];
    if (c_.accept_word("attributes")) parse_attr_dict(c_);
    rec.operand_types = types;
    rec.result_type = types.at(0);
    rec.has_result_type = true;
    if (types.size() > 1) rec.result_types = types;
    loop_regions_.clear();
    for (std::string_view part : {"cond", "do"}) {
      Token label = c_.tok();
      c_.expect_word(part);
      c_.expect(Tok::LBrace, "'{'");
      skip_loop_region(args, label);
      c_.expect(Tok::RBrace, "'}'");
    }
  }

  /// A loop's condition or body, read once per trip when the loop is unrolled (its ops may
  /// need the trip's values to be read: a dynamic_slice at the counter).
  struct LoopRegion {
    size_t offset = 0;
    std::vector<RegionArg> args;
    Token label;
  };
  /// The regions of the stablehlo.while read last: its condition and body.
  std::vector<LoopRegion> loop_regions_;

  /// Records the region starting at the cursor and moves to the `}` that closes it.
  void skip_loop_region(const std::vector<RegionArg>& args, const Token& label) {
    loop_regions_.push_back(LoopRegion{c_.tok().offset, args, label});
    int depth = 0;
    while (!(c_.is(Tok::RBrace) && depth == 0)) {
      if (c_.is(Tok::Eof)) c_.fail_at(label, "the region has no closing '}'");
      if (c_.is(Tok::LBrace)) ++depth;
      if (c_.is(Tok::RBrace)) --depth;
      c_.take();
    }
  }

  /// A region of a loop read on `values` of `s`'s graph (its ops may also use the values
  /// defined before the loop): the `want` values it returns.
  std::vector<NodeId> run_loop_region(FunctionScope& s, const LoopRegion& body,
                                      std::span<const NodeId> values, size_t want) {
    Parser nested(source_, file_);
    nested.function_offsets_ = function_offsets_;
    nested.callees_ = callees_;
    nested.calling_ = calling_;
    nested.c_.seek(body.offset);
    nested.c_.nest_inside(c_);
    Cursor::Nest nest(nested.c_);
    FunctionScope scope{s.graph, {}, {}, {}, &s};
    if (body.args.size() != values.size()) {
      c_.fail_at(body.label, fmt::format("the region takes {} arguments for {} loop values",
                                         body.args.size(), values.size()));
    }
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorType& t = s.graph.node(values[i]).type;
      if (!body.args[i].type.same_value_type(t)) {
        throw Error(body.args[i].loc,
                    fmt::format("argument {} of the region is {}, but loop "
                                "value #{} is {}",
                                body.args[i].name, body.args[i].type.str(), i, t.str()));
      }
      scope.values.emplace(body.args[i].name, values[i]);
      scope.defined_at.emplace(body.args[i].name, body.args[i].loc);
    }
    std::vector<NodeId> out;
    for (const OperandRef& v : nested.parse_region_ops(scope, body.label)) {
      out.push_back(lookup_value(scope, v));
    }
    if (out.size() != want) {
      c_.fail_at(body.label,
                 fmt::format("the region returns {} values, expected {}", out.size(), want));
    }
    return out;
  }

  /// The regions of a generic "stablehlo.while": `({ ^bb0(args): ... }, { ^bb0(args): ... })`.
  void parse_while_regions() {
    loop_regions_.clear();
    c_.expect(Tok::LParen, "'('");
    for (size_t part = 0; part < 2; ++part) {
      if (part == 1) c_.expect(Tok::Comma, "',' and the loop's body");
      c_.expect(Tok::LBrace, "'{'");
      Cursor::Nest nest(c_);
      Token label = c_.expect(Tok::CaretId, "a block label such as '^bb0'");
      std::vector<RegionArg> args;
      c_.expect(Tok::LParen, "'('");
      if (!c_.accept(Tok::RParen)) {
        do {
          Token v = c_.expect(Tok::PercentId, "a block argument such as '%a'");
          c_.expect(Tok::Colon, "':'");
          args.push_back(RegionArg{std::string(v.text), parse_type(c_), c_.loc_of(v)});
        } while (c_.accept(Tok::Comma));
        c_.expect(Tok::RParen, "')'");
      }
      c_.expect(Tok::Colon, "':'");
      skip_loop_region(args, label);
      c_.expect(Tok::RBrace, "'}'");
    }
    c_.expect(Tok::RParen, "')'");
  }

  /// A region's ops after its arguments, up to and including `stablehlo.return %a, ... : t, ...`
  /// (or `"stablehlo.return"(%a, ...) : (t, ...) -> ()`): a function of `args`.
  Graph parse_region(const std::vector<RegionArg>& args, const Token& label, size_t want) {
    Graph g("region");
    FunctionScope scope{g, {}, {}, {}};
    for (const RegionArg& a : args) {
      if (scope.defined_at.contains(a.name)) {
        throw Error(a.loc, fmt::format("redefinition of {} (first defined at {})", a.name,
                                       scope.defined_at.at(a.name).str()));
      }
      scope.values.emplace(a.name, g.add_argument(a.name.substr(1), a.type, ArgRole::Input, a.loc));
      scope.defined_at.emplace(a.name, a.loc);
    }
    for (const OperandRef& v : parse_region_ops(scope, label)) g.add_result(lookup_value(scope, v));
    if (g.results().size() != want) {
      c_.fail_at(label, fmt::format("the region returns {} values, expected {}", g.results().size(),
                                    want));
    }
    return g;
  }

  /// A region's ops into `scope`, up to and including its `stablehlo.return`: the values it
  /// returns.
  std::vector<OperandRef> parse_region_ops(FunctionScope& scope, const Token& label) {
    while (!at_region_return()) {
      if (c_.is(Tok::RBrace) || c_.is(Tok::Eof)) {
        c_.fail_at(label, "the region has no 'stablehlo.return'");
      }
      if (parse_statement(scope, {})) c_.fail_at(label, "a region ends with 'stablehlo.return'");
    }
    return parse_region_return();
  }

  bool at_region_return() const {
    return c_.is_word("stablehlo.return") ||
           (c_.is(Tok::String) && c_.tok().text == "\"stablehlo.return\"");
  }

  /// `stablehlo.return %a, ... : t, ...` or `"stablehlo.return"(%a, ...) : (t, ...) -> ()`
  /// (the cursor at its name): the values it returns.
  std::vector<OperandRef> parse_region_return() {
    bool quoted = c_.take().kind == Tok::String;
    if (quoted) c_.expect(Tok::LParen, "'('");
    std::vector<OperandRef> values;
    do {
      values.push_back(take_operand());
    } while (c_.accept(Tok::Comma));
    if (quoted) c_.expect(Tok::RParen, "')'");
    c_.expect(Tok::Colon, "':'");
    if (quoted) {
      parse_types_in_parens();
      c_.expect(Tok::Arrow, "'->'");
      c_.expect(Tok::LParen, "'('");
      c_.expect(Tok::RParen, "')'");
    } else {
      do {
        parse_type(c_);
      } while (c_.accept(Tok::Comma));
    }
    skip_trailing_loc();
    return values;
  }

  /// The one op of a reducer of one operand (arguments `args`), then its return and `}`.
  void parse_one_op_reducer(OpRecord& rec, const std::vector<std::string>& args) {
    OpRecord op;
    if (c_.is(Tok::PercentId)) {
      Token res = c_.take();
      c_.expect(Tok::Equal, "'='");
      op.result = std::string(res.text);
      op.loc = c_.loc_of(res);
      op.name_loc = c_.loc();
      if (c_.is(Tok::String)) {
        parse_generic(op);
      } else if (c_.is(Tok::BareId)) {
        parse_custom(op);
      } else {
        c_.expected("an op name");
      }
      skip_trailing_loc();
      bool on_args = op.operands.size() == 2 && !op.operands[0].name.empty() &&
                     !op.operands[1].name.empty() &&
                     ((op.operands[0].name == args[0] && op.operands[1].name == args[1]) ||
                      (op.operands[0].name == args[1] && op.operands[1].name == args[0]));
      if (!on_args) {
        throw Error(op.name_loc, fmt::format("the reducer's op must combine its two arguments "
                                             "{} and {}",
                                             args[0], args[1]));
      }
    }
    if (!at_region_return()) {
      c_.expected(op.result.empty() ? "an op of the reducer"
                                    : "'stablehlo.return' (a reducer of "
                                      "one op is supported)");
    }
    Token ret = c_.tok();
    std::vector<OperandRef> values = parse_region_return();
    if (op.result.empty())
      c_.fail_at(ret, "the reducer has no op (expected one op on its two arguments)");
    if (values.size() != 1 || values[0].name != op.result) {
      throw Error(values[0].loc,
                  fmt::format("the reducer must return {}, the result of its op", op.result));
    }
    c_.expect(Tok::RBrace, "'}'");
    rec.reducer = op.name;
    rec.reducer_loc = op.name_loc;
  }

  /// `[0:2, 1:4:2]` after stablehlo.slice's operand: the attributes start_indices,
  /// limit_indices and strides (1 when not written).
  void parse_slice_ranges(OpRecord& rec) {
    auto list = [&] {
      ParsedAttr a;
      a.kind = ParsedAttr::Kind::List;
      a.loc = c_.loc();
      return a;
    };
    ParsedAttr starts = list(), limits = list(), strides = list();
    c_.expect(Tok::LSquare, "'['");
    if (!c_.is(Tok::RSquare)) {
      do {
        ParsedAttr* parts[] = {&starts, &limits, &strides};
        for (int i = 0; i < 3; ++i) {
          if (i > 0 && !c_.accept(Tok::Colon)) {
            if (i == 1) c_.expected("':'");
            ParsedAttr one;
            one.kind = ParsedAttr::Kind::Int;
            one.loc = c_.loc();
            one.i = 1;
            one.f = 1;
            one.spelling = "1";
            strides.elems.push_back(std::move(one));
            break;
          }
          if (!c_.is(Tok::Integer)) c_.expected("an integer");
          parts[i]->elems.push_back(parse_attr(c_, TypedValue::Forbidden));
        }
      } while (c_.accept(Tok::Comma));
    }
    c_.expect(Tok::RSquare, "']'");
    std::vector<NamedAttr> attrs;
    attrs.emplace_back("start_indices", std::move(starts));
    attrs.emplace_back("limit_indices", std::move(limits));
    attrs.emplace_back("strides", std::move(strides));
    add_attrs(rec, std::move(attrs));
  }

  void parse_custom_item(OpRecord& rec) {
    if (c_.is(Tok::PercentId)) {
      rec.operands.push_back(take_operand());
      return;
    }
    if (c_.is(Tok::Integer) || c_.is(Tok::Float)) {
      SourceLoc loc = c_.loc();
      ParsedAttr n = parse_attr(c_, TypedValue::Forbidden);
      rec.operands.push_back(OperandRef{"", n.f, loc});
      return;
    }
    if (c_.is(Tok::BareId) && c_.peek().kind == Tok::Equal) {
      std::string key(c_.take().text);
      c_.take();
      std::vector<NamedAttr> one;
      one.emplace_back(std::move(key), parse_attr(c_, TypedValue::Forbidden));
      add_attrs(rec, std::move(one));
      return;
    }
    rec.positional.push_back(parse_attr(c_, TypedValue::Forbidden));
  }

  Cursor c_;
  SourceFile out_;
  bool implicit_module_ = false;
};

} // namespace
} // namespace text

SourceFile parse_text(std::string_view text, std::string filename) {
  return text::Parser(text, std::move(filename)).run();
}

SourceFile parse_file(const std::string& path) {
  if (path == "-") {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    return parse_text(text, "<stdin>");
  }
  return parse_text(read_user_file(path, "text file"), path);
}

} // namespace tilesat
