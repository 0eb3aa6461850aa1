// IdHashTable: an open-addressing set of 32-bit ids whose keys live elsewhere (the e-node
// arena), used as the e-graph's hash-cons.
//
// Each slot holds the id and 32 bits of its key's hash, so probing compares hashes first and
// touches the arena only on a likely hit; growth rehashes from the stored hashes without
// touching the arena at all. Linear probing with backward-shift deletion (no tombstones), as
// the rebuild removes and re-inserts every e-node whose children changed.
//
//   detail::IdHashTable t;
//   t.insert(h, id);
//   Id found = t.find(h, [&](Id cand) { return same_node(cand, key); });   // kNoId if absent
#pragma once

#include "tilesat/egraph/id.h"
#include "tilesat/egraph/pod_vec.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace tilesat::egraph::detail {

class IdHashTable {
public:
  IdHashTable() { allocate(slots_, kMinCapacity); }

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return slots_.size(); }
  std::size_t memory_bytes() const { return slots_.memory_bytes(); }

  /// The id whose key has hash `h` and satisfies `eq(id)`, or kNoId.
  template <class Eq>
  Id find(std::uint32_t h, Eq&& eq) const {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.id == kNoId) return kNoId;
      if (s.hash == h && eq(s.id)) return s.id;
    }
  }

  /// As find(); on a miss `slot` is where an entry with hash `h` goes (see insert_at).
  template <class Eq>
  Id find_slot(std::uint32_t h, Eq&& eq, std::size_t& slot) const {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.id == kNoId) {
        slot = i;
        return kNoId;
      }
      if (s.hash == h && eq(s.id)) return s.id;
    }
  }
  /// Inserts `id` at the slot find_slot() gave for `h`, with no change to the table since.
  void insert_at(std::size_t slot, std::uint32_t h, Id id) {
    if (size_ >= grow_at_) {
      insert(h, id);
      return;
    }
    slots_[slot] = Slot{h, id};
    ++size_;
  }

  /// Inserts `id` (whose key must not be present already).
  void insert(std::uint32_t h, Id id) {
    if (size_ >= grow_at_) grow();
    std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    while (slots_[i].id != kNoId) i = (i + 1) & mask;
    slots_[i] = Slot{h, id};
    ++size_;
  }

  /// Removes `id`, stored under hash `h`; false if it is not present.
  bool erase(std::uint32_t h, Id id) {
    std::size_t mask = slots_.size() - 1;
    std::size_t i = h & mask;
    while (true) {
      if (slots_[i].id == kNoId) return false;
      if (slots_[i].id == id) break;
      i = (i + 1) & mask;
    }
    // Backward shift: pull later entries of the probe run into the hole.
    std::size_t hole = i;
    for (std::size_t j = (hole + 1) & mask; slots_[j].id != kNoId; j = (j + 1) & mask) {
      std::size_t home = slots_[j].hash & mask;
      // Move j into the hole unless its home lies cyclically in (hole, j].
      bool home_after_hole = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (home_after_hole) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = Slot{0, kNoId};
    --size_;
    return true;
  }

  void reserve(std::size_t n) {
    while (n > grow_at_) grow();
  }

  /// Calls `f(hash, id)` for every entry.
  template <class F>
  void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (s.id != kNoId) f(s.hash, s.id);
  }

private:
  struct Slot {
    std::uint32_t hash;
    Id id;
  };
  static constexpr std::size_t kMinCapacity = 64;

  /// `n` empty slots (all bits set: id kNoId); the table grows before it is 70% full.
  void allocate(PodVec<Slot>& slots, std::size_t n) {
    slots.reserve(n); // big tables are mapped with huge pages (random probes, few TLB misses)
    slots.resize_uninitialized(n);
    std::memset(static_cast<void*>(slots.data()), 0xff, n * sizeof(Slot));
    grow_at_ = n * 7 / 10;
  }

  void grow() {
    PodVec<Slot> old = std::move(slots_);
    allocate(slots_, old.size() * 2);
    std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.id == kNoId) continue;
      std::size_t i = s.hash & mask;
      while (slots_[i].id != kNoId) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  PodVec<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t grow_at_ = 0; // size at which the next insert grows the table
};

} // namespace tilesat::egraph::detail
