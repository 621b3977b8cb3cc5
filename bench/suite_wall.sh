#!/usr/bin/env bash
# Wall time of the whole default suite on this machine's GPU, as a table: timing only (the target is under
# 60 s on one H200), --quick, --hot, and with the default hardware metrics (informative: the collector's
# replay passes). Every run also checks that all instances verified (exit 0).
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

rows=()
missed=0
measure() {  # label target_s args...
  local label="$1" target="$2"
  shift 2
  local start end rc=0
  start=$(date +%s.%N)
  "$gpuperf" --quiet --db "$out/wall.db" run --label "wall" "$@" > "$out/${label// /_}.txt" 2>&1 || rc=$?
  end=$(date +%s.%N)
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

printf '| default suite | wall (s) | target | verdict |\n|---|---|---|---|\n'
printf '%s\n' "${rows[@]}"
grep -h "instances:" "$out"/*.txt | sed 's/^/  /'
exit "$missed"
