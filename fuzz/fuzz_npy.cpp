// fuzz_npy.cpp: arbitrary bytes through parse_npy; a tilesat::Error is a correct answer, and
// a tensor that parses must serialize and parse back to the same values.
#include "tilesat/graph/diagnostic.h"
#include "tilesat/graph/npy.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tilesat::Tensor t;
  try {
    t = tilesat::parse_npy(bytes, "fuzz.npy");
  } catch (const tilesat::Error&) {
    return 0;
  }
  tilesat::Tensor back = tilesat::parse_npy(tilesat::to_npy_bytes(t), "again.npy");
  if (!(back.type() == t.type()) || back.numel() != t.numel()) std::abort();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (!(back[i] == t[i]) && !(std::isnan(back[i]) && std::isnan(t[i]))) std::abort();
  }
  return 0;
}
