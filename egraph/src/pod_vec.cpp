// Blocks for PodVec: small ones from malloc, big ones as reserved, huge-page-aligned mappings,
// and a small cache of freed big blocks.
#include "tilesat/egraph/pod_vec.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tilesat::egraph::detail {

#if defined(__linux__)
namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
/// A big block reserves at least this much address space (pages are not resident until
/// written), so most tables never move once they are big.
constexpr std::size_t kMinReserve = std::size_t{64} << 20;

std::size_t round_up(std::size_t n, std::size_t to) {
  return (n + to - 1) / to * to;
}

/// Maps `bytes` (a multiple of 2 MiB) of address space at a 2 MiB boundary, asking for
/// transparent huge pages to back all of it; nullptr on failure.
void* map_aligned(std::size_t bytes) {
  void* raw = mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  auto start = reinterpret_cast<std::uintptr_t>(raw);
  std::uintptr_t aligned = round_up(start, kHugePage);
  if (aligned != start) munmap(raw, aligned - start);
  std::size_t tail = start + bytes + kHugePage - (aligned + bytes);
  if (tail != 0) munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  void* p = reinterpret_cast<void*>(aligned);
#if defined(MADV_HUGEPAGE)
  // The whole mapping, never a part: a part would split it into several kernel areas.
  madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

/// The reservation of a big block whose usable size is `bytes`.
std::size_t reservation(std::size_t bytes) {
  return round_up(bytes, kHugePage);
}

/// Freed big blocks kept for the next big block: their pages are resident (faulted in and
/// zeroed by the kernel once), so a table that grows or a match buffer that fills after
/// another was freed takes no fresh pages. The e-graph frees big blocks in a steady rhythm
/// (each iteration's match buffers, the hash-cons's old tables when it doubles) while new ones
/// are needed; fresh pages are what a saturation run's system time is made of.
class BlockCache {
public:
  /// A cached block with at least `reserve` bytes of reservation, or nullptr.
  void* take(std::size_t reserve, std::size_t& got) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::size_t i = count_; i-- > 0;) { // most recently freed first: warmest pages
      if (blocks_[i].reserve < reserve) continue;
      void* p = blocks_[i].p;
      got = blocks_[i].reserve;
      held_ -= blocks_[i].resident;
      blocks_[i] = blocks_[--count_];
      return p;
    }
    return nullptr;
  }
  /// Keeps a freed block (reservation `reserve`, about `resident` bytes in memory); false when
  /// the cache is full, and then the caller unmaps it.
  bool put(void* p, std::size_t reserve, std::size_t resident) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (count_ == kMaxBlocks || held_ + resident > kMaxHeld) return false;
    blocks_[count_++] = Block{p, reserve, resident};
    held_ += resident;
    return true;
  }

private:
  static constexpr std::size_t kMaxBlocks = 8;
  static constexpr std::size_t kMaxHeld = std::size_t{64} << 20; // resident bytes held at most
  struct Block {
    void* p;
    std::size_t reserve;
    std::size_t resident;
  };
  std::mutex mutex_;
  Block blocks_[kMaxBlocks]{};
  std::size_t count_ = 0;
  std::size_t held_ = 0;
};

BlockCache& block_cache() {
  static BlockCache* cache = new BlockCache(); // never destroyed: blocks may be freed at exit
  return *cache;
}

} // namespace

// A big block is a private mapping reserved well beyond its need and aligned to 2 MiB with
// transparent huge pages: growth within the reservation costs nothing (no copy, no system
// call), pages fault in 2 MiB at a time (far fewer faults), and growth past it moves the
// page mappings to a larger reservation (mremap) instead of copying the entries.
void* resize_block(void* p, std::size_t old_bytes, std::size_t& new_bytes, bool& zero) {
  zero = false;
  if (new_bytes >= kBigBlock) {
    std::size_t reserve = round_up(std::max(new_bytes * 4, kMinReserve), kHugePage);
    void* q = nullptr;
    if (p == nullptr || old_bytes < kBigBlock) {
      std::size_t got = 0;
      q = block_cache().take(reserve, got);
      if (q != nullptr) reserve = got;
    }
    if (q == nullptr) {
      q = map_aligned(reserve);
      if (q == nullptr) throw std::bad_alloc();
      zero = p == nullptr;
    }
    if (p != nullptr && old_bytes >= kBigBlock) {
      // Move the old pages into the new reservation (which mremap replaces).
      void* moved = mremap(p, reservation(old_bytes), reserve, MREMAP_MAYMOVE | MREMAP_FIXED, q);
      if (moved == MAP_FAILED) { // the reservation may be gone: copy into a fresh one
        munmap(q, reserve);
        q = map_aligned(reserve);
        if (q == nullptr) throw std::bad_alloc();
        std::memcpy(q, p, old_bytes);
        munmap(p, reservation(old_bytes));
      }
    } else if (p != nullptr) {
      std::memcpy(q, p, old_bytes);
      std::free(p);
    }
    new_bytes = reserve;
    return q;
  }
  void* q = std::realloc(p, new_bytes);
  if (q == nullptr) throw std::bad_alloc();
  return q;
}

void free_block(void* p, std::size_t bytes, std::size_t used_bytes) {
  if (bytes >= kBigBlock) {
    if (!block_cache().put(p, reservation(bytes), resident_bytes(used_bytes, bytes)))
      munmap(p, reservation(bytes));
    return;
  }
  std::free(p);
}

std::size_t resident_bytes(std::size_t used_bytes, std::size_t block_bytes) {
  if (block_bytes < kBigBlock) return block_bytes;
  return std::min(round_up(used_bytes, kHugePage), reservation(block_bytes));
}

#else

void* resize_block(void* p, std::size_t, std::size_t& new_bytes, bool& zero) {
  zero = false;
  void* q = std::realloc(p, new_bytes);
  if (q == nullptr) throw std::bad_alloc();
  return q;
}

void free_block(void* p, std::size_t, std::size_t) {
  std::free(p);
}

std::size_t resident_bytes(std::size_t, std::size_t block_bytes) {
  return block_bytes;
}

#endif

} // namespace tilesat::egraph::detail
