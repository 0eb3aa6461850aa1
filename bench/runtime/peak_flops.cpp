// peak_flops.cpp: FMA throughput loops (see peak_flops.h).
#include "peak_flops.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace tilesat::bench {
namespace {

constexpr long kIters = 20'000'000;

#if defined(__x86_64__)
// 16 chains of 16-lane FMAs: 512 FLOP per iteration.
__attribute__((target("avx512f"))) float avx512_loop(long iters) {
  __m512 acc[16];
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
  __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long n = 0; n < iters; ++n)
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  __m512 s = acc[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, acc[i]);
  float out[16];
  _mm512_storeu_ps(out, s);
  return out[0] + out[15];
}
constexpr double kAvx512FlopPerIter = 16.0 * 16 * 2;

// 12 chains of 8-lane FMAs: 192 FLOP per iteration.
__attribute__((target("avx2,fma"))) float avx2_loop(long iters) {
  __m256 acc[12];
  for (int i = 0; i < 12; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i) * 1e-3f);
  __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (long n = 0; n < iters; ++n)
    for (int i = 0; i < 12; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  __m256 s = acc[0];
  for (int i = 1; i < 12; ++i) s = _mm256_add_ps(s, acc[i]);
  float out[8];
  _mm256_storeu_ps(out, s);
  return out[0] + out[7];
}
constexpr double kAvx2FlopPerIter = 12.0 * 8 * 2;
#endif

template <class F>
double rate(unsigned threads, F loop, double flop_per_iter) {
  std::atomic<float> sink{0};
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < threads; ++t) ts.emplace_back([&] { sink = sink + loop(kIters); });
    for (std::thread& t : ts) t.join();
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::max(best, flop_per_iter * kIters * threads / s);
  }
  return best;
}

} // namespace

PeakResult measure_peak_flops(unsigned threads) {
  PeakResult best{0, "none"};
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    double r = rate(threads, avx512_loop, kAvx512FlopPerIter);
    if (r > best.flops) best = {r, "avx512"};
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    double r = rate(threads, avx2_loop, kAvx2FlopPerIter);
    if (r > best.flops) best = {r, "avx2"};
  }
#endif
  return best;
}

} // namespace tilesat::bench
