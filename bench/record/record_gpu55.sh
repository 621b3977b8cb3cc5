#!/usr/bin/env bash
# Issue 55 on one H200, in one call of at most 8 minutes, building nothing: a bundle of built binaries in, three
# tables out.
#   sol    the default suite's speed of light: `profile --metrics default` (today's names, 2 runs) against the
#          default set as `run` now collects it on GH100 (TriageCompute names, 2 runs), against ncu (2 runs over
#          `profile --launch-only`: the TriageCompute names and today's), with passes and collection seconds of
#          both; then `gpuperf run` (default metrics) says which names it stored (bench/record/sol_compare.py).
#   cost   bench/record/profile_cost.py --only gpt2: median / p95 ms a profiled launch, counters (partial ones
#          counted), wall time against plain.
#   regex  GPT-2 under `record --metrics default --kernel-regex 'gemm|nvjet'`: which kernels the library kept
#          out of profiling (e lines), how many launches were profiled and the slowest identity (must match the
#          regex), against the cost run's profiled launches.
#
#   bench/record/record_gpu55.sh BUNDLE [OUT]
#
# BUNDLE holds gpuperf, libgpuperf_inject.so, libgpuperf_cupti.so and record_probe (the build's cli/gpuperf,
# profiler/lib*.so and tests/record/record_probe, copied flat); OUT defaults to $OUT. Needs ncu on PATH (or $NCU)
# and python3 with torch and transformers (GPT-2, as profile_cost.py). The summary goes to OUT/gpu55-summary.txt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?record_gpu55.sh BUNDLE [OUT]}
out=${2:-${OUT:?record_gpu55.sh: OUT}}
bundle=$(cd "$bundle" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
G=$bundle/gpuperf
export GPUPERF_INJECT_LIBRARY=$bundle/libgpuperf_inject.so GPUPERF_CUPTI_MODULE=$bundle/libgpuperf_cupti.so
for f in "$G" "$GPUPERF_INJECT_LIBRARY" "$GPUPERF_CUPTI_MODULE" "$bundle/record_probe"; do
  [[ -e $f ]] || { echo "record_gpu55.sh: $f missing from the bundle" >&2; exit 2; }
done
NCU=${NCU:-ncu}
summary=$out/gpu55-summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
started=$(date +%s)
elapsed() { echo $(($(date +%s) - started)); }
w=$out/work
mkdir -p "$w"

# ---- sol ----
say "== sol: the default suite's speed of light, TriageCompute against today's names against ncu ($(elapsed) s)"
E=.avg.pct_of_peak_sustained_elapsed
triage_set=gld_efficiency,gst_efficiency,shared_load_transactions,shared_store_transactions,shared_bank_conflicts
triage_set+=,achieved_occupancy,dram_bytes_read,dram_bytes_written,sol_sm_triage,sol_l1tex_triage,sol_lts_triage
triage_set+=,sol_dramc_triage,dram_throughput,instructions,inst_fma,inst_alu,inst_lsu,issue_active
triage_set+=,stall_long_scoreboard,stall_math_throttle,stall_barrier,stall_not_selected
args=()
for i in 1 2; do
  "$G" -q profile --metrics default --format json >"$w/today$i.json" 2>"$w/today$i.err" && args+=(--today "$w/today$i.json")
  "$G" -q profile --metrics "$triage_set" --format json >"$w/triage$i.json" 2>"$w/triage$i.err" &&
    args+=(--triage "$w/triage$i.json")
done
ncu_metrics=TriageCompute.sm__throughput$E,SM_A.TriageCompute.l1tex__throughput$E,LTS.TriageCompute.lts__throughput$E
ncu_metrics+=,FBSP.TriageCompute.dramc__throughput$E,sm__throughput$E,gpu__compute_memory_throughput$E
ncu_metrics+=,l1tex__throughput$E,lts__throughput$E,dram__throughput$E
today_ncu=sm__throughput$E,gpu__compute_memory_throughput$E,l1tex__throughput$E,lts__throughput$E,dram__throughput$E
for i in 1 2; do
  command -v "$NCU" >/dev/null || { say "ncu not found: no ncu column"; break; }
  ((i == 1 || $(elapsed) < 200)) || { say "ncu run $i skipped: $(elapsed) s spent"; break; }
  if ! "$NCU" --clock-control none --profile-from-start off --metrics "$ncu_metrics" --csv --page raw \
    --print-units base --log-file "$w/ncu$i.csv" "$G" -q profile --launch-only >"$w/ncu${i}_order.txt" 2>"$w/ncu$i.err"; then
    say "ncu run $i failed with the TriageCompute names, again with today's: $(tail -2 "$w/ncu$i.err" | tr '\n' ' ')"
    ncu_metrics=$today_ncu
    "$NCU" --clock-control none --profile-from-start off --metrics "$ncu_metrics" --csv --page raw --print-units base \
      --log-file "$w/ncu$i.csv" "$G" -q profile --launch-only >"$w/ncu${i}_order.txt" 2>"$w/ncu$i.err" || continue
  fi
  args+=(--ncu "$w/ncu$i.csv" "$w/ncu${i}_order.txt")
done
python3 "$here/sol_compare.py" "${args[@]}" 2>&1 | tee -a "$summary" | tail -60
"$G" -q --db "$w/run.db" run --metrics default >"$w/run.log" 2>&1
say "run --metrics default: exit $?, stored speed-of-light names: $(python3 -c '
import sqlite3, sys
names = [r[0] for r in sqlite3.connect(sys.argv[1]).execute("select name from metric order by name")]
print(", ".join(n for n in names if "throughput" in n or n.startswith("sol_")))' "$w/run.db" 2>&1)"

# ---- cost ----
say "== cost: GPT-2 under record --metrics default ($(elapsed) s)"
python3 "$here/profile_cost.py" --gpuperf "$G" --probe "$bundle/record_probe" --out "$w/cost" --only gpt2 \
  --run-timeout 150 --stall-seconds 100 2>&1 | tee -a "$summary"
grep -h "^gpuperf: metrics:" "$w/cost/gpt2-now.log" | tee -a "$summary"

# ---- regex ----
say "== regex: GPT-2 under record --metrics default --kernel-regex 'gemm|nvjet' ($(elapsed) s)"
if (($(elapsed) > 400)); then
  say "skipped: $(elapsed) s spent"
else
  keep=$w/regex-records
  /usr/bin/time -f "# wall %e" timeout 150 "$G" --db "$w/regex.db" record --metrics default --kernel-regex 'gemm|nvjet' \
    --keep-records "$keep" -- python3 "$here/programs/transformers_gpt2.py" >"$w/regex.log" 2>&1
  say "exit $?; $(grep -h '^# wall' "$w/regex.log")"
  grep -h "^gpuperf: metrics:" "$w/regex.log" | tee -a "$summary"
  say "kernels named by e lines (kept out of profiling, traced): $(cat "$keep"/process-*.txt 2>/dev/null | grep -c '^e ')"
  say "profiled launches (W lines): $(cat "$keep"/process-*.txt 2>/dev/null | grep -c '^W ') (the cost run without the \
regex: its 'profiled' column above)"
  python3 - "$w/regex.log" <<'PY' 2>&1 | tee -a "$summary"
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"the slowest identity (\S+)", text)
print("slowest profiled identity:", m.group(1) if m else "-",
      "(matches the regex)" if m and re.search("gemm|nvjet", m.group(1)) else "(DOES NOT match the regex)")
PY
fi
say "== done after $(elapsed) s; logs in $w"
