#!/usr/bin/env bash
# Run-to-run stability of the default suite on this machine's GPU: N back-to-back runs (default 5) of
# `gpuperf run --metrics none --format json`, then a table of every instance's median per run and the
# spread of those medians (max/min - 1), which must stay under 2% for every instance whose median is above
# 20 us; and, per family, the paired variants' medians and their ratio. Exit 1 when the target is missed.
#
#   bench/gpu/stability.sh [--gpuperf PATH] [--runs N] [--out DIR] [-- extra gpuperf run arguments]
#
# Needs a GPU and python3. The runs go to a throwaway database in DIR (default: a temporary folder), the
# JSON of each run and the table (stability.txt) to DIR as well.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gpuperf="${GPUPERF:-$here/../../build/cli/gpuperf}"
runs=5
out=""
extra=()
while (($#)); do
  case "$1" in
    --gpuperf) gpuperf="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "stability.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x "$gpuperf" ]] || { echo "stability.sh: no gpuperf executable at $gpuperf (use --gpuperf)" >&2; exit 2; }
[[ -n "$out" ]] || out="$(mktemp -d -t gpuperf-stability.XXXXXX)"
mkdir -p "$out"

files=()
for ((i = 1; i <= runs; i++)); do
  start=$(date +%s.%N)
  "$gpuperf" --quiet --db "$out/stability.db" run --metrics none --format json --label "stability-$i" \
    ${extra[@]+"${extra[@]}"} > "$out/run$i.json" || rc=$?
  end=$(date +%s.%N)
  awk -v i="$i" -v s="$start" -v e="$end" -v rc="${rc:-0}" \
    'BEGIN { printf "run %d: %.1f s wall, exit %d\n", i, e - s, rc }' | tee -a "$out/wall.txt" >&2
  [[ "${rc:-0}" == 0 ]] || { echo "stability.sh: run $i failed (exit $rc)" >&2; exit "$rc"; }
  files+=("$out/run$i.json")
done
python3 "$here/stability.py" --threshold-us 20 --max-spread 0.02 "${files[@]}" | tee "$out/stability.txt"
