// allocator.cpp: first-fit allocation over lifetimes (in a few orders), and the overlap check.
#include "tilesat/lowering/allocator.h"

#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <random>

namespace tilesat::lowering {

namespace {

// First fit of the requests in `order`: each at the lowest aligned address clear of the placed
// buffers it conflicts with.
std::vector<uint64_t> first_fit(const std::vector<BufferRequest>& requests,
                                const std::vector<size_t>& order, uint64_t capacity,
                                uint64_t alignment, const std::string& memory_name) {
  std::vector<uint64_t> at(requests.size(), 0);
  std::vector<size_t> placed;
  for (size_t i : order) {
    const BufferRequest& r = requests[i];
    // Conflicting placed buffers by address; slide past each one that overlaps.
    std::vector<size_t> conflicts;
    for (size_t j : placed)
      if (r.conflicts(requests[j]) && requests[j].bytes > 0) conflicts.push_back(j);
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return at[a] < at[b]; });
    uint64_t addr = 0;
    for (size_t j : conflicts) {
      if (addr + r.bytes <= at[j]) break;
      uint64_t end = at[j] + requests[j].bytes;
      if (end > addr) addr = (end + alignment - 1) / alignment * alignment;
    }
    if (r.bytes > capacity || addr > capacity - r.bytes) {
      uint64_t live = r.bytes;
      for (size_t j : conflicts) live += requests[j].bytes;
      throw AllocationError(fmt::format(
          "{}: {} needs {} bytes but only {} of {} are free while it is live "
          "({} bytes of live buffers in all)",
          memory_name, r.name, r.bytes, capacity > addr ? capacity - addr : 0, capacity, live));
    }
    at[i] = addr;
    placed.push_back(i);
  }
  return at;
}

} // namespace

std::vector<uint64_t> allocate_buffers(const std::vector<BufferRequest>& requests,
                                       uint64_t capacity, uint64_t alignment,
                                       const std::string& memory_name) {
  // Largest first packs best in general; when it leaves no hole big enough (buffers sharded
  // over different core ranges fragment L1), the lifetimes in order of birth, then the longest
  // lived first, then random orders (a fixed seed: the same program every time) are tried
  // before giving up with the first order's error.
  std::vector<size_t> by_size(requests.size());
  std::iota(by_size.begin(), by_size.end(), 0);
  std::vector<size_t> by_birth = by_size, by_span = by_size;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });
  std::stable_sort(by_birth.begin(), by_birth.end(), [&](size_t a, size_t b) {
    return requests[a].first != requests[b].first ? requests[a].first < requests[b].first
                                                  : requests[a].bytes > requests[b].bytes;
  });
  auto span = [&](size_t i) { return requests[i].last - requests[i].first; };
  std::stable_sort(by_span.begin(), by_span.end(), [&](size_t a, size_t b) {
    return span(a) != span(b) ? span(a) > span(b) : requests[a].bytes > requests[b].bytes;
  });
  try {
    return first_fit(requests, by_size, capacity, alignment, memory_name);
  } catch (const AllocationError&) {
    for (const std::vector<size_t>* order : {&by_birth, &by_span}) {
      try {
        return first_fit(requests, *order, capacity, alignment, memory_name);
      } catch (const AllocationError&) {
      }
    }
    // Packing lifetimes into the fewest bytes is NP-hard; with L1 nearly full (EfficientNet-B0
    // at batch 16 keeps 94% of it live) an order that fits is often a few shuffles away.
    constexpr int kRandomOrders = 100;
    std::mt19937 rng(1);
    std::vector<size_t> shuffled = by_size;
    for (int attempt = 0; attempt < kRandomOrders; ++attempt) {
      std::shuffle(shuffled.begin(), shuffled.end(), rng);
      try {
        return first_fit(requests, shuffled, capacity, alignment, memory_name);
      } catch (const AllocationError&) {
      }
    }
    throw;
  }
}

void check_no_overlap(const std::vector<BufferRequest>& requests,
                      const std::vector<uint64_t>& addresses) {
  for (size_t i = 0; i < requests.size(); ++i) {
    for (size_t j = i + 1; j < requests.size(); ++j) {
      const BufferRequest &a = requests[i], &b = requests[j];
      if (a.bytes == 0 || b.bytes == 0 || !a.conflicts(b)) continue;
      if (addresses[i] < addresses[j] + b.bytes && addresses[j] < addresses[i] + a.bytes) {
        throw InternalError(fmt::format("allocation: {} [{}, {}) overlaps {} [{}, {}) while both "
                                        "are live",
                                        a.name, addresses[i], addresses[i] + a.bytes, b.name,
                                        addresses[j], addresses[j] + b.bytes));
      }
    }
  }
}

} // namespace tilesat::lowering
