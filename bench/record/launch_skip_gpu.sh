#!/usr/bin/env bash
# `record --metrics` aimed with --launch-skip/--launch-count on a program whose first launches are warm-up
# (bench/record/programs/warmup_steps.py: 5 warm-up matmuls, then 3 steps'), on a GPU:
#   1. --kernel-regex only: each matmul identity's first 3 launches are profiled (the warm-up's among them);
#   2. --kernel-regex, --launch-skip 5 --launch-count 3: the 3 steps' matmuls only, nothing else profiled, and the
#      run stores those 3 launches.
# Which launches got counters is read from the kept record files (launch_skip_check.py). Prints a table last;
# exit 1 when a check fails. On an H200: bench/record/results/record-cost-h200-20261129.txt.
#   bench/record/launch_skip_gpu.sh GPUPERF_BIN OUT_DIR
set -uo pipefail
gpuperf=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
regex='gemm|nvjet|xmma|cutlass'
rc=0
# Each stored identity, its NVTX path and its launches, from `gpuperf export`.
stored_py='
import json, sys
rows = []
for run in json.load(sys.stdin)["runs"]:
    for r in run["results"]:
        launches = r.get("metrics", {}).get("launches", {})
        n = launches.get("value", (launches.get("samples") or [None])[0])
        rows.append("%s [%s]: %s" % (r["benchmark"].split("/", 1)[-1][:40], r.get("params", {}).get("nvtx", ""), n))
print("; ".join(rows))'
cell() { # NAME EXPECTED-POSITIONS RECORD-ARGS...
  local name=$1 want=$2
  shift 2
  rm -rf "${out:?}/${name:?}" && mkdir -p "$out/$name"
  GPUPERF_RECORD_PROFILE_TRACE=1 "$gpuperf" --db "$out/$name/run.db" record --metrics default --kernel-regex "$regex" \
    --keep-records "$out/$name/records" "$@" -- python3 "$here/programs/warmup_steps.py" >"$out/$name/record.log" 2>&1
  local r=$?
  local check
  check=$(python3 "$here/launch_skip_check.py" "$out/$name/records" "$regex" --expect-profiled "$want" --expect-only)
  local c=$?
  local stored
  stored=$("$gpuperf" --db "$out/$name/run.db" export | python3 -c "$stored_py")
  echo "| $name | $r | $check | $stored |" | tr '\n' ' ' ; echo
  grep -h "gpuperf: metrics:" "$out/$name/record.log" | cut -c1-300
  ((r == 0 && c == 0)) || rc=1
}
{
  echo "| cell | record exit | profiled (matched launches in order, * with counters) | stored identities: launches |"
  echo "|---|---|---|---|"
  cell regex-only 1,2,3,6,7,8
  cell skip5-count3 6,7,8 --launch-skip 5 --launch-count 3
} | tee "$out/summary.txt"
exit $rc
