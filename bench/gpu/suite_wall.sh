#!/usr/bin/env bash
# Wall time of the whole default suite on this machine's GPU, as a table: timing only (the target is under
# 60 s on one H200), --quick, --hot, and with the default hardware metrics, whose cost over timing only
# must stay under 2 s (`run` profiles the suite in groups, one CUPTI session each). Every run also checks
# that all instances verified (exit 0). Then, from the stored runs: the durations of the metrics run against
# the timing-only run (`gpuperf compare`, duration only: profiling must not move them) and the stored
# metrics of the four reference instances.
#
#   bench/gpu/suite_wall.sh [--gpuperf PATH] [--out DIR]
#
# The metric cost alone, as interleaved pairs: timing-only runs of one process vary by about 1 s, so one
# pair says little. `--pairs N` runs N rounds of (timing only, default metrics) per build, the builds
# interleaved within each round, and prints per build the medians and the median and range of the N
# differences; `--build LABEL=PATH` (repeatable) names the builds compared (default: the one gpuperf).
# `--phases` sets GPUPERF_PHASE_TIMES=1 and sums each run's phase lines (a build that prints none shows -):
# where the seconds go (set-up, random input, CPU reference, verification, warm-up, sampling with the GPU
# time of kernels, L2 flushes and clock probes, profiling sessions, store, the rest). With 2 rounds or
# more it also prints per build the spread of the timing-only runs' medians (bench/stability.py, < 2%) and
# A/A (`gpuperf compare` of consecutive timing-only runs), so a faster build is seen to measure as well.
# Target (issue 43): the default suite with default metrics under 10 s on an H100.
#
#   bench/gpu/suite_wall.sh --pairs N [--build LABEL=PATH]... [--phases] [--out DIR]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
gpuperf="${GPUPERF:-$here/../../build/cli/gpuperf}"
out=""
pairs=0
builds=()
phases=0
while (($#)); do
  case "$1" in
    --gpuperf) gpuperf="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --pairs) pairs="$2"; shift 2 ;;
    --build) builds+=("$2"); shift 2 ;;
    --phases) phases=1; shift ;;
    *) echo "suite_wall.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ $pairs =~ ^[0-9]+$ ]] || { echo "suite_wall.sh: --pairs '$pairs' is not a number of rounds" >&2; exit 2; }
[[ -n "$out" ]] || out="$(mktemp -d -t gpuperf-wall.XXXXXX)"
mkdir -p "$out"

