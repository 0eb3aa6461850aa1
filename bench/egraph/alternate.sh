#!/usr/bin/env bash
# Compares builds of egraph_math_bench on a noisy machine: runs them in turn, RUNS times each
# (so drifts in the host's speed hit all of them alike), then prints per binary the median /
# best / worst of the wall, user and system milliseconds, and iteration 6's median search,
# apply and rebuild milliseconds.
#
#   bench/egraph/alternate.sh 31 /tmp/before/egraph_math_bench build/bench/egraph/egraph_math_bench
#
# Extra arguments for the benchmark go in BENCH_ARGS (default: --iterations 7).
set -euo pipefail

if [[ $# -lt 2 || ! $1 =~ ^[0-9]+$ ]]; then
  echo "usage: $0 RUNS BINARY [BINARY...]" >&2
  exit 2
fi
runs=$1
shift
for b in "$@"; do
  [[ -x $b ]] || { echo "$0: not an executable: $b" >&2; exit 2; }
done
args=${BENCH_ARGS:---iterations 7}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for ((r = 0; r < runs; ++r)); do
  for i in $(seq 1 $#); do
    b=${!i}
    # shellcheck disable=SC2086 # BENCH_ARGS is a list of words
    if ! "$b" $args >"$out/run" 2>"$out/err"; then
      echo "$0: run $((r + 1)) of $b failed:" >&2
      cat "$out/err" >&2
      exit 1
    fi
    wall=$(sed -n 's/^math_workload .* seconds=\([0-9.]*\) .*/\1/p' "$out/run")
    user=$(sed -n 's/.*user_seconds=\([0-9.]*\).*/\1/p' "$out/run")
    sys=$(sed -n 's/.*sys_seconds=\([0-9.]*\).*/\1/p' "$out/run")
    it6=$(sed -n 's/^iter *6:.*search_ms=\([0-9.]*\) apply_ms=\([0-9.]*\) rebuild_ms=\([0-9.]*\)/\1 \2 \3/p' "$out/run")
    if [[ -z $wall || -z $user || -z $sys ]]; then
      echo "$0: $b printed no math_workload / cpu_seconds lines (is it egraph_math_bench?)" >&2
      exit 1
    fi
    echo "$wall $user $sys ${it6:-0 0 0}" >>"$out/$i"
  done
done

for i in $(seq 1 $#); do
  python3 - "$out/$i" "${!i}" <<'PY'
import statistics, sys
rows = [[float(x) for x in line.split()] for line in open(sys.argv[1])]
cols = list(zip(*rows))
def spread(c):
    c = sorted(v * 1000 for v in c)
    return "%6.1f /%6.1f /%6.1f" % (statistics.median(c), c[0], c[-1])
print("%s\n  wall %s   user %s   sys %s   (median / best / worst ms)\n"
      "  iteration 6: search %.1f  apply %.1f  rebuild %.1f ms (medians)"
      % (sys.argv[2], spread(cols[0]), spread(cols[1]), spread(cols[2]),
         statistics.median(cols[3]), statistics.median(cols[4]), statistics.median(cols[5])))
PY
done
