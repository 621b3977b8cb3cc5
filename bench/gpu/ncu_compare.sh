#!/usr/bin/env bash
# gpuperf's collector against Nsight Compute, on a GPU machine: the same instances, the same Perfworks
# metrics, both values per instance and metric, and the wall time of both.
#
#   bench/gpu/ncu_compare.sh [GPUPERF] [PATTERN] [OUTDIR]
#
# GPUPERF defaults to build/cli/gpuperf; PATTERN selects instances as `gpuperf profile` does (default: the
# default suite); OUTDIR (default ./ncu_compare.out) receives every file and table.md. Extra arguments for
# `gpuperf profile` may be given in $GPUPERF_PROFILE_ARGS (e.g. --separate-sass).
#
# gpuperf runs: $GPUPERF_RUNS (default 5) `gpuperf profile` processes; the table shows their median and range.
# ncu runs (all --clock-control none, default cache control: caches flushed before every pass):
#   ncu         every metric at once: the timed run, and the reference for the deterministic metrics
#   ncu_dram*   the DRAM reference, $NCU_RUNS times (default 5): the DRAM counters alone (one pass, so no
#               save/restore: ncu's multi-pass replay writes back 2-3 MB of its own inside the kernel's
#               range on H200), with --cache-control none over `--launch-only --launch-flush`, i.e. after
#               gpuperf's own L2 flush (run outside ncu's window). DRAM bytes written count the write-backs
#               during the kernel, so they depend on L2's state before it; this way both tools measure the
#               same state. `--launch-only` keeps the instances alive in the collector's groups and
#               launches each once before its profiled launch, as the collector does, so buffers lie where
#               they lay in gpuperf's process (H200: an instance's bytes written move by 1-3% with what was
#               allocated before it, in either tool) and translations are warm. Even so they move between
#               ncu runs by up to 2.5% (H200), hence several runs. All references must come from the same
#               machine session as gpuperf's runs: on another H200 occupancy sat 0.5-1.3 points apart.
#   ncu_cold*   the same counters under ncu's default cache control, twice: part of ncu's range.
#   ncu_rep*    occupancy and bank conflicts again ($NCU_RUNS - 1 times): these counters differ between ncu
#               runs by more than the stated tolerances, so the table also shows ncu's own range.
# Timing: three processes over the same instances doing the same setup work (make, poison, verify):
#   launch   gpuperf profile --launch-only          setup + one launch per instance, no profiler
#   ncu      ncu ... gpuperf profile --launch-only  the same under ncu (kernel replay, cache flush)
#   gpuperf  gpuperf profile --metrics default      setup + in-process CUPTI collection
# Collection time = a process's wall time minus the launch-only one (gpuperf also reports its own).
set -euo pipefail

GPUPERF=${1:-build/cli/gpuperf}
PATTERN=${2:-}
OUT=${3:-ncu_compare.out}
NCU=${NCU:-ncu}
read -r -a extra <<<"${GPUPERF_PROFILE_ARGS:-}"
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
[[ -x "$GPUPERF" ]] || { echo "ncu_compare: $GPUPERF is not an executable" >&2; exit 2; }
command -v "$NCU" >/dev/null || { echo "ncu_compare: ncu not found (set NCU=/path/to/ncu)" >&2; exit 3; }

pattern=()
[[ -n "$PATTERN" ]] && pattern=("$PATTERN")
now() { date +%s.%N; }
# ncu TAG METRICS [ncu options...]: ncu's raw CSV in $OUT/TAG.csv, the launch order in $OUT/TAG_order.txt.
# LAUNCH_ARGS: more `profile --launch-only` options.
run_ncu() {
  local tag=$1 metrics=$2
  shift 2
  local launch=()
  read -r -a launch <<<"${LAUNCH_ARGS:-}"
  "$NCU" --clock-control none --profile-from-start off --metrics "$metrics" --csv --page raw --print-units base \
    "$@" --log-file "$OUT/$tag.csv" "$GPUPERF" -q profile "${pattern[@]}" --launch-only "${launch[@]}" \
    >"$OUT/${tag}_order.txt"
}

runs=${GPUPERF_RUNS:-5}
ncu_runs=${NCU_RUNS:-5}
t0=$(now)
"$GPUPERF" -q profile "${pattern[@]}" --launch-only >"$OUT/launch_order.txt"
ours=()
profile_run() {  # profile_run I: gpuperf's collection into $OUT/gpuperfI.json
  "$GPUPERF" -q profile "${pattern[@]}" "${extra[@]}" --metrics default --format json >"$OUT/gpuperf$1.json"
  ours+=(--gpuperf "$OUT/gpuperf$1.json")
}
t1=$(now)
profile_run 1
t2=$(now)
for ((i = 2; i <= runs; i++)); do profile_run "$i"; done
# The Perfworks names behind gpuperf's metrics, for ncu to collect the same.
metrics=$(python3 -c '
import json, sys
names = []
for r in json.load(open(sys.argv[1]))["results"]:
    for m in r["metrics"].values():
        for p in m.get("perfworks", []):
            if p not in names:
                names.append(p)
print(",".join(names))' "$OUT/gpuperf1.json")
t3=$(now)
run_ncu ncu "$metrics"
t4=$(now)
refs=(--ncu "$OUT/ncu.csv" "$OUT/ncu_order.txt")
dram=dram__bytes_read.sum,dram__bytes_write.sum
noisy=sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
# Speed of light, issue slots and stall reasons (NOISY in ncu_compare.py) also get ncu's own spread.
noisy+=,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed
noisy+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__issue_active.avg.pct_of_peak_sustained_active
for reason in long_scoreboard math_pipe_throttle barrier not_selected; do
  noisy+=,smsp__average_warps_issue_stalled_${reason}_per_issue_active.ratio
done
for ((i = 1; i <= ncu_runs; i++)); do
  LAUNCH_ARGS=--launch-flush run_ncu "ncu_dram$i" "$dram" --cache-control none
  refs+=(--ncu-dram "$OUT/ncu_dram$i.csv" "$OUT/ncu_dram${i}_order.txt")
done
for i in 1 2; do
  run_ncu "ncu_cold$i" "$dram"
  refs+=(--ncu-dram-cold "$OUT/ncu_cold$i.csv" "$OUT/ncu_cold${i}_order.txt")
done
for ((i = 1; i < ncu_runs; i++)); do
  run_ncu "ncu_rep$i" "$noisy"
  refs+=(--ncu-repeat "$OUT/ncu_rep$i.csv" "$OUT/ncu_rep${i}_order.txt")
done
printf '%s\n' "${refs[@]}" >"$OUT/references.txt"  # for re-running ncu_compare.py on other gpuperf runs

python3 "$here/ncu_compare.py" "${ours[@]}" "${refs[@]}" --times "$t0" "$t1" "$t2" "$t3" "$t4" | tee "$OUT/table.md"
exit "${PIPESTATUS[0]}"
