// IdVec: a 16-byte growable array of 32-bit ids, used for a class's nodes and parents.
//
// An e-graph holds two lists per e-class; with std::vector (24 bytes and a heap block each)
// and millions of classes that overhead dominates memory and malloc time. Most classes hold
// one to three nodes and parents, so up to three ids live inline in the 16 bytes (beside the
// size); longer lists use a heap block grown with realloc (ids are trivially copyable).
// Pointers into an inline list move with the IdVec.
//
//   tilesat::egraph::IdVec v;
//   v.push_back(3);
//   v.push_back(7);
//   for (auto id : v) use(id);   // 3, 7
#pragma once

#include "tilesat/egraph/pod_vec.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <utility>

namespace tilesat::egraph {

class IdVec {
public:
  IdVec() = default;
  /// The list [id].
  static IdVec of(std::uint32_t id) { return IdVec(1, id); }
  IdVec(const IdVec& other) : IdVec() { assign(other.data(), other.size()); }
  IdVec(IdVec&& other) noexcept : size_(other.size_) {
    std::memcpy(w_, other.w_, sizeof(w_));
    other.size_ = 0;
  }
  IdVec& operator=(const IdVec& other) {
    if (this != &other) assign(other.data(), other.size());
    return *this;
  }
  IdVec& operator=(IdVec&& other) noexcept {
    if (this == &other) return *this;
    release();
    std::memcpy(w_, other.w_, sizeof(w_));
    size_ = other.size_;
    other.size_ = 0;
    return *this;
  }
  ~IdVec() {
    if (on_heap()) std::free(heap());
  }

  std::uint32_t size() const { return size_ & kSizeMask; }
  std::uint32_t capacity() const { return on_heap() ? w_[0] : kInline; }
  /// Heap bytes held (0 while inline).
  std::size_t heap_bytes() const { return on_heap() ? w_[0] * sizeof(std::uint32_t) : 0; }
  bool empty() const { return size() == 0; }
  std::uint32_t* data() { return on_heap() ? heap() : w_; }
  const std::uint32_t* data() const { return on_heap() ? heap() : w_; }
  std::uint32_t* begin() { return data(); }
  std::uint32_t* end() { return data() + size(); }
  const std::uint32_t* begin() const { return data(); }
  const std::uint32_t* end() const { return data() + size(); }
  std::uint32_t operator[](std::uint32_t i) const { return data()[i]; }
  std::uint32_t& operator[](std::uint32_t i) { return data()[i]; }
  std::span<const std::uint32_t> span() const { return {data(), size()}; }
  std::uint32_t back() const { return data()[size() - 1]; }

  [[gnu::always_inline]] void push_back(std::uint32_t v) {
    if (size_ < kInline) { // inline (the heap bit is clear) and not full
      w_[size_++] = v;
      return;
    }
    if (on_heap() && size() < w_[0]) {
      heap()[size()] = v;
      ++size_;
      return;
    }
    push_back_growing(v);
  }
  void append(std::span<const std::uint32_t> vs) {
    if (vs.empty()) return;
    std::uint32_t n = size();
    reserve(n + static_cast<std::uint32_t>(vs.size()));
    std::memcpy(data() + n, vs.data(), vs.size() * sizeof(std::uint32_t));
    size_ += static_cast<std::uint32_t>(vs.size());
  }
  /// Moves the ids of `other` into this list (in some order) and frees `other`'s storage.
  /// When this list's storage is too small and `other`'s is big enough, this list takes over
  /// `other`'s block: merging a short list into a long one then neither copies nor allocates.
  void absorb(IdVec& other) {
    std::uint32_t n = size(), m = other.size();
    if (n + m > capacity() && other.on_heap() && n + m <= other.capacity()) {
      std::uint32_t* d = other.heap();
      std::memcpy(d + m, data(), n * sizeof(std::uint32_t));
      std::uint32_t cap = other.w_[0];
      other.size_ = 0;
      release();
      set_heap(d, cap);
      size_ = kHeapBit | (n + m);
      return;
    }
    if (m <= kInline && n + m <= capacity()) {
      std::uint32_t* to = data() + n;
      const std::uint32_t* from = other.data();
      for (std::uint32_t i = 0; i < m; ++i) to[i] = from[i];
      size_ += m;
    } else {
      append(other.span());
    }
    other.release();
  }
  void reserve(std::uint32_t n) {
    if (n > capacity()) grow(n);
  }
  /// Shrinks to `n` elements (n <= size()).
  void truncate(std::uint32_t n) { size_ = (size_ & kHeapBit) | n; }
  void clear() { truncate(0); }
  /// Frees the storage.
  void release() {
    if (on_heap()) std::free(heap());
    size_ = 0;
  }
  /// Frees unused capacity when the list became much smaller than its storage.
  void shrink_if_sparse() {
    std::uint32_t n = size();
    if (!on_heap() || n * 4 >= w_[0]) return;
    if (n <= kInline) {
      std::uint32_t* old = heap();
      std::uint32_t tmp[kInline] = {};
      std::memcpy(tmp, old, n * sizeof(std::uint32_t));
      std::free(old);
      std::memcpy(w_, tmp, sizeof(w_));
      size_ = n;
      return;
    }
    set_heap_capacity(n);
  }

private:
  IdVec(std::uint32_t size, std::uint32_t first) : size_(size), w_{first, 0, 0} {}

  static constexpr std::uint32_t kInline = 3;
  static constexpr std::uint32_t kHeapBit = 0x80000000u;
  static constexpr std::uint32_t kSizeMask = 0x7fffffffu;

  bool on_heap() const { return (size_ & kHeapBit) != 0; }
  std::uint32_t* heap() const {
    std::uint32_t* p;
    std::memcpy(&p, &w_[1], sizeof(p));
    return p;
  }
  void set_heap(std::uint32_t* p, std::uint32_t cap) {
    w_[0] = cap;
    std::memcpy(&w_[1], &p, sizeof(p));
    size_ |= kHeapBit;
  }
  [[gnu::noinline]] void push_back_growing(std::uint32_t v) {
    std::uint32_t n = size();
    grow(n + 1);
    heap()[n] = v;
    ++size_;
  }
  void assign(const std::uint32_t* src, std::uint32_t n) {
    truncate(0);
    reserve(n);
    if (n != 0) std::memcpy(data(), src, n * sizeof(std::uint32_t));
    truncate(n);
  }
  void grow(std::uint32_t need) {
    std::uint32_t cap = capacity() * 2;
    while (cap < need) cap *= 2;
    set_heap_capacity(cap);
  }
  void set_heap_capacity(std::uint32_t cap) {
    std::size_t bytes = std::size_t{cap} * sizeof(std::uint32_t);
    if (!on_heap()) {
      auto* p = static_cast<std::uint32_t*>(std::malloc(bytes));
      if (p == nullptr) throw std::bad_alloc();
      std::memcpy(p, w_, size() * sizeof(std::uint32_t));
      set_heap(p, cap);
    } else {
      void* p = std::realloc(heap(), bytes);
      if (p == nullptr) throw std::bad_alloc();
      set_heap(static_cast<std::uint32_t*>(p), cap);
    }
  }

  std::uint32_t size_ = 0;        // bit 31: the ids are in a heap block
  std::uint32_t w_[kInline] = {}; // inline ids, or capacity and the heap block's address
};

static_assert(sizeof(IdVec) == 16);

/// An IdVec owns its heap block through a plain pointer: memcpy moves it.
template <>
struct detail::is_relocatable<IdVec> : std::true_type {};

} // namespace tilesat::egraph
