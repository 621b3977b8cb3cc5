#!/usr/bin/env bash
# One GPU session for one-value metrics and the two measurements that doubted the GPU checks (README,
# "One value per run"). Builds nothing; about 6-8 minutes on an H100.
#
#   bench/gpu/onevalue_gpu.sh --landed DIR --edited DIR --out OUT [--parts LIST] [--test-runs N] [--deadline S]
#
# DIR: gpuperf and libgpuperf_cupti.so; --landed's also the test_*_gpu executables. --edited is the same
# tree with bench/detect/patches/lose_occupancy.patch applied (stencil1d/shared holds 44 KB more shared memory:
# theoretical occupancy 100% -> 50%, coalescing unchanged). Parts (default all, in this order):
#   check    3 nightly runs of landed (branch main), then `check --baseline main` of landed (A/A: exit 0,
#            every row same) and of edited (exit 1, stencil1d/shared's achieved_occupancy slower, judged
#            against the 3 runs)
#   nightly  bench/detect/nightly_step_gpu.sh: 3 landed nights, then edited; the 4th exits 1 and the duration's
#            finding names achieved_occupancy; detect's JSON of that night is kept
#   trace    matmul/naive[n=1024] launch by launch: events, CUPTI, SM clock (first launches, after idling)
#   bank     matvec/shared's bank conflicts: ncu (load and store counters apart, kernel and application
#            replay, clock control none and base), the instruction mix and wavefronts behind them, and
#            gpuperf's own values under user and kernel replay, with all default metrics and alone
#   tests    rounds of every test_*_gpu, up to N (default 5) in a row, while a round still ends before
#            --deadline seconds from the start (default 510); nvidia-smi clocks logged meanwhile. The
#            table says how many rounds ran; `--parts tests` alone gives them the whole time
# Everything lands in OUT (logs/, tables); the final table is printed last. Exit: the worst part's.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
landed=""
edited=""
out=""
parts="check,nightly,trace,bank,tests"
test_runs=5
deadline=510  # seconds from the start: the tests' rounds stop before a round would end past it
last_round=0
die() { echo "onevalue_gpu: $*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --landed) landed=$(cd "${2:?--landed needs a folder}" && pwd) || exit 2; shift 2 ;;
    --edited) edited=$(cd "${2:?--edited needs a folder}" && pwd) || exit 2; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --parts) parts=${2:?--parts needs a list}; shift 2 ;;
    --test-runs) test_runs=${2:?--test-runs needs a number}; shift 2 ;;
    --deadline) deadline=${2:?--deadline needs seconds}; shift 2 ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -n $landed && -n $edited && -n $out ]] || die "need --landed DIR, --edited DIR and --out DIR (see --help)"
for d in "$landed" "$edited"; do [[ -x $d/gpuperf ]] || die "no gpuperf in $d"; done
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
log=$out/logs
table=$out/table.txt
: >"$table"
worst=0
row() { printf '%-34s %-8s %s\n' "$1" "$2" "$3" | tee -a "$table"; }
want() { [[ ",$parts," == *",$1,"* ]]; }
status=ok
judge() { if (($1)); then status=ok; else status=FAILED; worst=1; fi; }  # judge 0|1: sets $status
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.max.sm --format=csv >"$log/gpu.csv" 2>&1

# --- check: the occupancy patch through `check`, and the A/A ---------------------------------------------
filter='^(stencil1d/(shared|global)|memory/coalesced|matmul/tiled\[n=1024,tile=16\])$'
if want check; then
  db=$out/check.db
  rm -f "$db"*
  for i in 1 2 3; do
    "$landed/gpuperf" -q --db "$db" run --filter "$filter" --branch main --label nightly \
      --commit "111111111111111111111111111111111111111$i" >"$log/check-night$i.txt" 2>&1
  done
  check() {  # check BIN NAME: check --baseline main, JSON in NAME.json; returns check's exit code
    "$1/gpuperf" -q --db "$db" check --baseline main --filter "$filter" --branch feature \
      --commit 2222222222222222222222222222222222222222 --format json >"$log/$2.json" 2>"$log/$2.err"
  }
  rc_aa=0
  check "$landed" check-aa || rc_aa=$?
  rc_ed=0
  check "$edited" check-edited || rc_ed=$?
  summary() {  # verdict counts, and the rows of stencil1d/shared that changed
    python3 - "$1" <<'EOF'
import collections, json, sys
rows = json.load(open(sys.argv[1]))["rows"]
count = collections.Counter(r["verdict"] for r in rows)
print(" ".join(f"{k} {v}" for k, v in sorted(count.items())))
for r in rows:
    if r["verdict"] != "same":
        print(f'  {r["benchmark"]} {r["metric"]} {r["before"]} -> {r["after"]} {r["verdict"]}: {r.get("note", "")}')
EOF
  }
  aa=$(summary "$log/check-aa.json" 2>&1)
  ed=$(summary "$log/check-edited.json" 2>&1)
  aa_ok=0
  [[ $rc_aa == 0 && $(head -1 <<<"$aa") =~ ^same\ [0-9]+$ ]] && aa_ok=1
  ed_ok=0
  [[ $rc_ed == 1 ]] && grep -q 'stencil1d/shared achieved_occupancy .* slower' <<<"$ed" && ed_ok=1
  judge $aa_ok
  row "check A/A (exit $rc_aa)" "$status" "$(head -1 <<<"$aa")"
  judge $ed_ok
  row "check lose_occupancy (exit $rc_ed)" "$status" "$(head -1 <<<"$ed")"
  { echo "--- A/A rows not same:"; tail -n +2 <<<"$aa"; echo "--- edited rows not same:"; tail -n +2 <<<"$ed"; } >"$out/check.txt"
