#!/usr/bin/env bash
# Everything a GPU session checks, in one go, for the device machine: the GPU test suites, the suite's wall
# time, five-run stability, gpuperf against ncu, and (with --nightly) ci/nightly.sh twice on every GPU.
# Logs and tables go to OUT; one tarball of them (logs.tar.gz) plus summary.txt, printed last.
#
#   bench/gpu/gpu_acceptance.sh --bundle DIR --out OUT [--parts tests,wall,stability,ncu,nightly]
#
# DIR holds the built gpuperf, libgpuperf_cupti.so and the *_gpu test executables (the device machine
# builds nothing). Each part is run even when an earlier one failed; the exit code is the worst part's.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bundle=""
out=""
parts="tests,wall,stability,ncu"
while (($#)); do
  case "$1" in
    --bundle) bundle=$(cd "${2:?}" && pwd); shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --parts) parts=${2:?}; shift 2 ;;
    *) echo "gpu_acceptance: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n $bundle && -x $bundle/gpuperf && -n $out ]] || { echo "gpu_acceptance: need --bundle DIR with gpuperf, and --out" >&2; exit 2; }
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
gp=$bundle/gpuperf
summary=$out/summary.txt
: >"$summary"
worst=0
note() { echo "$*" | tee -a "$summary"; }
part() {  # part NAME command...: runs it, logs to logs/NAME.log, notes wall time and exit code
  local name=$1 start rc=0
  shift
  start=$(date +%s.%N)
  "$@" >"$out/logs/$name.log" 2>&1 || rc=$?
  note "$(awk -v n="$name" -v s="$start" -v e="$(date +%s.%N)" -v rc="$rc" \
    'BEGIN { printf "%-22s exit %d  %6.1f s", n, rc, e - s }')"
  ((rc > worst)) && worst=$rc
  return 0
}
want() { [[ ",$parts," == *",$1,"* ]]; }

nvidia-smi --query-gpu=index,name,uuid,driver_version,clocks.sm --format=csv >"$out/logs/gpus.csv" 2>&1
note "gpus: $(($(wc -l <"$out/logs/gpus.csv") - 1)), bundle $bundle"

if want tests; then
  for t in "$bundle"/test_*_gpu; do
    [[ -x $t ]] && part "$(basename "$t")" "$t" --gtest_brief=1
  done
fi
if want wall; then
  part suite_wall bash "$here/suite_wall.sh" --gpuperf "$gp" --out "$out/logs/wall"
fi
if want stability; then
  part stability bash "$here/stability.sh" --gpuperf "$gp" --runs 5 --out "$out/logs/stability"
fi
if want ncu; then
  part ncu_compare bash "$here/ncu_compare.sh" "$gp" "" "$out/logs/ncu"
fi
if want nightly; then
  for night in 2026-11-22 2026-11-23; do
    part "nightly-$night" bash "$repo/ci/nightly.sh" --gpuperf "$gp" --db "$out/logs/nightly/history.db" \
      --artifacts "$out/logs/nightly/$night" --night "$night" --branch main --device all
  done
  "$gp" --db "$out/logs/nightly/history.db" runs >"$out/logs/nightly/runs.txt" 2>&1
fi

tar -czf "$out/logs.tar.gz" -C "$out" logs
note "worst exit: $worst"
# The tables, last, for whoever reads the end of the output (everything is in logs.tar.gz).
show() { [[ -f $1 ]] && { echo "=== ${1#"$out"/} (last $2 lines)"; tail -n "$2" "$1"; }; }
show "$out/logs/ncu_compare.log" 25
show "$out/logs/stability.log" 60
show "$out/logs/suite_wall.log" 8
show "$out/logs/nightly/runs.txt" 10
cat "$summary"
exit "$worst"
