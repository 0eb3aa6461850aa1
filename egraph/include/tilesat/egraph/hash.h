// Hash mixing used by the hash-cons and the attribute table.
//
// A multiply-xorshift mixer: cheap, and good enough that linear probing over node hashes
// stays short. Not for security.
//
//   std::uint64_t h = tilesat::egraph::detail::hash_mix(0, 42);
//   h = tilesat::egraph::detail::hash_mix(h, 7);
#pragma once

#include <cstdint>

namespace tilesat::egraph::detail {

inline constexpr std::uint64_t kHashSeed = 0x9e3779b97f4a7c15ull;

inline std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + kHashSeed + (h << 6) + (h >> 2);
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 31);
}

inline std::uint64_t hash_finish(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  return h ^ (h >> 33);
}

} // namespace tilesat::egraph::detail
