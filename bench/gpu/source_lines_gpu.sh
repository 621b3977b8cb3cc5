#!/usr/bin/env bash
# Per-source-line counters on this machine's GPU, in one go (issue 40's collection): the GPU tests (strided
# load line 8x its ideal sectors, coalesced 1x, naive against tiled matmul, the lines' sums against the
# kernel counters, every default instance), the default suite's wall time with source lines against without
# (interleaved rounds, `run --metrics default`), and Nsight Compute's per-line sectors for three kernels
# to compare with gpuperf's. Prints a table last; logs in --out.
#
#   bench/gpu/source_lines_gpu.sh [--build DIR] [--out DIR] [--rounds N] [--no-ncu]
#
# Needs from the build: cli/gpuperf, profiler/libgpuperf_cupti.so, tests/collector/test_source_lines_gpu.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../../build"
out=""
rounds=2
ncu_on=1
while (($#)); do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --no-ncu) ncu_on=0; shift ;;
    *) echo "source_lines_gpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[0-9]+$ ]] || { echo "source_lines_gpu.sh: --rounds '$rounds' is not a number" >&2; exit 2; }
[[ -n "$out" ]] || out="$(mktemp -d -t gpuperf-lines.XXXXXX)"
mkdir -p "$out"
gpuperf="$build/cli/gpuperf"
export GPUPERF_CUPTI_MODULE="${GPUPERF_CUPTI_MODULE:-$build/profiler/libgpuperf_cupti.so}"
for f in "$gpuperf" "$GPUPERF_CUPTI_MODULE" "$build/tests/collector/test_source_lines_gpu"; do
  [[ -e "$f" ]] || { echo "source_lines_gpu.sh: $f is missing: build it first" >&2; exit 2; }
done
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >"$out/gpu.txt" 2>&1

# 1. The GPU tests.
test_rc=0
"$build/tests/collector/test_source_lines_gpu" >"$out/test_source_lines_gpu.txt" 2>&1 || test_rc=$?

# 2. The suite's wall time, with source lines (the default) and without, interleaved.
: >"$out/wall.tsv"
for ((i = 1; i <= rounds; i++)); do
  for mode in without with; do
    flag=()
    [[ $mode == without ]] && flag=(--no-source-lines)
    rc=0
    start=$(date +%s.%N)
    GPUPERF_PHASE_TIMES=1 "$gpuperf" --quiet --db "$out/$mode.db" run --label wall --metrics default "${flag[@]}" \
      >"$out/run_${mode}_$i.txt" 2>&1 || rc=$?
    end=$(date +%s.%N)
    lines_s=$(awk '/gpuperf phase: source lines of a group/ { s += $(NF - 1) } END { printf "%.3f", s }' \
      "$out/run_${mode}_$i.txt" 2>/dev/null)
    got=$(grep -o 'source lines of [0-9]* of [0-9]* instances, [0-9]* lines' "$out/run_${mode}_$i.txt" | head -1)
    printf '%s\t%s\t%s\t%s\n' "$mode" "$i" "$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')" \
      "$rc ${lines_s}s ${got:-no source lines}" >>"$out/wall.tsv"
  done
done

# 3. Nsight Compute's per-instruction sectors (SourceCounters section), by CUDA line, for three kernels.
if ((ncu_on)) && command -v ncu >/dev/null; then
  for inst in 'memory/strided[stride=32]' 'memory/coalesced' 'matmul/naive[n=1024]'; do
    tag=$(echo "$inst" | tr -c 'a-z0-9\n' '_' | sed 's/_*$//')
    ncu --section SourceCounters --import-source yes --profile-from-start off --clock-control none -f -o "$out/ncu_$tag" \
      "$gpuperf" profile --launch-only "$inst" >"$out/ncu_${tag}_log.txt" 2>&1
    for view in cuda sass; do
      ncu --import "$out/ncu_$tag.ncu-rep" --page source --csv --print-source "$view" \
        >"$out/ncu_${tag}_$view.csv" 2>"$out/ncu_${tag}_$view.err"
    done
  done
fi

# The table.
echo "GPU: $(cat "$out/gpu.txt")"
echo "test_source_lines_gpu: exit $test_rc ($(grep -cE '^\[       OK \]' "$out/test_source_lines_gpu.txt") passed," \
  "$(grep -cE '^\[  FAILED  \]' "$out/test_source_lines_gpu.txt") failed lines)"
grep -E '^(memory|matmul)/.*status|sums:|^  [a-z_]+\.cu:[0-9]+ .*\b(ld|shared) [1-9]|launch: ' \
  "$out/test_source_lines_gpu.txt" | head -40
printf '\nsuite wall time (s), run --metrics default:\n%-8s %-6s %-8s %s\n' mode round wall "rc pass-time source-lines"
awk -F'\t' '{ printf "%-8s %-6s %-8s %s\n", $1, $2, $3, $4 }' "$out/wall.tsv"
awk -F'\t' '{ s[$1] += $3; n[$1]++ } END { if (n["with"] && n["without"]) printf "mean: with %.2f s, without %.2f s, cost %.2f s\n", s["with"] / n["with"], s["without"] / n["without"], s["with"] / n["with"] - s["without"] / n["without"] }' "$out/wall.tsv"
for f in "$out"/ncu_*_cuda.csv "$out"/ncu_*_sass.csv; do
  [[ -s "$f" ]] || continue
  echo "ncu: $(basename "$f") ($(wc -l <"$f") rows); its first rows:"
  head -3 "$f" | cut -c1-400
done
exit $test_rc
