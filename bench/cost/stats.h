// stats.h: summary figures of the accuracy benchmarks (errors in percent).
//
//   median({3, 1, 2});            // 2
//   percentile({1, 2, 3, 4}, 0.9); // 4 (nearest rank)
//   kendall_tau_b({1, 2, 3}, {10, 30, 20}); // 0.333
#pragma once

#include <vector>

namespace tilesat::bench {

/// The middle value (the mean of the two middle ones for an even count); 0 for none.
double median(std::vector<double> v);
/// The nearest-rank q-quantile (q in [0, 1]); 0 for none.
double percentile(std::vector<double> v, double q);
/// Kendall's tau-b between paired values (ties in either counted as tau-b does); 0 for fewer
/// than two distinct pairs.
double kendall_tau_b(const std::vector<double>& x, const std::vector<double>& y);

} // namespace tilesat::bench
