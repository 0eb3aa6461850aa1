// The process-wide symbol table behind Symbol::intern.
#include "tilesat/egraph/symbol.h"

#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>

namespace tilesat::egraph {
namespace {

struct SymbolTable {
  std::mutex mutex;
  std::deque<std::string> names; // deque: interned strings never move
  std::unordered_map<std::string_view, std::uint32_t> ids;

  SymbolTable() {
    names.emplace_back();
    ids.emplace(names.back(), 0);
    names.emplace_back("const"); // Symbol::constant(), id 1
    ids.emplace(names.back(), 1);
  }
};

SymbolTable& table() {
  static SymbolTable t;
  return t;
}

} // namespace

Symbol Symbol::intern(std::string_view name) {
  SymbolTable& t = table();
  std::lock_guard lock(t.mutex);
  if (auto it = t.ids.find(name); it != t.ids.end()) return Symbol(it->second);
  auto id = static_cast<std::uint32_t>(t.names.size());
  t.names.emplace_back(name);
  t.ids.emplace(t.names.back(), id);
  return Symbol(id);
}

std::string_view Symbol::str() const {
  SymbolTable& t = table();
  std::lock_guard lock(t.mutex);
  return t.names[id_];
}

} // namespace tilesat::egraph
