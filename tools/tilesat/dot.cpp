// dot.cpp: `tilesat dot INPUT` prints one function as a Graphviz graph.
#include "tilesat/graph/dot.h"

#include "cli.h"
#include "tilesat/graph/parser.h"

namespace tilesat::cli {

int run_dot(const Options& o) {
  SourceFile file = load_input(o);
  write_text("-", to_dot(select_function(file, o.function)));
  return 0;
}

} // namespace tilesat::cli
