#!/usr/bin/env bash
# Issue 41 on a two-GPU machine, in one call: `gpuperf record` never hangs and never loses what it flushed.
#   hang  record_probe hang (50 kernels, 2.5 s, 10 more, then a kernel that never ends) recorded and killed
#         after 10 s: by SIGTERM (gpuperf passes it on), by SIGKILL (to the program), and under --metrics
#         with a 3 s watchdog (the hanging kernel is the first launch of its identity, so it is profiled: its
#         replay never ends, the watchdog gives it up) killed by SIGTERM after 12 s; what each stored.
#   ddp   record_matrix.py's torch-ddp cell: torchrun on 2 GPUs, DDP_RUNS plain runs and DDP_METRIC_RUNS
#         `--metrics default` runs (one at a time, each killed and counted as hung after 150 s), judged per
#         rank against torch.profiler's count. A rank is replayed one pass a launch by default (a replay of
#         every pass hung 1 run in 6: docs/record-ends.md), and every compute identity of each rank must have
#         counters; DDP_METRICS_ARGS '--profile-replay kernel' replays every pass, at that risk.
#   gpt2  record_matrix.py's gpt2 cell: GPT2_RUNS plain and GPT2_RUNS `--metrics default` runs; counters for
#         every identity, the profiling cost per launch (median, p95) and the wall time against plain.
#
#   bench/record/record_gpu41.sh [--part all|hang|ddp|gpt2] [--gpuperf BIN] [--probe BIN] [--out DIR]
#
# Defaults: the build carried in build/ (build/cli/gpuperf, build/profiler/libgpuperf_inject.so and
# libgpuperf_cupti.so, build/tests/record/record_probe), --out $OUT.
# `all` fits about 9 minutes by giving the two matrix cells deadlines (DDP_DEADLINE, GPT2_DEADLINE seconds):
# the table says how many runs finished by then; `--part ddp` alone has 500 s for its 20 + 20 runs. The logs
# go into DIR/gpu41-logs.tgz, the summary (printed last) into DIR/gpu41-summary.txt.
# Environment: DDP_RUNS (20), DDP_METRIC_RUNS (20), DDP_METRICS_ARGS ('--profile-launches 1': one profiled
# launch per identity keeps a run near 20 s), GPT2_RUNS (3), GPT2_METRICS_ARGS (''), DDP_DEADLINE,
# GPT2_DEADLINE.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
part=all gpuperf="$repo/build/cli/gpuperf" probe="$repo/build/tests/record/record_probe" out=${OUT:-}
while (($#)); do
  case "$1" in
    --part) part=$2; shift 2 ;;
    --gpuperf) gpuperf=$2; shift 2 ;;
    --probe) probe=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "record_gpu41.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case $part in all | hang | ddp | gpt2) ;; *) echo "record_gpu41.sh: --part all, hang, ddp or gpt2" >&2; exit 2 ;; esac
[[ -x $gpuperf && -x $probe && -n $out ]] || { echo "record_gpu41.sh: need --gpuperf, --probe and --out (or \$OUT)" >&2; exit 2; }
gpuperf=$(realpath "$gpuperf") probe=$(realpath "$probe")
# A build carried to another machine: its compiled-in build-tree paths do not exist there; point gpuperf at the
# injection library and the CUPTI back end next to it in the same build tree.
lib_dir=$(dirname "$gpuperf")/../profiler
if [[ -z ${GPUPERF_INJECT_LIBRARY:-} && -f $lib_dir/libgpuperf_inject.so ]]; then
  GPUPERF_INJECT_LIBRARY=$(realpath "$lib_dir/libgpuperf_inject.so")
  export GPUPERF_INJECT_LIBRARY
fi
if [[ -z ${GPUPERF_CUPTI_MODULE:-} && -f $lib_dir/libgpuperf_cupti.so ]]; then
  GPUPERF_CUPTI_MODULE=$(realpath "$lib_dir/libgpuperf_cupti.so")
  export GPUPERF_CUPTI_MODULE
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /tmp/gpu41.XXXXXX)
summary="$out/gpu41-summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
started=$(date +%s)
if [[ $part == all ]]; then ddp_deadline=${DDP_DEADLINE:-260} gpt2_deadline=${GPT2_DEADLINE:-140}; else
  ddp_deadline=${DDP_DEADLINE:-500} gpt2_deadline=${GPT2_DEADLINE:-480}
fi
nvidia-smi -L | tee "$work/gpus.txt"
git -C "$repo" log --oneline -1 2>/dev/null | tee -a "$work/gpus.txt"

