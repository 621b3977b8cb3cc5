#!/usr/bin/env bash
# Issue 55 item 5 on one H200 (about 3 minutes, at most 6): `record --pm-sampling` against the range profiler.
#   (a) record_probe sol 20 (tests/record/record_probe_sol.cu: the probe's copy and FMA loop, and a ladder of
#       2-20 us launches, in the NVTX range "sol"): sampled in that range at 1000 ns, against the range profiler's
#       TriageCompute values of the same kernels (--metrics, 3 launches each): per identity PM mean (sd), range
#       profiler, delta; launches sampled.
#   (b) the transformers GPT-2 (bench/record/programs/transformers_gpt2.py --window 2:3: steps 2-4 in the NVTX
#       range pm_window): the same table for the window's identities (the range profiler on 1 launch of each),
#       launches sampled / launches, the program's wall time recorded plain and with PM sampling, the host time.
#   (c) if time is left: GPT-2 under --metrics default and --pm-sampling together (range profiling resumes after
#       the window: the metrics line says how many identities got counters).
#
#   bench/record/pm_sampling_gpu.sh BUNDLE [OUT]
#
# BUNDLE holds gpuperf, libgpuperf_inject.so, libgpuperf_cupti.so and record_probe (the build's cli/gpuperf,
# profiler/lib*.so and tests/record/record_probe, copied flat; as record_gpu55.sh takes). Needs python3 with torch
# and transformers for (b) and (c) ($PYTHON to choose another). The summary goes to OUT/pm-summary.txt; each
# run's log and export under OUT/work.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?pm_sampling_gpu.sh BUNDLE [OUT]}
out=${2:-${OUT:?pm_sampling_gpu.sh: OUT}}
bundle=$(cd "$bundle" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
G=$bundle/gpuperf
P=$bundle/record_probe
export GPUPERF_INJECT_LIBRARY=$bundle/libgpuperf_inject.so GPUPERF_CUPTI_MODULE=$bundle/libgpuperf_cupti.so
for f in "$G" "$GPUPERF_INJECT_LIBRARY" "$GPUPERF_CUPTI_MODULE" "$P"; do
  [[ -e $f ]] || { echo "pm_sampling_gpu.sh: $f missing from the bundle" >&2; exit 2; }
done
PY=${PYTHON:-python3}
GPT2=$here/programs/transformers_gpt2.py
TRIAGE=sol_sm_triage,sol_l1tex_triage,sol_lts_triage,sol_dramc_triage,dram_throughput
summary=$out/pm-summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
started=$(date +%s)
elapsed() { echo $(($(date +%s) - started)); }
w=$out/work
mkdir -p "$w"
rows=()

# One recording: NAME TIMEOUT ARGS... -- PROGRAM...; its log, database and export under $w, a summary row.
rec() {
  local name=$1 t=$2
  shift 2
  rm -f "$w/$name.db"
  timeout "$t" "$G" --db "$w/$name.db" record "$@" >"$w/$name.log" 2>&1
  local rc=$?
  "$G" --db "$w/$name.db" export -o "$w/$name.json" >/dev/null 2>&1
  local wall pm
  wall=$(grep -o ' after [0-9.]* s' "$w/$name.log" | head -1 | awk '{print $2}')
  pm=$(grep -h '^gpuperf: PM sampling:' "$w/$name.log" | sed 's/^gpuperf: PM sampling: //')
  rows+=("$(printf '%-10s exit %-3s program %6s s  %s' "$name" "$rc" "${wall:--}" "${pm:-}")")
  say "-- $name: exit $rc, $(elapsed) s so far"
  grep -h '^gpuperf: \(warning\|metrics\|PM sampling\|error\)' "$w/$name.log" | head -8 | tee -a "$summary"
}

say "== (a) record_probe sol 20: PM sampling in the range 'sol' against the range profiler ($(elapsed) s)"
rec a_plain 60 --name sol -- "$P" sol 20
rec a_rp 120 --name sol --metrics "$TRIAGE" --nvtx-include '^sol$' --no-source-lines -- "$P" sol 20
rec a_pm 120 --name sol --pm-sampling --pm-sampling-nvtx sol -- "$P" sol 20
python3 "$here/pm_compare.py" "$w/a_pm.json" "$w/a_rp.json" --title "(a) record_probe sol, 1000 ns" 2>&1 |
  tee "$w/a_table.txt" >>"$summary"

say "== (b) GPT-2, steps 2-4 in pm_window ($(elapsed) s)"
prog=("$PY" "$GPT2" --steps 6 --window 2:3)
rec b_plain 120 --name gpt2 -- "${prog[@]}"
rec b_pm 150 --name gpt2 --pm-sampling --pm-sampling-nvtx pm_window -- "${prog[@]}"
rec b_rp 150 --name gpt2 --metrics "$TRIAGE" --nvtx-include '^pm_window' --profile-launches 1 --no-source-lines \
  -- "${prog[@]}"
python3 "$here/pm_compare.py" "$w/b_pm.json" "$w/b_rp.json" --top 15 --title "(b) GPT-2 pm_window, 1000 ns" 2>&1 |
  tee "$w/b_table.txt" >>"$summary"

if (($(elapsed) < 200)); then
  say "== (c) GPT-2 under --metrics default with --pm-sampling ($(elapsed) s)"
  rec c_both 150 --name gpt2 --metrics default --no-source-lines --pm-sampling --pm-sampling-nvtx pm_window \
    -- "${prog[@]}"
else
  say "== (c) skipped: $(elapsed) s spent"
fi

say ""
say "== tables ($(elapsed) s in all)"
cat "$w/a_table.txt" "$w/b_table.txt" | tee -a "$summary"
say "run        exit      program wall    PM sampling (window, samples, lost, launches with a sample, host time)"
for r in "${rows[@]}"; do say "$r"; done
