// IdVec: a 16-byte growable array of 32-bit ids, used for a class's nodes and parents.
//
// An e-graph holds two lists per e-class; with std::vector (24 bytes and a heap block each)
// and millions of classes that overhead dominates memory and malloc time. Most classes hold
// one or two nodes and parents, so up to two ids live inline in the 16 bytes; longer lists use
// a heap block grown with realloc (ids are trivially copyable). Pointers into an inline list
// move with the IdVec.
//
//   tilesat::egraph::IdVec v;
//   v.push_back(3);
//   v.push_back(7);
//   for (auto id : v) use(id);   // 3, 7
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <utility>

namespace tilesat::egraph {

class IdVec {
public:
  IdVec() { local_[0] = local_[1] = 0; }
  IdVec(const IdVec& other) : IdVec() { assign(other.data(), other.size_); }
  IdVec(IdVec&& other) noexcept : size_(other.size_), cap_(other.cap_) {
    std::memcpy(&heap_, &other.heap_, sizeof(heap_));
    other.reset_inline();
  }
  IdVec& operator=(const IdVec& other) {
    if (this != &other) assign(other.data(), other.size_);
    return *this;
  }
  IdVec& operator=(IdVec&& other) noexcept {
    if (this == &other) return *this;
    release();
    std::memcpy(&heap_, &other.heap_, sizeof(heap_));
    size_ = other.size_;
    cap_ = other.cap_;
    other.reset_inline();
    return *this;
  }
  ~IdVec() {
    if (cap_ != 0) std::free(heap_);
  }

  std::uint32_t size() const { return size_; }
  std::uint32_t capacity() const { return cap_ == 0 ? kInline : cap_; }
  /// Heap bytes held (0 while inline).
  std::size_t heap_bytes() const { return cap_ * sizeof(std::uint32_t); }
  bool empty() const { return size_ == 0; }
  std::uint32_t* data() { return cap_ == 0 ? local_ : heap_; }
  const std::uint32_t* data() const { return cap_ == 0 ? local_ : heap_; }
  std::uint32_t* begin() { return data(); }
  std::uint32_t* end() { return data() + size_; }
  const std::uint32_t* begin() const { return data(); }
  const std::uint32_t* end() const { return data() + size_; }
  std::uint32_t operator[](std::uint32_t i) const { return data()[i]; }
  std::uint32_t& operator[](std::uint32_t i) { return data()[i]; }
  std::span<const std::uint32_t> span() const { return {data(), size_}; }
  std::uint32_t back() const { return data()[size_ - 1]; }

  void push_back(std::uint32_t v) {
    if (size_ == capacity()) grow(size_ + 1);
    data()[size_++] = v;
  }
  void append(std::span<const std::uint32_t> vs) {
    if (vs.empty()) return;
    reserve(size_ + static_cast<std::uint32_t>(vs.size()));
    std::memcpy(data() + size_, vs.data(), vs.size() * sizeof(std::uint32_t));
    size_ += static_cast<std::uint32_t>(vs.size());
  }
  void reserve(std::uint32_t n) {
    if (n > capacity()) grow(n);
  }
  /// Shrinks to `n` elements (n <= size()).
  void truncate(std::uint32_t n) { size_ = n; }
  void clear() { size_ = 0; }
  /// Frees the storage.
  void release() {
    if (cap_ != 0) std::free(heap_);
    reset_inline();
  }
  /// Frees unused capacity when the list became much smaller than its storage.
  void shrink_if_sparse() {
    if (cap_ == 0 || size_ * 4 >= cap_) return;
    if (size_ <= kInline) {
      std::uint32_t* old = heap_;
      std::uint32_t n = size_;
      local_[0] = n > 0 ? old[0] : 0;
      local_[1] = n > 1 ? old[1] : 0;
      std::free(old);
      cap_ = 0;
      return;
    }
    set_heap_capacity(size_);
  }

private:
  static constexpr std::uint32_t kInline = 2;

  void reset_inline() {
    local_[0] = local_[1] = 0;
    size_ = 0;
    cap_ = 0;
  }
  void assign(const std::uint32_t* src, std::uint32_t n) {
    size_ = 0;
    reserve(n);
    if (n != 0) std::memcpy(data(), src, n * sizeof(std::uint32_t));
    size_ = n;
  }
  void grow(std::uint32_t need) {
    std::uint32_t cap = capacity() * 2;
    while (cap < need) cap *= 2;
    set_heap_capacity(cap);
  }
  void set_heap_capacity(std::uint32_t cap) {
    if (cap_ == 0) {
      auto* p = static_cast<std::uint32_t*>(std::malloc(std::size_t{cap} * sizeof(std::uint32_t)));
      if (p == nullptr) throw std::bad_alloc();
      std::memcpy(p, local_, size_ * sizeof(std::uint32_t));
      heap_ = p;
    } else {
      void* p = std::realloc(heap_, std::size_t{cap} * sizeof(std::uint32_t));
      if (p == nullptr) throw std::bad_alloc();
      heap_ = static_cast<std::uint32_t*>(p);
    }
    cap_ = cap;
  }

  union {
    std::uint32_t* heap_;
    std::uint32_t local_[kInline];
  };
  std::uint32_t size_ = 0;
  std::uint32_t cap_ = 0; // 0: the ids are inline in local_
};

static_assert(sizeof(IdVec) == 16);

} // namespace tilesat::egraph
