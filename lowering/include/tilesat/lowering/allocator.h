// Buffer allocation: addresses for buffers with known lifetimes so that no two buffers that
// are live at the same time share a byte (on a core they both use, for L1).
//
// Lifetimes are positions in the execution order, inclusive. Allocation is first fit in order
// of size (largest first, so large long-lived buffers settle low), each buffer taking the
// lowest aligned address clear of every conflicting buffer already placed; when that order
// leaves no hole for some buffer, the order of birth, the longest-lived first and then up to
// 100 random orders (from a fixed seed) are tried. The buffers a buffer conflicts with are
// found through an index over lifetimes, not by comparing it with every other, so a program of
// a million ops allocates in about linear time.
//
//   std::vector<BufferRequest> reqs = {{"%0", 4096, 0, 2, {0, 0, 1, 1}},
//                                      {"%1", 4096, 1, 3, {0, 0, 1, 1}}};
//   std::vector<uint64_t> at = allocate_buffers(reqs, 1 << 20, 64, "L1");   // {0, 4096}
//   check_no_overlap(reqs, at);
#pragma once

#include "tilesat/graph/diagnostic.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tilesat::lowering {

/// The live buffers do not fit: no order tried found an address for every one. A plan that
/// fits L1 by its per-core sums can still fail here when L1 is nearly full (buffers on
/// different core ranges fragment it); the tilesat command plans again with L1 held back.
class AllocationError : public Error {
public:
  using Error::Error;
};

/// Cores [row_begin, row_end) x [col_begin, col_end); DRAM buffers use {0, 0, 1, 1}.
struct CoreRect {
  uint32_t row_begin = 0, col_begin = 0, row_end = 1, col_end = 1;
  bool intersects(const CoreRect& o) const {
    return row_begin < o.row_end && o.row_begin < row_end && col_begin < o.col_end &&
           o.col_begin < col_end;
  }
};

struct BufferRequest {
  std::string name; // the value it holds, for messages
  uint64_t bytes = 0;
  uint32_t first = 0, last = 0;
  CoreRect cores;
  bool conflicts(const BufferRequest& o) const {
    return first <= o.last && o.first <= last && cores.intersects(o.cores);
  }
};

/// An address per request. Throws AllocationError when the live buffers need more than
/// `capacity` bytes, naming the buffer that does not fit and the bytes live at that point.
std::vector<uint64_t> allocate_buffers(const std::vector<BufferRequest>& requests,
                                       uint64_t capacity, uint64_t alignment,
                                       const std::string& memory_name);

/// Throws tilesat::InternalError naming both buffers when two conflicting buffers overlap.
void check_no_overlap(const std::vector<BufferRequest>& requests,
                      const std::vector<uint64_t>& addresses);

} // namespace tilesat::lowering
