// print.cpp: `tilesat print INPUT` parses and verifies a file and prints canonical TTIR.
#include "cli.h"
#include "tilesat/graph/parser.h"
#include "tilesat/graph/printer.h"

namespace tilesat::cli {

int run_print(const Options& o) {
  write_text(o.output, print_text(load_input(o.input)));
  return 0;
}

} // namespace tilesat::cli
