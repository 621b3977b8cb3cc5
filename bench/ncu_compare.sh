#!/usr/bin/env bash
# gpuperf's collector against Nsight Compute, on a GPU machine: the same instances, the same Perfworks
# metrics, both values per instance and metric, and the wall time of both.
#
#   bench/ncu_compare.sh [GPUPERF] [PATTERN] [OUTDIR]
#
# GPUPERF defaults to build/cli/gpuperf; PATTERN selects instances as `gpuperf profile` does (default: the
# default suite); OUTDIR (default ./ncu_compare.out) receives gpuperf.json, ncu.csv, the launch order and
# the table. Exit status 0 when every value agrees (percentages within 0.5 points, counts within 1%),
# gpuperf's collection takes at most 1/5 of ncu's and the canonical kernels give their reference values.
#
# Timing: three processes over the same instances doing the same setup work (make, poison, verify):
#   launch   gpuperf profile --launch-only            setup + one launch per instance, no profiler
#   ncu      ncu ... gpuperf profile --launch-only    the same under ncu (kernel replay, cache flush)
#   gpuperf  gpuperf profile --metrics default        setup + in-process CUPTI collection
# Collection time = a process's wall time minus the launch-only one (gpuperf also reports its own).
set -euo pipefail

GPUPERF=${1:-build/cli/gpuperf}
PATTERN=${2:-}
OUT=${3:-ncu_compare.out}
NCU=${NCU:-ncu}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
[[ -x "$GPUPERF" ]] || { echo "ncu_compare: $GPUPERF is not an executable" >&2; exit 2; }
command -v "$NCU" >/dev/null || { echo "ncu_compare: ncu not found (set NCU=/path/to/ncu)" >&2; exit 3; }

pattern=()
[[ -n "$PATTERN" ]] && pattern=("$PATTERN")
now() { date +%s.%N; }

t0=$(now)
"$GPUPERF" -q profile "${pattern[@]}" --launch-only >"$OUT/launch_order.txt"
t1=$(now)
"$GPUPERF" -q profile "${pattern[@]}" --metrics default --format json >"$OUT/gpuperf.json"
t2=$(now)
# The Perfworks names behind gpuperf's metrics, for ncu to collect the same.
metrics=$(python3 -c '
import json, sys
names = []
for r in json.load(open(sys.argv[1]))["results"]:
    for m in r["metrics"].values():
        for p in m.get("perfworks", []):
            if p not in names:
                names.append(p)
print(",".join(names))' "$OUT/gpuperf.json")
t3=$(now)
"$NCU" --clock-control none --profile-from-start off --metrics "$metrics" --csv --page raw --print-units base \
  --log-file "$OUT/ncu.csv" "$GPUPERF" -q profile "${pattern[@]}" --launch-only >"$OUT/ncu_launch_order.txt"
t4=$(now)

python3 "$here/ncu_compare.py" --gpuperf "$OUT/gpuperf.json" --ncu "$OUT/ncu.csv" \
  --order "$OUT/ncu_launch_order.txt" --times "$t0" "$t1" "$t2" "$t3" "$t4" | tee "$OUT/table.md"
exit "${PIPESTATUS[0]}"
