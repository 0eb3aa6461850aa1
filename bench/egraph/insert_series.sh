#!/usr/bin/env bash
# Reads fresh hash-cons insertion over time on a noisy machine: for SECONDS, runs rounds of
# an 8 MB memory-latency probe followed by one short `egraph_bench
# --benchmark_filter=HashConsInsertFresh` run (100k and 1M e-nodes, about 0.3 s each), prints
# one line per round, then the medians, 5th percentiles and shares of runs at >= 10 M/s
# overall, per band of the latency measured before the run, and per 5-minute window.
#
#   bench/egraph/insert_series.sh 3000 build/bench/egraph
#
# A three-repetition reading samples a few seconds of the host; this samples its hour.
set -euo pipefail

if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 SECONDS [DIR holding egraph_bench and egraph_memory_latency]" >&2
  exit 2
fi
seconds=$1
dir=${2:-build/bench/egraph}
for b in egraph_bench egraph_memory_latency; do
  [[ -x $dir/$b ]] || { echo "$0: not an executable: $dir/$b" >&2; exit 2; }
done
log=$(mktemp)
trap 'rm -f "$log"' EXIT

end=$(($(date +%s) + seconds))
while (($(date +%s) < end)); do
  lat=$("$dir/egraph_memory_latency" --sizes-mb 8 | sed -n 's/.*ns_per_load=//p')
  if [[ -z $lat ]]; then
    echo "$0: egraph_memory_latency printed no ns_per_load" >&2
    exit 1
  fi
  rates=$("$dir/egraph_bench" --benchmark_filter=HashConsInsertFresh --benchmark_min_time=0.3 2>/dev/null |
    sed -n 's/^BM_HashConsInsertFresh\/\([0-9]*\) .*items_per_second=\([0-9.]*\)\([kMG]\)\/s.*/\1 \2 \3/p')
  if [[ $(wc -l <<<"$rates") -ne 2 ]]; then
    echo "$0: egraph_bench printed no HashConsInsertFresh rates" >&2
    exit 1
  fi
  line="$(date +%s) $lat $(awk '{ f = $3 == "k" ? 1e-3 : $3 == "G" ? 1e3 : 1; printf "%.3f ", $2 * f }' <<<"$rates")"
  echo "$line" | tee -a "$log"
done

python3 - "$log" <<'PY'
import statistics, sys
rows = [[float(x) for x in line.split()] for line in open(sys.argv[1])]
if not rows:
    sys.exit("no rounds finished")
def summary(v):
    p5 = statistics.quantiles(v, n=20, method="inclusive")[0] if len(v) > 1 else v[0]
    return "median %5.1f  p5 %5.1f  min %5.1f  >=10 M/s %5.1f%%" % (
        statistics.median(v), p5, min(v), 100 * sum(x >= 10 for x in v) / len(v))
print("%d rounds" % len(rows))
for name, col in (("100k", 2), ("1M", 3)):
    print("  %-4s %s  (M e-nodes/s)" % (name, summary([r[col] for r in rows])))
print("by 8 MB latency before the run:")
for lo, hi in ((0, 40), (40, 80), (80, 120), (120, 1e9)):
    band = [r for r in rows if lo <= r[1] < hi]
    if band:
        print("  %3d-%s ns: %4d rounds, 1M %s" % (lo, "%d" % hi if hi < 1e9 else "", len(band),
                                                 summary([r[3] for r in band])))
print("by 5-minute window (1M medians):")
t0 = rows[0][0]
windows = {}
for r in rows:
    windows.setdefault(int((r[0] - t0) // 300), []).append(r)
for k in sorted(windows):
    w = windows[k]
    print("  +%3d min: %4d rounds, 8 MB latency median %5.1f ns, 100k %5.1f, 1M %5.1f M/s" % (
        5 * k, len(w), statistics.median(r[1] for r in w), statistics.median(r[2] for r in w),
        statistics.median(r[3] for r in w)))
PY
