#!/usr/bin/env bash
# Issue 28's acceptance on a GPU (docs/bound.md), in one go for the device machine, from plants built by
# bench/detect/plants/build_plants.sh (the GPU machine builds nothing):
#   names     every Perfworks name of the default set exists on the GPU's chip (gpuperf's host API and ncu)
#   passes    the passes the default set needs, and the SOL values under user and kernel replay
#   fma       plant/polynomial: `check` of the -fmad=false build against the FMA build, then a 4-night nightly
#   memory    memory/coalesced: the same with bench/detect/patches/lose_coalescing.patch
#   bound     plant/polynomial of degree 4 (memory-bound) against degree 64 (compute-bound): a change of bound
#   wall      the default suite timed only and with the default metrics: the metrics' cost
#   ncu       bench/gpu/ncu_compare.sh on the default suite (plus plant/polynomial); at most $NCU_LIMIT s (170)
#   tests     the *_gpu test executables of the bundle
#
#   bench/gpu/bound_gpu.sh --plants DIR --out OUT [--tests DIR] [--parts names,passes,fma,memory,bound,wall,ncu,tests]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=${REPO:-$(cd "$here/../.." && pwd)}  # where ci/nightly.sh and bench/detect/nightly_step_gpu.sh are
plants=""
out=""
tests=""
parts="names,passes,fma,memory,bound,record,wall,ncu,tests"
while (($#)); do
  case "$1" in
    --plants) plants=$(cd "${2:?}" && pwd); shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --tests) tests=$(cd "${2:?}" && pwd); shift 2 ;;
    --parts) parts=${2:?}; shift 2 ;;
    *) echo "bound_gpu: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -n $plants && -n $out ]] || { echo "bound_gpu: need --plants DIR and --out OUT" >&2; exit 2; }
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
part() {  # part NAME command...: logs to logs/NAME.log, notes wall time and exit code
  local name=$1 start rc=0
  shift
  start=$(date +%s.%N)
  "$@" >"$out/logs/$name.log" 2>&1 || rc=$?
  note "$(awk -v n="$name" -v s="$start" -v e="$(date +%s.%N)" -v rc="$rc" \
    'BEGIN { printf "%-22s exit %d  %6.1f s", n, rc, e - s }')"
  return 0
}
want() { [[ ",$parts," == *",$1,"* ]]; }
gp=$plants/poly-fma/gpuperf  # the landed build plus plant/polynomial

nvidia-smi --query-gpu=index,name,driver_version,clocks.max.sm --format=csv >"$out/logs/gpus.csv" 2>&1
note "gpu: $(sed -n 2p "$out/logs/gpus.csv")"

