// Every tile matmul micro-kernel this CPU can run (AVX-512, AVX2, portable) against a
// double-precision product, on k-tile counts that do and do not fill the kernels' k blocks.
#include "tilesat/program/storage.h"
#include "tilesat/runtime/tile_matmul.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

namespace tilesat::runtime {
namespace {

using program::face_offset;

TEST(TileMatmul, EveryKernelMatchesADoubleProduct) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  ASSERT_EQ(tile_matmul_kernels().front().isa, tile_matmul_isa());
  for (const TileMatmulKernel& kernel : tile_matmul_kernels()) {
    for (int64_t k_tiles : {1, 3, 4, 9}) {
      SCOPED_TRACE(std::string(kernel.isa) + " k_tiles=" + std::to_string(k_tiles));
      std::vector<std::vector<float>> a(static_cast<size_t>(k_tiles), std::vector<float>(1024));
      std::vector<std::vector<float>> b = a;
      std::vector<const float*> pa, pb;
      for (size_t t = 0; t < a.size(); ++t) {
        for (float& x : a[t]) x = dist(rng);
        for (float& x : b[t]) x = dist(rng);
        pa.push_back(a[t].data());
        pb.push_back(b[t].data());
      }
      std::vector<float> c(1024);
      for (float& x : c) x = dist(rng);
      std::vector<float> c0 = c;
      kernel.fn(c.data(), pa.data(), pb.data(), k_tiles);
      for (int r = 0; r < 32; ++r) {
        for (int col = 0; col < 32; ++col) {
          double want = c0[static_cast<size_t>(face_offset(r, col))], scale = std::abs(want);
          for (size_t t = 0; t < a.size(); ++t) {
            for (int k = 0; k < 32; ++k) {
              double p = double{a[t][static_cast<size_t>(face_offset(r, k))]} *
                         b[t][static_cast<size_t>(face_offset(k, col))];
              want += p;
              scale += std::abs(p);
            }
          }
          ASSERT_NEAR(c[static_cast<size_t>(face_offset(r, col))], want, 1e-6 * scale)
              << "element (" << r << ", " << col << ")";
        }
      }
    }
  }
}

} // namespace
} // namespace tilesat::runtime
