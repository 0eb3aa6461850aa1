// allocator.cpp: first-fit allocation over lifetimes (in a few orders), and the overlap check.
#include "tilesat/lowering/allocator.h"

#include "tilesat/graph/diagnostic.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <random>

namespace tilesat::lowering {

namespace {

// The requests by lifetime: a segment tree over execution positions in which each lifetime is
// kept at the O(log n) nodes that tile it. The lifetimes meeting [first, last] are exactly those
// kept at a node whose range meets it, so a query visits about 2 (last - first) + log n nodes
// and the buffers found there, not every buffer: first fit and the overlap check stay near
// linear in the number of buffers for graphs of a million ops.
class LifetimeIndex {
public:
  explicit LifetimeIndex(const std::vector<BufferRequest>& requests) : requests_(requests) {
    uint32_t positions = 1;
    for (const BufferRequest& r : requests) positions = std::max(positions, r.last + 1);
    while (leaves_ < positions) leaves_ *= 2;
    nodes_.resize(2 * size_t{leaves_});
    seen_.assign(requests.size(), 0);
  }

  void insert(size_t id) {
    const BufferRequest& r = requests_[id];
    for (size_t lo = r.first + size_t{leaves_}, hi = r.last + 1 + size_t{leaves_}; lo < hi;
         lo /= 2, hi /= 2) {
      if (lo & 1) nodes_[lo++].push_back(static_cast<uint32_t>(id));
      if (hi & 1) nodes_[--hi].push_back(static_cast<uint32_t>(id));
    }
  }

  /// Calls f(j) once for each inserted request j whose lifetime meets request i's, whose cores
  /// meet i's and which has bytes (j may be i itself).
  template <class F>
  void for_each_conflict(size_t i, F&& f) {
    const BufferRequest& r = requests_[i];
    ++stamp_;
    size_t lo = r.first, hi = r.last;
    for (size_t level = leaves_; level > 0; level /= 2, lo /= 2, hi /= 2) {
      for (size_t k = lo; k <= hi; ++k) {
        for (uint32_t j : nodes_[level + k]) {
          if (seen_[j] == stamp_) continue;
          seen_[j] = stamp_;
          if (requests_[j].bytes > 0 && r.conflicts(requests_[j])) f(j);
        }
      }
    }
  }

private:
  const std::vector<BufferRequest>& requests_;
  uint32_t leaves_ = 1;
  std::vector<std::vector<uint32_t>> nodes_;
  std::vector<uint64_t> seen_;
  uint64_t stamp_ = 0;
};

// First fit of the requests in `order`: each at the lowest aligned address clear of the placed
// buffers it conflicts with.
std::vector<uint64_t> first_fit(const std::vector<BufferRequest>& requests,
                                const std::vector<size_t>& order, uint64_t capacity,
                                uint64_t alignment, const std::string& memory_name) {
  std::vector<uint64_t> at(requests.size(), 0);
  LifetimeIndex placed(requests);
  std::vector<size_t> conflicts;
  for (size_t i : order) {
    const BufferRequest& r = requests[i];
    // Conflicting placed buffers by address; slide past each one that overlaps.
    conflicts.clear();
    placed.for_each_conflict(i, [&](size_t j) { conflicts.push_back(j); });
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
    placed.insert(i);
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
  LifetimeIndex index(requests);
  for (size_t i = 0; i < requests.size(); ++i) index.insert(i);
  for (size_t i = 0; i < requests.size(); ++i) {
    const BufferRequest& a = requests[i];
    if (a.bytes == 0) continue;
    index.for_each_conflict(i, [&](size_t j) {
      const BufferRequest& b = requests[j];
      if (j <= i) return;
      if (addresses[i] < addresses[j] + b.bytes && addresses[j] < addresses[i] + a.bytes) {
        throw InternalError(fmt::format("allocation: {} [{}, {}) overlaps {} [{}, {}) while both "
                                        "are live",
                                        a.name, addresses[i], addresses[i] + a.bytes, b.name,
                                        addresses[j], addresses[j] + b.bytes));
      }
    });
  }
}

} // namespace tilesat::lowering
