// IdHashTable: an open-addressing set of 32-bit ids whose keys live elsewhere (the e-node
// arena), used as the e-graph's hash-cons.
//
// Probing reads a byte array of tags (7 bits of each entry's hash; 0 marks an empty slot),
// which is an eighth of the entries' size and so mostly stays in cache in big tables: a probe
// for a new key reads no entry at all, and a probe for an existing one reads the entries (id
// and full 32-bit hash) only where the tag matches, and the key (the arena) only where the
// full hash does. Growth rehashes from the stored hashes without touching the arena, into
// fresh zero tags (a new big table's pages are zero: nothing to clear). Linear probing with
// backward-shift deletion (no tombstones), as the rebuild removes and re-inserts every e-node
// whose children changed.
//
//   detail::IdHashTable t;
//   t.insert(h, id);
//   Id found = t.find(h, [&](Id cand) { return same_node(cand, key); });   // kNoId if absent
#pragma once

#include "tilesat/egraph/id.h"
#include "tilesat/egraph/pod_vec.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tilesat::egraph::detail {

class IdHashTable {
public:
  IdHashTable() { allocate(kMinCapacity); }

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return tags_.size(); }
  std::size_t memory_bytes() const { return tags_.memory_bytes() + slots_.memory_bytes(); }

  /// The id whose key has hash `h` and satisfies `eq(id)`, or kNoId.
  template <class Eq>
  [[gnu::always_inline]] Id find(std::uint32_t h, Eq&& eq) const {
    Id found = kNoId;
    std::size_t empty;
    probe(
        h,
        [&](std::size_t i) {
          const Slot s = entry(i);
          if (s.hash() != h || !eq(s.id())) return false;
          found = s.id();
          return true;
        },
        empty);
    return found;
  }

  /// As find(); on a miss `slot` is where an entry with hash `h` goes (see insert_at).
  template <class Eq>
  [[gnu::always_inline]] Id find_slot(std::uint32_t h, Eq&& eq, std::size_t& slot) {
    // Most keys that are present sit in their home slot, and most new keys find it empty:
    // both cases are handled here, inline; the rest by the general probe (out of line, so
    // its registers are not the caller's).
    const std::size_t home = h & (tags_.size() - 1);
    if (const std::uint8_t t = tags_[home]; t == tag_of(h)) {
      if (pending_) flush();
      const Slot s = slots_[home];
      if (s.hash() == h && eq(s.id())) return s.id();
    } else if (t == 0) {
      slot = home;
      return kNoId;
    }
    return find_slot_probing(h, eq, slot);
  }

private:
  template <class Eq>
  [[gnu::noinline]] Id find_slot_probing(std::uint32_t h, Eq& eq, std::size_t& slot) {
    Id found = kNoId;
    probe(
        h,
        [&](std::size_t i) {
          if (pending_) flush();
          const Slot s = slots_[i];
          if (s.hash() != h || !eq(s.id())) return false;
          found = s.id();
          return true;
        },
        slot);
    return found;
  }

