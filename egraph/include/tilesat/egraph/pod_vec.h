// PodVec: a growable array for types that may be moved with memcpy, grown with realloc.
//
// The e-graph's id-indexed tables (node records, child ids, union-find, class records) reach
// millions of entries. std::vector grows by allocating a new block and copying, so at the
// moment of growth both blocks are resident: the peak memory of a run is the table's size
// two to three times over. A PodVec keeps small blocks in malloc and maps large ones
// (>= 256 KiB) directly from the kernel: a big block reserves address space several times its
// need, aligned for 2 MiB huge pages, so it grows in place (and past its reserve by remapping
// pages, never copying); pages never written are not resident, so a PodVec costs only the
// entries in use. A few freed big blocks are kept, pages and all, for the next big block: the
// kernel zeroes every fresh page, which is most of a saturation run's system time. Elements
// must be relocatable by memcpy (`detail::is_relocatable`).
//
//   tilesat::egraph::PodVec<std::uint32_t> v;
//   v.push_back(3);
//   v.resize(10, 0);   // v[1..9] == 0
//   for (auto x : v) use(x);
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace tilesat::egraph {
namespace detail {

/// Blocks of at least this many bytes are mapped from the kernel (Linux), not malloc'd.
inline constexpr std::size_t kBigBlock = std::size_t{1} << 18;
/// Grows (or first allocates, when `p` is null) a block to at least `new_bytes` and sets
/// `new_bytes` to the usable size. Small blocks use realloc; big ones are reserved mappings
/// (several times the need, 2 MiB aligned, transparent huge pages), so a table grows in place
/// and faults its pages in 2 MiB at a time; a new big block reuses a freed one when it can.
/// `zero` says whether a first allocation came back all zero bytes (a fresh mapping).
/// Throws std::bad_alloc.
void* resize_block(void* p, std::size_t old_bytes, std::size_t& new_bytes, bool& zero);
/// Frees a block whose usable size resize_block reported as `bytes`, of which the first
/// `used_bytes` were written.
void free_block(void* p, std::size_t bytes, std::size_t used_bytes);
/// Bytes of a block of usable size `block_bytes` that can be resident when its first
/// `used_bytes` were written (a big block's untouched reserve is not).
std::size_t resident_bytes(std::size_t used_bytes, std::size_t block_bytes);

/// True for types a PodVec may move with memcpy; specialise for types that own memory
/// through plain pointers only (no self-references).
template <class T>
struct is_relocatable : std::is_trivially_copyable<T> {};

} // namespace detail

template <class T>
class PodVec {
  static_assert(detail::is_relocatable<T>::value, "PodVec needs a memcpy-relocatable type");

public:
  PodVec() = default;
  PodVec(const PodVec&) = delete;
  PodVec& operator=(const PodVec&) = delete;
  PodVec(PodVec&& o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
  }
  PodVec& operator=(PodVec&& o) noexcept {
    if (this != &o) {
      destroy();
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      cap_ = std::exchange(o.cap_, 0);
    }
    return *this;
  }
  ~PodVec() { destroy(); }

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return cap_; }
  bool empty() const { return size_ == 0; }
  T* data() { return data_; }
  const T* data() const { return data_; }
  T* begin() { return data_; }
  T* end() { return data_ + size_; }
  const T* begin() const { return data_; }
  const T* end() const { return data_ + size_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T& back() { return data_[size_ - 1]; }
  const T& back() const { return data_[size_ - 1]; }

  void push_back(const T& v) {
    if (size_ == cap_) grow(size_ + 1);
    new (data_ + size_) T(v);
    ++size_;
  }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == cap_) grow(size_ + 1);
    T* p = new (data_ + size_) T(std::forward<Args>(args)...);
    ++size_;
    return *p;
  }
  /// Appends `n` entries copied from `src` (which must not point into this PodVec).
  void append(const T* src, std::size_t n) {
    if (size_ + n > cap_) grow(size_ + n);
    T* to = data_ + size_;
    if (n <= 4) { // e-node children: a loop beats a memcpy call
      for (std::size_t i = 0; i < n; ++i) new (to + i) T(src[i]);
    } else {
      std::memcpy(static_cast<void*>(to), src, n * sizeof(T));
    }
    size_ += n;
  }
  /// Appends `n` unwritten entries (trivial types only) and returns the first.
  T* extend(std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (size_ + n > cap_) grow(size_ + n);
    T* to = data_ + size_;
    size_ += n;
    return to;
  }
  void pop_back() {
    --size_;
    data_[size_].~T();
  }
  /// Grows or shrinks to `n` entries; new entries are copies of `v`.
  void resize(std::size_t n, const T& v = T()) {
    if (n > cap_) grow(n);
    for (std::size_t i = size_; i < n; ++i) new (data_ + i) T(v);
    for (std::size_t i = n; i < size_; ++i) data_[i].~T();
    size_ = n;
  }
  /// Grows or shrinks to `n` entries, leaving new ones unwritten (trivial types only).
  void resize_uninitialized(std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    if (n > cap_) grow(n);
    size_ = n;
  }
  /// Resizes to `n` entries of zero bytes (trivial types only). A fresh big block is zero
  /// already (mapped pages), so it is not written: its pages stay untouched until used.
  void assign_zero(std::size_t n) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    const bool fresh = data_ == nullptr;
    size_ = 0;
    bool zero = false;
    if (n > cap_) zero = set_capacity(n);
    if (!(fresh && zero)) std::memset(static_cast<void*>(data_), 0, n * sizeof(T));
    size_ = n;
  }
  void assign(std::size_t n, const T& v) {
    clear();
    resize(n, v);
  }
  void reserve(std::size_t n) {
    if (n > cap_) set_capacity(n);
  }
  void clear() {
    if constexpr (!std::is_trivially_destructible_v<T>)
      for (std::size_t i = 0; i < size_; ++i) data_[i].~T();
    size_ = 0;
  }
  /// Bytes of the block that may be resident (a big block's unwritten reserve is not).
  std::size_t memory_bytes() const {
    return detail::resident_bytes(size_ * sizeof(T), cap_ * sizeof(T));
  }

private:
  void grow(std::size_t need) {
    std::size_t cap = cap_ < 16 ? 16 : cap_ * 2;
    while (cap < need) cap *= 2;
    set_capacity(cap);
  }
  /// True when the block is a fresh, all-zero mapping.
  bool set_capacity(std::size_t cap) {
    std::size_t bytes = cap * sizeof(T);
    bool zero = false;
    data_ = static_cast<T*>(
        detail::resize_block(static_cast<void*>(data_), cap_ * sizeof(T), bytes, zero));
    cap_ = bytes / sizeof(T);
    return zero;
  }
  void destroy() {
    const std::size_t used = size_ * sizeof(T);
    clear();
    if (data_ != nullptr) detail::free_block(static_cast<void*>(data_), cap_ * sizeof(T), used);
    data_ = nullptr;
    cap_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
};

} // namespace tilesat::egraph
