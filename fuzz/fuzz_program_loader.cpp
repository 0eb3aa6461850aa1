// fuzz_program_loader: any bytes given to the program loader either load (and then passed
// every check the runtime relies on) or are rejected with tilesat::Error; never a crash, a
// sanitizer report or another exception.
#include "tilesat/graph/diagnostic.h"
#include "tilesat/runtime/program.h"

#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    tilesat::runtime::Program p =
        tilesat::runtime::Program::parse(std::vector<uint8_t>(data, data + size), "fuzz.tsprog");
    (void)p.fb().ops()->size();
  } catch (const tilesat::Error&) {
  }
  return 0;
}