public:
  /// Hints that a probe for hash `h` will come soon: its home tag and entry.
  void prefetch(std::uint32_t h) const {
    const std::size_t home = h & (tags_.size() - 1);
    __builtin_prefetch(tags_.data() + home);
    __builtin_prefetch(slots_.data() + home);
  }

  /// Inserts `id` at the slot find_slot() gave for `h`, with no change to the table since.
  void insert_at(std::size_t slot, std::uint32_t h, Id id) {
    if (size_ >= grow_at_) [[unlikely]] {
      insert(h, id);
      return;
    }
    put(slot, h, id);
  }

  /// Inserts `id` (whose key must not be present already).
  void insert(std::uint32_t h, Id id) {
    if (size_ >= grow_at_) grow();
    put(free_slot(h), h, id);
  }

  /// Removes `id`, stored under hash `h`; false if it is not present.
  bool erase(std::uint32_t h, Id id) {
    if (pending_) flush();
    const std::uint8_t tag = tag_of(h);
    std::uint8_t* tags = tags_.data();
    const std::size_t mask = tags_.size() - 1;
    std::size_t i = h & mask;
    while (true) {
      if (tags[i] == 0) return false;
      if (tags[i] == tag && slots_[i].id() == id) break;
      i = (i + 1) & mask;
    }
    // Backward shift: pull later entries of the probe run into the hole.
    std::size_t hole = i;
    for (std::size_t j = (hole + 1) & mask; tags[j] != 0; j = (j + 1) & mask) {
      std::size_t home = slots_[j].hash() & mask;
      // Move j into the hole unless its home lies cyclically in (hole, j].
      bool home_after_hole = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (home_after_hole) continue;
      tags[hole] = tags[j];
      slots_[hole] = slots_[j];
      hole = j;
    }
    tags[hole] = 0;
    --size_;
    return true;
  }

  void reserve(std::size_t n) {
    while (n > grow_at_) grow();
  }

  /// Calls `f(hash, id)` for every entry.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < tags_.size(); ++i)
      if (tags_[i] != 0) {
        const Slot s = entry(i);
        f(s.hash(), s.id());
      }
  }

