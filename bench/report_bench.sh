#!/usr/bin/env bash
# Times `gpuperf report` on a year of nightly history: 90, 180 and 365 runs of the full suite (39 instances,
# 12 metrics, 50 raw duration samples each), imported with `gpuperf import`. Prints a table: the time for the
# HTML alone, the Markdown alone and both together (one invocation, the CI case), the median of 3 tries, and
# the time per run, which should not grow with the number of runs. Target: both formats under 5 s at 365.
#
# Usage: bench/report_bench.sh [BUILD_DIR]   (default: build; needs BUILD_DIR/cli/gpuperf and python3)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
gpuperf=$(cd "$build" && pwd)/cli/gpuperf
[[ -x "$gpuperf" ]] || { echo "report_bench: no gpuperf executable at $gpuperf; build the gpuperf target first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuperf-report-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
tries=3

now() { date +%s.%N; }
# The median of three timings of "$@".
time_median() {
  local t=()
  for ((i = 0; i < tries; ++i)); do
    local s e
    s=$(now)
    "$@" >/dev/null 2>&1
    e=$(now)
    t+=("$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.3f", e - s }')")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n "$(((tries + 1) / 2))p"
}

printf '%-5s %7s %9s %8s %8s %8s %10s %9s %9s\n' runs series points html_s md_s both_s ms/run html_MiB md_KiB
for runs in 90 180 365; do
  db="$work/history-$runs.db"
  python3 "$here/report_bench_gen.py" --runs "$runs" >"$work/history-$runs.json"
  "$gpuperf" --db "$db" --quiet import "$work/history-$runs.json" >/dev/null
  out="$work/out-$runs"
  html=$(time_median "$gpuperf" --db "$db" --quiet report --out "$out" --format html)
  md=$(time_median "$gpuperf" --db "$db" --quiet report --out "$out" --format md)
  both=$(time_median "$gpuperf" --db "$db" --quiet report --out "$out" --format html,md)
  series=$(sqlite3 "$db" "SELECT COUNT(DISTINCT benchmark_id || '/' || metric_id) FROM result")
  points=$(sqlite3 "$db" "SELECT COUNT(*) FROM result")
  awk -v r="$runs" -v s="$series" -v p="$points" -v h="$html" -v m="$md" -v b="$both" \
    -v hb="$(stat -c %s "$out/report.html")" -v mb="$(stat -c %s "$out/report.md")" \
    'BEGIN { printf "%-5s %7s %9s %8.2f %8.2f %8.2f %10.2f %9.1f %9.1f\n", r, s, p, h, m, b, b * 1000 / r, hb / 1048576, mb / 1024 }'
done
echo
echo "Stage timings at 365 runs, html,md:"
"$gpuperf" --db "$work/history-365.db" report --out "$work/out-365" --timings 2>&1 >/dev/null | sed 's/^/  /'
