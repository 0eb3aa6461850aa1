// ceil_div: the integer quotient rounded up (tiles of a dimension, blocks of tiles per core).
#pragma once

#include <cstdint>

namespace tilesat::cost {

inline int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

} // namespace tilesat::cost