if ((pairs > 0)); then
  ((${#builds[@]})) || builds=("gpuperf=$gpuperf")
  for b in "${builds[@]}"; do
    [[ "$b" == *=* && -x "${b#*=}" ]] || { echo "suite_wall.sh: --build '$b' is not LABEL=EXECUTABLE" >&2; exit 2; }
  done
  env_phase=()
  ((phases)) && env_phase=(env GPUPERF_PHASE_TIMES=1)
  : >"$out/pairs.tsv"
  rc_all=0
  for ((i = 1; i <= pairs; i++)); do
    for b in "${builds[@]}"; do
      label="${b%%=*}" exe="${b#*=}"
      for metrics in none default; do
        log="$out/${label}_${metrics}_$i.txt"
        rc=0
        start=$(date +%s.%N)
        "${env_phase[@]}" "$exe" --quiet --db "$out/$label.db" run --label wall --metrics "$metrics" >"$log" 2>&1 || rc=$?
        end=$(date +%s.%N)
        ((rc == 0)) || rc_all=1
        printf '%s\t%s\t%s\t%s\n' "$label" "$i" "$metrics" "$(awk -v s="$start" -v e="$end" -v rc="$rc" \
          'BEGIN { printf "%.2f\t%d", e - s, rc }')" >>"$out/pairs.tsv"
      done
    done
  done
  python3 - "$out" "$phases" "${builds[@]%%=*}" <<'PY' || rc_all=1
import collections, glob, os, re, statistics, sys
out, phases, labels = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
walls = collections.defaultdict(dict)  # (label, round) -> {metrics: seconds}
bad = []
for line in open(os.path.join(out, "pairs.tsv")):
    label, rnd, metrics, wall, rc = line.split("\t")
    walls[(label, int(rnd))][metrics] = float(wall)
    if int(rc) != 0:
        bad.append(f"{label} round {rnd} --metrics {metrics}: exit {rc.strip()}")
print("| build | pairs | timing only (median) | with default metrics (median) | added: median | added: range | verdict |"
      " metrics run |")
print("|---|---:|---:|---:|---:|---:|---|---|")
for label in labels:
    rounds = sorted(r for (l, r) in walls if l == label)
    none = [walls[(label, r)]["none"] for r in rounds]
    full = [walls[(label, r)]["default"] for r in rounds]
    added = [f - n for n, f in zip(none, full)]
    med = statistics.median(added)
    print(f"| {label} | {len(rounds)} | {statistics.median(none):.1f} s | {statistics.median(full):.1f} s | "
          f"{med:+.2f} s | {min(added):+.2f} .. {max(added):+.2f} s | {'ok' if med <= 2.0 else 'MISSED'} (< 2 s) | "
          f"{'ok' if statistics.median(full) < 10.0 else 'MISSED'} (< 10 s, H100) |")
if phases:
    # Median over the rounds of each phase line's seconds (summed within a run), per build and metrics.
    # The process's own phases (before measuring, run, store) leave "the rest": process start and exit,
    # output. "instances:" lines are per-instance phases summed over the run, inside "run"; lines ending
    # in (count) are counts, not seconds.
    print()
    print("| build | metrics | phase | median s |")
    print("|---|---|---|---:|")
    top = ("before measuring", "collector start", "run (timing and profiling)", "store (open, insert)")
    for label in labels:
        for metrics in ("none", "default"):
            per = collections.defaultdict(list)
            for path in sorted(glob.glob(os.path.join(out, f"{label}_{metrics}_*.txt"))):
                rnd = int(re.search(r"_(\d+)\.txt$", path).group(1))
                sums = collections.defaultdict(float)
                for m in re.finditer(r"^gpuperf phase: (.*?) ([0-9.]+)( s)?$", open(path).read(), re.M):
                    name = re.sub(r"\b\d+ instance\(s\)|group of \d+", "N", m.group(1))
                    sums[name] += float(m.group(2))
                if not sums:
                    continue
                wall = walls[(label, rnd)][metrics]
                sums["process (wall)"] = wall
                sums["the rest (process start and exit, output)"] = wall - sum(
                    v for k, v in sums.items() if k.startswith(top))
                for k, v in sums.items():
                    per[k].append(v)
            for k, v in per.items():
                digits = 0 if k.endswith("(count)") else 3
                print(f"| {label} | {metrics} | {k} | {statistics.median(v):.{digits}f} |")
for b in bad:
    print("FAILED:", b)
sys.exit(1 if bad else 0)
PY
  # Measured no worse: per build, the spread of the timing-only runs' medians (bench/stability.py, the
  # rounds' timing-only runs are ids 1, 3, 5, ... of its database) and A/A (`gpuperf compare` of
  # consecutive timing-only runs: every instance should read same).
  if ((pairs >= 2)); then
    echo
    echo "| build | spread of medians over $pairs timing-only runs | A/A: consecutive timing-only runs |"
    echo "|---|---|---|"
    for b in "${builds[@]}"; do
      label="${b%%=*}" exe="${b#*=}"
      files=() aa=()
      for ((i = 1; i <= pairs; i++)); do
        id=$((2 * i - 1))
        "$exe" --quiet --db "$out/$label.db" export --run "$id" -o "$out/${label}_run$id.json" >/dev/null
        files+=("$out/${label}_run$id.json")
        if ((i > 1)); then
          "$exe" --db "$out/$label.db" compare $((id - 2)) "$id" --metric duration --history 0 \
            >"$out/${label}_aa_$id.txt" 2>&1 || true
          aa+=("$(grep -oE '[0-9]+ rows: .*' "$out/${label}_aa_$id.txt" | sed 's/ (.*//' | head -n 1)")
        fi
      done
      python3 "$here/stability.py" --threshold-us 20 --max-spread 0.02 "${files[@]}" >"$out/${label}_stability.txt" ||
        rc_all=1
      spread=$(grep -E "worst spread" "$out/${label}_stability.txt" | tail -n 1)
      echo "| $label | ${spread:-see $out/${label}_stability.txt} | $(IFS=';'; echo "${aa[*]}") |"
    done
  fi
  exit "$rc_all"
fi

[[ -x "$gpuperf" ]] || { echo "suite_wall.sh: no gpuperf executable at $gpuperf (use --gpuperf)" >&2; exit 2; }
rm -f "$out/wall.db" "$out/wall.db-wal" "$out/wall.db-shm"  # run ids 1..4 below are this script's

rows=()
walls=()
missed=0
measure() {  # label target_s args...
  local label="$1" target="$2"
  shift 2
  local start end rc=0
  start=$(date +%s.%N)
  "$gpuperf" --quiet --db "$out/wall.db" run --label "wall" "$@" > "$out/${label// /_}.txt" 2>&1 || rc=$?
  end=$(date +%s.%N)
  walls+=("$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')")
  local row
  row=$(awk -v l="$label" -v s="$start" -v e="$end" -v t="$target" -v rc="$rc" 'BEGIN {
    w = e - s; v = (rc != 0) ? "exit " rc : (t == "-" ? "-" : (w < t ? "ok" : "MISSED"));
    printf "| %s | %.1f | %s | %s |", l, w, (t == "-" ? "-" : "< " t), v }')
  rows+=("$row")
  [[ "$row" == *MISSED* || $rc != 0 ]] && missed=1
  return 0
}
measure "timing only (--metrics none)" 60 --metrics none
measure "timing only, --quick" - --metrics none --quick
measure "timing only, --hot" - --metrics none --hot
measure "timing + default metrics" - --metrics default

added=$(awk -v a="${walls[0]}" -v b="${walls[3]}" 'BEGIN { printf "%.1f", b - a }')
verdict=$(awk -v d="$added" 'BEGIN { print (d <= 2.0 ? "ok" : "MISSED") }')
[[ $verdict == ok ]] || missed=1
rows+=("| added by default metrics | $added | < 2 | $verdict |")

printf '| default suite | wall (s) | target | verdict |\n|---|---|---|---|\n'
printf '%s\n' "${rows[@]}"
grep -h "instances:" "$out"/*.txt | sed 's/^/  /'

# Run 1 is timing only, run 4 timing + default metrics: profiling must leave the durations where they were.
echo "durations, run 4 (with metrics) against run 1 (timing only):"
"$gpuperf" --db "$out/wall.db" compare 1 4 --metric duration --history 0 > "$out/durations.txt" 2>&1 || true
grep -iE "same|faster|slower|ambiguous" "$out/durations.txt" | tail -n 3 | sed 's/^/  /'
"$gpuperf" --db "$out/wall.db" export --run 4 -o "$out/run4.json"
echo "stored metrics of the reference instances (run 4):"
python3 - "$out/run4.json" <<'PY'
import json, sys
names = {"memory/coalesced": {}, "memory/strided": {"stride": 32}, "matmul/naive": {"n": 1024},
         "matmul/tiled": {"n": 1024, "tile": 16}}
for r in json.load(open(sys.argv[1]))["runs"][0]["results"]:
    want = names.get(r["benchmark"])
    if want is None or any(r.get("params", {}).get(k) != v for k, v in want.items()):
        continue
    if r["benchmark"] == "memory/coalesced" and r.get("params", {}).get("n") not in (None, 16777216):
        continue
    m = r.get("metrics", {})
    val = lambda k: m.get(k, {}).get("value", m.get(k, {}).get("summary", {}).get("median", "-"))
    print(f"  {r['benchmark']:16} {json.dumps(r.get('params', {})):28} gld_efficiency={val('gld_efficiency')} "
          f"shared_load_transactions={val('shared_load_transactions')} "
          f"shared_store_transactions={val('shared_store_transactions')}")
PY
exit "$missed"
