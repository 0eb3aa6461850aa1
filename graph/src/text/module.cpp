// module.cpp: choosing a function of a parsed file by name; the mesh a module declares.
#include "tilesat/graph/module.h"

#include <cctype>
#include <charconv>
#include <fmt/format.h>

namespace tilesat {

const Graph& select_function(const SourceFile& file, std::string_view name) {
  std::vector<const Graph*> all;
  for (const Module& m : file.modules) {
    for (const Graph& g : m.functions) all.push_back(&g);
  }
  std::string_view want = name;
  if (want.empty()) {
    if (all.size() == 1) return *all[0];
    want = "main";
  }
  for (const Graph* g : all) {
    if (g->name() == want) return *g;
  }
  std::string names;
  for (const Graph* g : all) names += (names.empty() ? "@" : ", @") + g->name();
  if (all.empty()) throw Error("the file has no functions");
  if (name.empty()) {
    throw Error(fmt::format("the file has several functions ({}); choose one by name", names));
  }
  throw Error(fmt::format("no function @{} (the file has {})", name, names));
}

namespace {

/// Reads `#ttcore.meshes<[<"name" = RxC>, ...]>` one token at a time; whitespace between
/// tokens is free.
class MeshesReader {
public:
  explicit MeshesReader(std::string_view text) : s_(text) {}

  std::vector<MeshShape> read() {
    if (!accept("#ttcore.meshes") && !accept("#tt.meshes")) fail("#ttcore.meshes<...>");
    expect("<");
    expect("[");
    std::vector<MeshShape> out;
    if (!accept("]")) {
      do {
        expect("<");
        expect("\"");
        size_t close = s_.find('"', pos_);
        if (close == std::string_view::npos) fail("a closing '\"' after the mesh name");
        pos_ = close + 1;
        expect("=");
        MeshShape m{};
        m[0] = number();
        expect("x");
        m[1] = number();
        expect(">");
        out.push_back(m);
      } while (accept(","));
      expect("]");
    }
    expect(">");
    skip_space();
    if (pos_ != s_.size()) fail("the end of the attribute");
    return out;
  }

private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool accept(std::string_view token) {
    skip_space();
    if (s_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token) {
    if (!accept(token)) fail(fmt::format("'{}'", token));
  }
  int64_t number() {
    skip_space();
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s_.data() + pos_, s_.data() + s_.size(), v);
    if (ec != std::errc() || v < 1) fail("a chip count >= 1");
    pos_ = static_cast<size_t>(end - s_.data());
    return v;
  }
  [[noreturn]] void fail(std::string_view expected) const {
    throw Error(fmt::format("expected {} at offset {} of '{}'", expected, pos_, s_));
  }

  std::string_view s_;
  size_t pos_ = 0;
};

std::string module_label(const Module& m) {
  return m.name.empty() ? std::string("module") : fmt::format("module @{}", m.name);
}

} // namespace

std::optional<MeshShape> declared_mesh(const Module& module) {
  for (const auto& [key, value] : module.attributes) {
    if (key != "ttcore.meshes" && key != "tt.meshes") continue;
    std::vector<MeshShape> meshes;
    try {
      meshes = MeshesReader(value).read();
    } catch (const Error& e) {
      throw Error(
          fmt::format("{}: attribute {}: {}", module_label(module), key, e.diagnostic().message));
    }
    if (meshes.empty()) return std::nullopt;
    if (meshes.size() > 1)
      throw Error(fmt::format("{}: attribute {} declares {} meshes; tilesat plans for one",
                              module_label(module), key, meshes.size()));
    return meshes[0];
  }
  return std::nullopt;
}

std::optional<MeshShape> declared_mesh(const SourceFile& file) {
  std::optional<MeshShape> out;
  const Module* from = nullptr;
  for (const Module& m : file.modules) {
    std::optional<MeshShape> mine = declared_mesh(m);
    if (!mine) continue;
    if (out && *out != *mine)
      throw Error(fmt::format("{} declares mesh {} but {} declares {} (ttcore.meshes)",
                              module_label(*from), mesh_shape_str(*out), module_label(m),
                              mesh_shape_str(*mine)));
    out = mine;
    from = &m;
  }
  return out;
}

} // namespace tilesat