# What a recorded hang stored: exit status, launches per kernel, the record's own lines about it.
stored() { # DB LOG RECORDS EXPECTED_EXIT_STATUS NEEDS_G(0|1)
  local db=$1 log=$2 records=$3
  python3 - "$gpuperf" "$db" "$log" "$records" "$4" "$5" <<'PY'
import json, os, re, subprocess, sys
gpuperf, db, log, records, want_exit, want_g = sys.argv[1:]
text = open(log, errors="replace").read()
runs = []
if os.path.exists(db):
    e = subprocess.run([gpuperf, "--db", db, "export"], capture_output=True, text=True)
    runs = json.loads(e.stdout)["runs"] if e.returncode == 0 else []
kept = {}
for r in runs:
    for res in r["results"]:
        name = res["benchmark"].split("/", 1)[1].replace("(anonymous namespace)::", "")
        kept[name] = kept.get(name, 0) + int(res["metrics"]["launches"]["value"])
g = [l.strip() for d, _, fs in os.walk(records) for f in fs for l in open(os.path.join(d, f), errors="replace")
     if l.startswith("G ")] if os.path.isdir(records) else []
exits = sorted({r.get("exit_status") for r in runs})
print(f"  stored runs {len(runs)}, exit status {exits}, launches {kept}")
print(f"  G lines {g}")
for pat in (r"incomplete: [^\n]*", r"had not finished[^\n]*", r"profiling was given up[^\n;]*", r"nothing recorded[^\n]*"):
    m = re.search(pat, text)
    if m:
        print("  record: " + m.group(0)[:220])
# The verdict: one run stored, the program's end as sent, the 50 launches before the pause kept, and for the
# watchdog case its G line.
ok = len(runs) == 1 and exits == [int(want_exit)] and kept.get("spin<4>", 0) >= 50 and (want_g == "0" or bool(g))
print(f"  {'ok  ' if ok else 'FAIL'} kept what was flushed before the hang")
PY
}

hang_case() { # NAME HOW(term|kill) SECONDS NEEDS_G(0|1) [record options...]
  local name=$1 how=$2 secs=$3 want_g=$4 want_exit=-15
  shift 4
  [[ $how == kill ]] && want_exit=-9
  local db="$work/$name.db" log="$work/$name.log" records="$work/$name-records" t0 rc
  t0=$(date +%s.%N)
  if [[ $how == term ]]; then
    # timeout sends SIGTERM to gpuperf, which passes it on to the program; a hard bound behind it.
    timeout -k 5 $((secs + 40)) timeout --preserve-status -s TERM "$secs" \
      "$gpuperf" --db "$db" record --keep-records "$records" "$@" -- "$probe" hang 50 >"$log" 2>&1
    rc=$?
  else
    "$gpuperf" --db "$db" record --keep-records "$records" "$@" -- "$probe" hang 50 >"$log" 2>&1 &
    local gp=$!
    sleep "$secs"
    local child
    child=$(pgrep -P "$gp" | head -1)
    [[ -n $child ]] && kill -KILL "$child"
    for _ in $(seq 1 40); do kill -0 "$gp" 2>/dev/null || break; sleep 1; done
    kill -0 "$gp" 2>/dev/null && { echo "gpuperf did not end 40 s after the kill" >>"$log"; kill -KILL "$gp"; }
    wait "$gp"
    rc=$?
  fi
  say "$name: record exit $rc after $(python3 -c "import time;print(f'{time.time()-$t0:.1f}')") s (killed at ${secs} s)"
  stored "$db" "$log" "$records" "$want_exit" "$want_g" | tee -a "$summary"
}

if [[ $part == all || $part == hang ]]; then
  say "== (a) a program that hangs in its own kernel, killed after 10 s =="
  say "   expected: spin<4> 50 (the 10 after the pause and the hanging wait_forever: kept by SIGTERM's last flush,"
  say "   lost to SIGKILL unless a periodic flush ran between them); exit status -15 / -9; never 'nothing recorded'"
  hang_case hang-sigterm term 10 0
  hang_case hang-sigkill kill 10 0
  say "   --metrics, 3 s watchdog: spin<4> 50 with counters, a G line naming wait_forever, 'profiling was given up',"
  say "   the run stored (the 10 after the pause may be lost: the flush skips CUPTI while the replay hangs)"
  hang_case hang-metrics-watchdog term 12 1 --metrics default --profile-watchdog-ms 3000
fi

matrix() { # NAME DEADLINE args...
  local name=$1 deadline=$2
  shift 2
  python3 "$here/record_matrix.py" --gpuperf "$gpuperf" --probe "$probe" --out "$work/$name" --deadline "$deadline" \
    "$@" >"$work/$name.txt" 2>&1
  say "== $name (deadline ${deadline} s): record_matrix.py $* =="
  sed -n '/^program /,$p' "$work/$name.txt" | tee -a "$summary"
}

if [[ $part == all || $part == ddp ]]; then
  matrix ddp "$ddp_deadline" --only torch-ddp --runs "${DDP_RUNS:-20}" --runs-metrics "${DDP_METRIC_RUNS:-20}" \
    --jobs 4 --run-timeout 150 --metrics-args "${DDP_METRICS_ARGS:---profile-launches 1}"
  # The per-rank counts of the reference run and one recorded run's summary lines, to quote.
  grep -h "^rank " "$work/ddp/torch-ddp-count.log" 2>/dev/null | tee -a "$summary"
  grep -h "gpuperf: metrics:\|stored run" "$work"/ddp/torch-ddp-record--metrics*-0.log 2>/dev/null | cut -c1-400 |
    tee -a "$summary"
fi

if [[ $part == all || $part == gpt2 ]]; then
  matrix gpt2 "$gpt2_deadline" --only gpt2 --runs "${GPT2_RUNS:-3}" --jobs 3 --run-timeout 400 \
    --metrics-args "${GPT2_METRICS_ARGS:-}"
  grep -h "gpuperf: metrics:" "$work"/gpt2/gpt2-record--metrics*-0.log 2>/dev/null | cut -c1-600 | tee -a "$summary"
fi

say "record_gpu41: part $part, $(($(date +%s) - started)) s"
rm -rf "$work"/*/*.db "$work"/*.db-wal 2>/dev/null
tar czf "$out/gpu41-logs.tgz" -C "$work" . 2>/dev/null
echo
echo "===== summary ====="
cat "$summary"
