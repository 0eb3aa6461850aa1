// A parsed text file: MLIR-style modules holding functions, each function one Graph.
//
// tt-mlir files often hold several `module { func.func ... }` blocks, attribute aliases such
// as `#any_device = #tt.operand_constraint<any_device>`, and module attributes such as
// `tt.system_desc`. tilesat keeps them as text so that printing a file gives them back; the one
// it reads is tt-mlir's `ttcore.meshes`, the mesh a multi-chip module's functions run on.
//
//   SourceFile f = parse_file("model.mlir");
//   const Graph& g = select_function(f, "");   // the only function, or @main
//   f.modules[0].attributes;                     // {{"tt.system_desc", "#tt.system_desc<...>"}}
//   declared_mesh(f);                            // {1, 8} for ttcore.meshes<[<"mesh" = 1x8>]>
#pragma once

#include "tilesat/graph/graph.h"
#include "tilesat/graph/spmd.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tilesat {

struct Module {
  std::string name; // without '@'; empty for `module {`
  /// Module attributes as (name, value text), in source order; kept, not interpreted.
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<Graph> functions;
  /// Written in tt-mlir's legacy destination-passing style (every op with operands takes a
  /// trailing `ttir.empty()` destination); printing writes the destinations back.
  bool destination_passing = false;
  /// Written in tt-mlir's TTNN dialect (`ttnn.*` ops): its functions' arguments are device
  /// tensors (tile layout in DRAM, ttnn's default), not host data. Planning honours it.
  bool device_tensors = false;
};

struct SourceFile {
  /// Alias definitions as ("#any_device", "#tt.operand_constraint<any_device>"), in order.
  std::vector<std::pair<std::string, std::string>> aliases;
  std::vector<Module> modules;
};

/// The function named `name` in any module; with an empty name, the only function of the file,
/// else the one named "main". Throws tilesat::Error listing the functions when none fits.
const Graph& select_function(const SourceFile& file, std::string_view name);

/// The mesh a module declares with tt-mlir's module attribute `ttcore.meshes` (or the older
/// `tt.meshes`); nullopt without one. Throws tilesat::Error naming the module and the
/// attribute when the value is malformed or declares more than one mesh.
///
///   // module @m attributes {ttcore.meshes = #ttcore.meshes<[<"mesh" = 2x4>]>} { ... }
///   declared_mesh(file.modules[0]);   // {2, 4}
std::optional<MeshShape> declared_mesh(const Module& module);

/// The mesh the file's modules declare (nullopt when none does); modules declaring different
/// meshes are an error.
std::optional<MeshShape> declared_mesh(const SourceFile& file);

} // namespace tilesat
