// module.cpp: choosing a function of a parsed file by name.
#include "tilesat/graph/module.h"

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

} // namespace tilesat
