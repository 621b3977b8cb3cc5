#!/usr/bin/env bash
# Wall time of the whole default suite on this machine's GPU, as a table: timing only (the target is under
# 60 s on one H200), --quick, --hot, and with the default hardware metrics, whose cost over timing only
# must stay under 2 s (`run` profiles the suite in groups, one CUPTI session each). Every run also checks
# that all instances verified (exit 0). Then, from the stored runs: the durations of the metrics run against
# the timing-only run (`gpuperf compare`, duration only: profiling must not move them) and the stored
# metrics of the four reference instances.
#
#   bench/suite_wall.sh [--gpuperf PATH] [--out DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gpuperf="${GPUPERF:-$here/../build/cli/gpuperf}"
out=""
while (($#)); do
  case "$1" in
    --gpuperf) gpuperf="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "suite_wall.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x "$gpuperf" ]] || { echo "suite_wall.sh: no gpuperf executable at $gpuperf (use --gpuperf)" >&2; exit 2; }
[[ -n "$out" ]] || out="$(mktemp -d -t gpuperf-wall.XXXXXX)"
mkdir -p "$out"
rm -f "$out/wall.db" "$out/wall.db-wal" "$out/wall.db-shm"  # run ids 1..4 below are this script's

rows=()
walls=()
missed=0
measure() {  # label target_s args...
  local label="$1" target="$2"
  shift 2
  local start end rc=0
  start=$(date +%s.%N)
  "$gpuperf" --quiet --db "$out/wall.db" run --label "wall" "$@" > "$out/${label// /_}.txt" 2>&1 || rc=$?
  end=$(date +%s.%N)
  walls+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')")
  local row
  row=$(awk -v l="$label" -v s="$start" -v e="$end" -v t="$target" -v rc="$rc" 'BEGIN {
    w = e - s; v = (rc != 0) ? "exit " rc : (t == "-" ? "-" : (w < t ? "ok" : "MISSED"));
    printf "| %s | %.1f | %s | %s |", l, w, (t == "-" ? "-" : "< " t), v }')
  rows+=("$row")
  [[ "$row" == *MISSED* || $rc != 0 ]] && missed=1
  return 0
}
measure "timing only (--metrics none)" 60 --metrics none
measure "timing only, --quick" - --metrics none --quick
measure "timing only, --hot" - --metrics none --hot
measure "timing + default metrics" - --metrics default

added=$(awk -v a="${walls[0]}" -v b="${walls[3]}" 'BEGIN { printf "%.1f", b - a }')
verdict=$(awk -v d="$added" 'BEGIN { print (d <= 2.0 ? "ok" : "MISSED") }')
[[ $verdict == ok ]] || missed=1
rows+=("| added by default metrics | $added | < 2 | $verdict |")

printf '| default suite | wall (s) | target | verdict |\n|---|---|---|---|\n'
printf '%s\n' "${rows[@]}"
grep -h "instances:" "$out"/*.txt | sed 's/^/  /'

# Run 1 is timing only, run 4 timing + default metrics: profiling must leave the durations where they were.
echo "durations, run 4 (with metrics) against run 1 (timing only):"
"$gpuperf" --db "$out/wall.db" compare 1 4 --metric duration --history 0 > "$out/durations.txt" 2>&1 || true
grep -iE "same|faster|slower|ambiguous" "$out/durations.txt" | tail -n 3 | sed 's/^/  /'
"$gpuperf" --db "$out/wall.db" export --run 4 -o "$out/run4.json"
echo "stored metrics of the reference instances (run 4):"
python3 - "$out/run4.json" <<'PY'
import json, sys
names = {"memory/coalesced": {}, "memory/strided": {"stride": 32}, "matmul/naive": {"n": 1024},
         "matmul/tiled": {"n": 1024, "tile": 16}}
for r in json.load(open(sys.argv[1]))["runs"][0]["results"]:
    want = names.get(r["benchmark"])
    if want is None or any(r.get("params", {}).get(k) != v for k, v in want.items()):
        continue
    if r["benchmark"] == "memory/coalesced" and r.get("params", {}).get("n") not in (None, 16777216):
        continue
    m = r.get("metrics", {})
    val = lambda k: m.get(k, {}).get("value", m.get(k, {}).get("summary", {}).get("median", "-"))
    print(f"  {r['benchmark']:16} {json.dumps(r.get('params', {})):28} gld_efficiency={val('gld_efficiency')} "
          f"shared_load_transactions={val('shared_load_transactions')} "
          f"shared_store_transactions={val('shared_store_transactions')}")
PY
exit "$missed"
