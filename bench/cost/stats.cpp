// stats.cpp: median, nearest-rank percentile and Kendall's tau-b.
#include "stats.h"

#include <algorithm>
#include <cmath>

namespace tilesat::bench {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y) {
  double concordant = 0, discordant = 0, ties_x = 0, ties_y = 0;
  size_t n = std::min(x.size(), y.size());
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      double dx = x[i] - x[j];
      double dy = y[i] - y[j];
      if (dx == 0 && dy == 0) continue;
      if (dx == 0)
        ties_x += 1;
      else if (dy == 0)
        ties_y += 1;
      else if ((dx > 0) == (dy > 0))
        concordant += 1;
      else
        discordant += 1;
    }
  }
  double denom = std::sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y));
  return denom == 0 ? 0 : (concordant - discordant) / denom;
}

} // namespace tilesat::bench