private:
  /// An entry: its hash (low half) and id, in one word (one store).
  struct Slot {
    Slot() = default;
    Slot(std::uint32_t h, Id id) : bits(std::uint64_t{id} << 32 | h) {}
    std::uint32_t hash() const { return static_cast<std::uint32_t>(bits); }
    Id id() const { return static_cast<Id>(bits >> 32); }
    std::uint64_t bits = 0;
  };
  /// An entry whose write into its slot is deferred (see put()).
  struct Pending {
    std::size_t slot = kNoSlot;
    Slot entry{};
  };
  static constexpr std::size_t kMinCapacity = 64;
  static constexpr std::size_t kNoSlot = ~std::size_t{0};
  /// Entry writes deferred at a time: enough insertions to cover a memory access.
  static constexpr std::size_t kPending = 8;
  /// Slot writes are deferred only in tables of more slots than this (2 MiB of entries):
  /// smaller ones mostly stay in cache, where deferring costs more than it saves.
  static constexpr std::size_t kDeferFrom = std::size_t{1} << 18;

  /// The tag of hash `h`: its top 7 bits (the low bits choose the home slot), never 0.
  static std::uint8_t tag_of(std::uint32_t h) {
    return static_cast<std::uint8_t>(0x80 | (h >> 25));
  }

  /// The entry of occupied slot `i`, which may still be pending.
  Slot entry(std::size_t i) const {
    if (pending_) [[unlikely]]
      for (const Pending& p : pending_slots_)
        if (p.slot == i) return p.entry;
    return slots_[i];
  }

  // Probing reads the tags eight at a time as one word: a byte's top bit is set exactly when
  // its slot is taken, so the empty slots and the slots whose tag matches are found without a
  // branch per slot (the last seven slots, where a run wraps around, go one at a time).
  static constexpr std::uint64_t kTopBits = 0x8080808080808080ull;
  static constexpr std::uint64_t kLowBits = 0x7f7f7f7f7f7f7f7full;

  /// Walks `h`'s probe run up to its first empty slot: returns the first slot with a matching
  /// tag for which `hit(slot)` holds, or kNoSlot with `empty` set to that empty slot.
  template <class Hit>
  [[gnu::always_inline]] std::size_t probe(std::uint32_t h, Hit&& hit, std::size_t& empty) const {
    const std::uint8_t tag = tag_of(h);
    const std::uint8_t* tags = tags_.data();
    const std::size_t mask = tags_.size() - 1;
    const std::uint64_t want = tag * 0x0101010101010101ull;
    std::size_t i = h & mask;
    // The home slot alone first: it holds most keys that are present.
    if (const std::uint8_t t = tags[i]; t == tag) {
      if (hit(i)) return i;
    } else if (t == 0) {
      empty = i;
      return kNoSlot;
    }
    i = (i + 1) & mask;
    while (true) {
      if (i + 8 <= mask + 1) [[likely]] {
        std::uint64_t x;
        std::memcpy(&x, tags + i, sizeof(x));
        std::uint64_t empties = ~x & kTopBits;
        std::uint64_t y = x ^ want; // zero bytes: matching tags
        std::uint64_t matches = ~(((y & kLowBits) + kLowBits) | y) & kTopBits;
        if (empties != 0) matches &= empties ^ (empties - 1); // the slots before the empty one
        for (; matches != 0; matches &= matches - 1) {
          std::size_t at = i + (static_cast<std::size_t>(std::countr_zero(matches)) >> 3);
          if (hit(at)) return at;
        }
        if (empties != 0) {
          empty = i + (static_cast<std::size_t>(std::countr_zero(empties)) >> 3);
          return kNoSlot;
        }
        i = (i + 8) & mask;
      } else {
        const std::uint8_t t = tags[i];
        if (t == 0) {
          empty = i;
          return kNoSlot;
        }
        if (t == tag && hit(i)) return i;
        i = (i + 1) & mask;
      }
    }
  }

  /// The first empty slot of `h`'s probe run.
  std::size_t free_slot(std::uint32_t h) const {
    std::size_t empty;
    probe(
        h, [](std::size_t) { return false; }, empty);
    return empty;
  }

  // In a big table (defer_) the slot of a new entry is a cache miss, and a store that misses holds
  // up every later store of the program: the entry is written kPending insertions later, after a
  // prefetch of its line, so the miss overlaps the work of those insertions. The tag is written at
  // once (probes see the slot taken); readers of a slot look in the pending list first (or flush
  // it).
  void put(std::size_t i, std::uint32_t h, Id id) {
    tags_[i] = tag_of(h);
    ++size_;
    if (!defer_) { // a small table stays in cache: write at once
      slots_[i] = Slot{h, id};
      return;
    }
    Pending& p = pending_slots_[next_pending_];
    if (p.slot != kNoSlot) slots_[p.slot] = p.entry;
    __builtin_prefetch(slots_.data() + i, 1);
    p.slot = i;
    p.entry = Slot{h, id};
    next_pending_ = (next_pending_ + 1) % kPending;
    pending_ = true;
  }
  /// Writes every pending entry into its slot.
  void flush() {
    for (Pending& p : pending_slots_)
      if (p.slot != kNoSlot) {
        slots_[p.slot] = p.entry;
        p.slot = kNoSlot;
      }
    pending_ = false;
  }

  /// `n` empty slots (zero tags; the entries are written only when used); the table grows
  /// before it is half full (short probe runs). Big tables are mapped with huge pages (random
  /// probes, few TLB misses).
  void allocate(std::size_t n) {
    tags_.assign_zero(n);
    slots_.reserve(n);
    slots_.resize_uninitialized(n);
    size_ = 0;
    grow_at_ = n / 2;
    defer_ = n > kDeferFrom;
  }

  void grow() {
    if (pending_) flush();
    PodVec<std::uint8_t> old_tags = std::move(tags_);
    PodVec<Slot> old_slots = std::move(slots_);
    const std::size_t n = size_;
    allocate(old_tags.size() * 2);
    size_ = n;
    // The old table is read in order, so the new one is written in two nearly sequential
    // runs (an entry's new home is its old one or that plus the old size): no deferring.
    for (std::size_t i = 0; i < old_tags.size(); ++i)
      if (old_tags[i] != 0) {
        const Slot& s = old_slots[i];
        const std::size_t to = free_slot(s.hash());
        tags_[to] = tag_of(s.hash());
        slots_[to] = s;
      }
  }

  PodVec<std::uint8_t> tags_; // per slot: 0 (empty) or tag_of(the entry's hash)
  PodVec<Slot> slots_;        // per slot: the entry, unwritten while the slot is empty
  std::size_t size_ = 0;
  std::size_t grow_at_ = 0; // size at which the next insert grows the table
  Pending pending_slots_[kPending];
  std::size_t next_pending_ = 0;
  bool pending_ = false; // some pending_slots_ entry is in use
  bool defer_ = false;   // slot writes are deferred (a big table)
};

} // namespace tilesat::egraph::detail
