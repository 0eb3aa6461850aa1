// peak_flops.h: this machine's peak f32 FLOP/s, measured: every thread runs independent
// chains of vector fused multiply-adds (AVX-512 and AVX2+FMA where the CPU has them), enough
// chains to hide the FMA latency; the best rate over the instruction sets is the peak.
#pragma once

#include <string>

namespace tilesat::bench {

struct PeakResult {
  double flops = 0; // over all threads
  std::string isa;
};

PeakResult measure_peak_flops(unsigned threads);

} // namespace tilesat::bench