names_check() {
  local names
  names=$("$gp" -q profile plant/polynomial --metrics default --format json |
    python3 -c 'import json,sys
seen=[]
for r in json.load(sys.stdin)["results"]:
    for m in r["metrics"].values():
        for p in m.get("perfworks", []):
            if p not in seen: seen.append(p)
print("\n".join(seen))')
  ncu --query-metrics --chip gh100 >"$out/logs/ncu_query.txt" 2>&1 || true
  local bad=0
  while read -r n; do
    [[ -z $n ]] && continue
    local ours="no" theirs="no"
    "$gp" -q profile --list-metrics "$n" | grep -qx "$n" && ours="yes"
    grep -q "^${n%%.*} " "$out/logs/ncu_query.txt" && theirs="yes"
    printf '%-80s gpuperf %-3s ncu-base %s\n' "$n" "$ours" "$theirs"
    [[ $ours == yes && $theirs == yes ]] || bad=1
  done <<<"$names"
  return $bad
}
if want names; then part names names_check; fi

sol_instances='plant/polynomial|memory/coalesced|matmul/tiled\[n=1024,tile=16\]|vector_add/add\[block=256\]'
values() {  # values FILE: one line per instance, every metric's value
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print("passes", d.get("passes"))
for r in d["results"]:
    print(r["instance"], " ".join("%s=%s" % (k, v.get("value")) for k, v in r["metrics"].items()))' "$1"
}
passes_check() {
  "$gp" profile --metrics default 'plant/polynomial|memory/coalesced|matmul/tiled\[n=1024,tile=16\]'
  local sol=sm_throughput,memory_throughput,dram_throughput,instructions
  echo "--- user replay, SOL"
  "$gp" -q profile --metrics "$sol" "$sol_instances" --format json >"$out/logs/sol_user.json" &&
    values "$out/logs/sol_user.json"
  echo "--- kernel replay, SOL"
  "$gp" -q profile --replay kernel --metrics "$sol" "$sol_instances" --format json >"$out/logs/sol_kernel.json" &&
    values "$out/logs/sol_kernel.json"
  echo "--- user replay: other suffixes, the range's time and cycles"
  local alt=sm__throughput.avg.pct_of_peak_sustained_active
  alt+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_active
  alt+=,dram__throughput.avg.pct_of_peak_sustained_active,gpu__time_duration.sum,sm__cycles_active.max
  alt+=,gpc__cycles_elapsed.max
  "$gp" -q profile --metrics "$alt" "$sol_instances" --format json >"$out/logs/sol_alt.json" &&
    values "$out/logs/sol_alt.json"
  echo "--- ncu"
  local elapsed=sm__throughput.avg.pct_of_peak_sustained_elapsed
  elapsed+=,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
  elapsed+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
  ncu --clock-control none --metrics "$alt,$elapsed" --csv --page raw "$gp" -q profile "$sol_instances" --launch-only
}
if want passes; then part passes passes_check; fi

plant() {  # plant NAME LANDED EDITED FILTER INSTANCE EXPECT
  local name=$1 landed=$2 edited=$3 filter=$4 instance=$5 expect=$6
  local db=$out/logs/$name-check.db
  rm -f "$db"
  "$landed" --db "$db" run --branch main --filter "$filter" >"$out/logs/$name-check-run.log" 2>&1
  local rc=0
  "$edited" --db "$db" check --baseline main --branch edited --filter "$filter" >"$out/logs/$name-check.txt" 2>&1 ||
    rc=$?
  echo "check exit $rc"
  cat "$out/logs/$name-check.txt"
  bash "$repo/bench/detect/nightly_step_gpu.sh" --landed "$landed" --edited "$edited" --out "$out/logs/$name-nightly" \
    --filter "$filter" --instance "$instance" --expect "$expect"
}
if want fma; then
  part fma plant fma "$plants/poly-fma/gpuperf" "$plants/poly-nofma/gpuperf" '^plant/polynomial$' plant/polynomial \
    instructions
fi
if want memory; then
  part memory plant memory "$plants/coalesced/gpuperf" "$plants/uncoalesced/gpuperf" '^memory/coalesced$' \
    memory/coalesced gld_efficiency
fi
if want bound; then
  part bound plant bound "$plants/poly-deg4/gpuperf" "$plants/poly-fma/gpuperf" '^plant/polynomial$' plant/polynomial \
    instructions
fi
record_part() {  # record --metrics default on tests/record/record_probe: the same metrics and verdict per kernel
  local gpb=$plants/coalesced/gpuperf db=$out/logs/record.db
  [[ -x $here/../../record_probe ]] || { echo "no record_probe in the bundle"; return 1; }
  "$gpb" --db "$db" record --metrics default -- "$here/../../record_probe" truth "$out/logs/record-truth.txt" || return 1
  "$gpb" --db "$db" report --out "$out/logs/record-report" --format md >/dev/null || return 1
  sed -n '/### Speed of light/,/<\/details>/p' "$out/logs/record-report/report.md"
}
if want record; then part record record_part; fi

wall() {  # the default suite timed only, then with the default metrics: the metrics' cost
  local landed=$plants/coalesced/gpuperf t0 t1 t2
  t0=$(date +%s.%N)
  "$landed" --db "$out/logs/wall.db" run --metrics none >"$out/logs/wall-none.txt" 2>&1 || return 1
  t1=$(date +%s.%N)
  "$landed" --db "$out/logs/wall.db" run >"$out/logs/wall-default.txt" 2>&1 || return 1
  t2=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
    printf "suite timing only %.1f s, with default metrics %.1f s: +%.1f s\n", b - a, c - b, (c - b) - (b - a) }'
  grep -i "pass" "$out/logs/wall-default.txt" | head -3 || true
}
if want wall; then part wall wall; fi
if want ncu; then
  GPUPERF_RUNS=${GPUPERF_RUNS:-3} NCU_RUNS=${NCU_RUNS:-3} part ncu_compare timeout "${NCU_LIMIT:-170}" \
    bash "$here/ncu_compare.sh" "$gp" "${NCU_PATTERN:-}" "$out/logs/ncu"
fi
if want tests && [[ -n $tests ]]; then
  for t in "$tests"/test_*; do
    [[ -x $t ]] && part "$(basename "$t")" "$t" --gtest_brief=1
  done
fi

tar -czf "$out/logs.tar.gz" -C "$out" logs
show() { [[ -f $1 ]] && { echo "=== ${1#"$out"/} (last $2 lines)"; tail -n "$2" "$1"; }; }
show "$out/logs/names.log" 30
show "$out/logs/passes.log" 30
show "$out/logs/fma.log" 30
show "$out/logs/memory.log" 30
show "$out/logs/bound.log" 30
show "$out/logs/ncu_compare.log" 45
show "$out/logs/record.log" 14
show "$out/logs/wall.log" 5
cat "$summary"
