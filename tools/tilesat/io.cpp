// io.cpp: writing a verb's text output to a file or standard output.
#include "cli.h"
#include "tilesat/graph/diagnostic.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <iostream>

namespace tilesat::cli {

void write_text(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
  out << text;
  if (!out) throw Error(fmt::format("cannot write '{}'", path));
}

} // namespace tilesat::cli