fi

# --- nightly: the patch lands on the fourth night ---------------------------------------------------------
if want nightly; then
  rc=0
  bash "$here/../detect/nightly_step_gpu.sh" --landed "$landed/gpuperf" --edited "$edited/gpuperf" --out "$out/nightly" \
    --filter "$filter" --instance stencil1d/shared --expect achieved_occupancy >"$log/nightly.log" 2>&1 || rc=$?
  "$landed/gpuperf" -q --db "$out/nightly/history.db" detect --branch main --filter '^stencil1d/shared' \
    --format json >"$out/nightly/detect.json" 2>&1
  occ=$(python3 - "$out/nightly/detect.json" <<'EOF' 2>&1
import json, sys
for c in json.load(open(sys.argv[1]))["changes"]:
    if c["metric"] in ("achieved_occupancy", "duration"):
        print(f'{c["metric"]} {c["before"]:.4g} -> {c["after"]:.4g} ({c["change_pct"]:+.1f}%) '
              f'{"unconfirmed" if c["unconfirmed"] else "confirmed"}; hints: {", ".join(c["hints"])}')
EOF
)
  judge $((rc == 0))
  row "nightly lose_occupancy (exit $rc)" "$status" "$(grep -c 'achieved_occupancy' <<<"$occ") achieved_occupancy change(s) in detect"
  echo "$occ" >"$out/nightly-detect.txt"
fi

# --- trace: matmul/naive launch by launch ------------------------------------------------------------------
if want trace && [[ -x $landed/test_profiler_gpu ]]; then
  "$landed/test_profiler_gpu" --gtest_also_run_disabled_tests --gtest_filter='TimingOnGpu.DISABLED_LaunchByLaunchTrace' \
    >"$log/trace.log" 2>&1
  python3 - "$log/trace.log" >"$out/trace.txt" <<'EOF' 2>&1
import statistics, sys
phase, rows = None, {}
for line in open(sys.argv[1]):
    if line.startswith("phase "):
        phase = line[6:].strip(); rows[phase] = []
    elif phase and line.split() and line.split()[0].isdigit() and len(line.split()) == 5:
        rows[phase].append([float(x) for x in line.split()])
for phase, r in rows.items():
    ev = [x[1] for x in r]; cu = [x[2] for x in r]; clk = [x[4] for x in r if x[4] > 0]
    print(f"{phase}: events first 5 {' '.join(f'{v:.1f}' for v in ev[:5])} us; median {statistics.median(ev):.1f}, "
          f"max {max(ev):.1f} (launch {ev.index(max(ev))}); CUPTI median {statistics.median(cu):.1f}; "
          f"clock {min(clk, default=0):.0f}-{max(clk, default=0):.0f} MHz")
EOF
  row "trace matmul/naive" "info" "$(head -1 "$out/trace.txt")"
fi

# --- bank: matvec/shared's bank conflicts, ncu against gpuperf ---------------------------------------------
if want bank; then
  inst='matvec/shared[m=100000,n=1000]'
  counters=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  mix=smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
  bank=$out/bank
  mkdir -p "$bank"
  ncu_run() {  # [CLOCK=base] ncu_run TAG METRICS [ncu options]: one ncu process over a launch-only run
    local tag=$1 metrics=$2
    shift 2
    ncu --clock-control "${CLOCK:-none}" --profile-from-start off --metrics "$metrics" --csv --page raw --print-units base "$@" \
      --log-file "$bank/$tag.csv" "$landed/gpuperf" -q profile "$inst" --launch-only >/dev/null 2>"$bank/$tag.err"
  }
  # The conflict counters (with the wavefronts gpuperf already reads) apart from the instruction mix, so an
  # unknown name on this chip costs only the mix's row.
  wave=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  if command -v ncu >/dev/null; then
    for i in 1 2 3; do ncu_run "ncu-kernel-$i" "$counters,$wave" --replay-mode kernel; done
    for i in 1 2; do ncu_run "ncu-app-$i" "$counters,$wave" --replay-mode application; done
    for i in 1 2; do ncu_run "ncu-alone-$i" "$counters" --replay-mode kernel; done  # one pass, nothing else
    for i in 1 2; do CLOCK=base ncu_run "ncu-clockbase-$i" "$counters"; done
    ncu_run ncu-mix "$mix"
  fi
  for i in 1 2 3; do
    "$landed/gpuperf" -q profile "$inst" --metrics "default,$counters" --format json >"$bank/gp-user-$i.json" 2>&1
  done
  for i in 1 2; do
    "$landed/gpuperf" -q profile "$inst" --metrics "default,$counters" --replay kernel --format json \
      >"$bank/gp-kernel-$i.json" 2>&1
    "$landed/gpuperf" -q profile "$inst" --metrics "$counters" --format json >"$bank/gp-alone-$i.json" 2>&1
    "$landed/gpuperf" -q profile "$inst" --metrics "$counters" --no-warm-launch --format json \
      >"$bank/gp-nowarm-$i.json" 2>&1
  done
  "$landed/gpuperf" -q profile "$inst" --metrics "$mix" --format json >"$bank/gp-mix.json" 2>&1
  python3 - "$bank" >"$out/bank.txt" <<'EOF' 2>&1
