// print.cpp: `tilesat print INPUT` parses and verifies a file and prints canonical TTIR; a
// device program (.tsprog) is loaded, verified and printed as the program dump.
#include "cli.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"
#include "tilesat/lowering/dump.h"
#include "tilesat/runtime/program.h"

namespace tilesat::cli {

int run_print(const Options& o) {
  if (o.input.ends_with(".tsprog")) {
    runtime::Program p = runtime::Program::load(o.input);
    write_text(o.output, lowering::dump_program(p.fb()));
    return 0;
  }
  write_text(o.output, print_text(load_input(o)));
  return 0;
}

} // namespace tilesat::cli