import csv, glob, json, os, sys
bank = sys.argv[1]
names = {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "conf_ld",
         "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "conf_st",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "wave_ld",
         "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "wave_st",
         "smsp__sass_inst_executed_op_shared_ld.sum": "inst_ld",
         "smsp__sass_inst_executed_op_shared_st.sum": "inst_st"}
def ncu(path):
    lines = [l for l in open(path) if not l.startswith("==")]
    rows = list(csv.reader(lines))
    at = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), None)
    if at is None:
        return {}
    data = [r for r in rows[at + 1:] if r and r[0].strip().isdigit()]
    return dict(zip(rows[at], data[-1])) if data else {}
def ours(path):
    try:
        j = json.load(open(path))
    except Exception:
        return {}
    m = j["results"][0]["metrics"] if j.get("results") else {}
    return {k: v.get("value") for k, v in m.items()}
print(f'{"source":<22}' + "".join(f"{v:>12}" for v in names.values()) + f'{"ld+st":>10}')
for path in sorted(glob.glob(os.path.join(bank, "*.csv")) + glob.glob(os.path.join(bank, "gp-*.json"))):
    vals = ncu(path) if path.endswith(".csv") else ours(path)
    cells, total = [], 0.0
    for full in names:
        v = vals.get(full)
        try:
            v = float(str(v).replace(",", ""))
            total += v if "conflicts" in full else 0
            cells.append(f"{v:>12.0f}")
        except (TypeError, ValueError):
            cells.append(f'{"-":>12}')
    print(f"{os.path.basename(path).rsplit('.', 1)[0]:<22}" + "".join(cells) + f"{total:>10.0f}")
EOF
  row "bank conflicts matvec/shared" "info" "table in bank.txt ($(grep -c . "$out/bank.txt") lines)"
fi

# --- tests: every GPU test executable N times in a row, last, within the time left ------------------------
if want tests; then
  smi_fields=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw,clocks_event_reasons.active
  nvidia-smi --query-gpu=$smi_fields --format=csv >/dev/null 2>&1 || smi_fields=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw
  nvidia-smi --query-gpu=$smi_fields --format=csv -lms 250 >"$log/smi-clocks.csv" 2>&1 &
  smi=$!
  tests=()
  for t in "$landed"/test_*_gpu; do [[ -x $t ]] && tests+=("$t"); done
  declare -A passed=()
  rounds=0
  # Round after round (every executable once per round) while the last round fits before the deadline.
  while ((rounds < test_runs)); do
    start=$SECONDS
    ((rounds > 0 && SECONDS + last_round > deadline)) && break
    for t in "${tests[@]}"; do
      name=$(basename "$t")
      if "$t" --gtest_brief=1 >"$log/$name-$((rounds + 1)).log" 2>&1; then passed[$name]=$((${passed[$name]:-0} + 1)); fi
    done
    rounds=$((rounds + 1))
    last_round=$((SECONDS - start))
  done
  kill "$smi" 2>/dev/null
  wait "$smi" 2>/dev/null
  for t in "${tests[@]}"; do
    name=$(basename "$t")
    judge $((${passed[$name]:-0} == rounds))
    row "$name x$rounds" "$status" \
      "${passed[$name]:-0} of $rounds passed in a row$( ((rounds < test_runs)) && echo " (deadline: $test_runs asked)")"
  done
  # What the timing test printed (paired gap and per-round offsets), every run.
  grep -h 'paired:' "$log"/test_profiler_gpu-*.log >"$out/timing-agreement.txt" 2>/dev/null
fi

tar -czf "$out/logs.tar.gz" -C "$out" logs 2>/dev/null
for f in check.txt nightly-detect.txt timing-agreement.txt trace.txt bank.txt; do
  [[ -s $out/$f ]] && { echo "=== $f"; head -n 40 "$out/$f"; }
done
echo "=== onevalue_gpu: final table"
cat "$table"
exit "$worst"
