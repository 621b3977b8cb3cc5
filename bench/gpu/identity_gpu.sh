#!/usr/bin/env bash
# What changed besides the code (issue 54) on a GPU, in one go; builds nothing (build here first):
#   1. the suite twice on one GPU (and once on a second GPU of the same model, when there is one): every
#      instance's code fingerprint must be the same in both runs;
#   2. identity_bench_b (one kernel edited) checked against a run of identity_bench_a: "code changed" for
#      identity/scale's duration row, "same code" for identity/map's;
#   3. `runs show` of the last run: the machine and the environment NVML gave;
#   4. `record` of a small PyTorch program (bench/gpu/identity_torch.py): the cuBLAS, cuDNN and NCCL versions and
#      torch's stored in the run's environment (skipped without torch).
# Prints a table last (ok/FAIL per check); logs in --out.
#
#   bash bench/gpu/identity_gpu.sh [--build DIR] [--out DIR]
#
# Needs from the build: cli/gpuperf, profiler/libgpuperf_cupti.so, profiler/libgpuperf_inject.so,
# tests/profiler/identity_bench_a and identity_bench_b.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
build="$here/../../build"
out=""
while (($#)); do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    *) echo "identity_gpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
build=$(cd "$build" && pwd)
[[ -n "$out" ]] || out="$(mktemp -d -t gpuperf-identity.XXXXXX)"
mkdir -p "$out"
out=$(cd "$out" && pwd)
gp="$build/cli/gpuperf"
bench_a="$build/tests/profiler/identity_bench_a"
bench_b="$build/tests/profiler/identity_bench_b"
export GPUPERF_CUPTI_MODULE="$build/profiler/libgpuperf_cupti.so"
export GPUPERF_INJECT_LIBRARY="$build/profiler/libgpuperf_inject.so"
for f in "$gp" "$bench_a" "$bench_b" "$GPUPERF_CUPTI_MODULE" "$GPUPERF_INJECT_LIBRARY"; do
  [[ -e "$f" ]] || { echo "identity_gpu.sh: $f is missing: build it first" >&2; exit 2; }
done
db="$out/identity.db"
results=()
# expect_line PATTERN FILE CHECK: ok when FILE has a line matching PATTERN.
expect_line() { if grep -q "$1" "$2"; then verdict ok "$3"; else verdict FAIL "$3"; fi; }
verdict() { results+=("$(printf '%-4s %s' "$1" "$2")"); }
last_run() { "$gp" --db "$db" runs --format json --last 1 | python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["id"])'; }
nvidia-smi --query-gpu=index,name,driver_version --format=csv,noheader >"$out/gpus.txt" 2>&1

# 1. The suite twice on GPU 0, once on GPU 1 when it has the same name.
ids=()
for round in 1 2; do
  "$gp" --db "$db" --quiet run --quick --metrics none --branch suite --label "twice-$round" >"$out/suite_$round.txt" 2>&1
  ids+=("$(last_run)")
done
gpus=$(wc -l <"$out/gpus.txt")
if ((gpus >= 2)) && [[ "$(sed -n 1p "$out/gpus.txt" | cut -d, -f2)" == "$(sed -n 2p "$out/gpus.txt" | cut -d, -f2)" ]]; then
  "$gp" --db "$db" --quiet run --quick --metrics none --device 1 --branch suite --label other-gpu >"$out/suite_gpu1.txt" 2>&1
  ids+=("$(last_run)")
fi
for id in "${ids[@]}"; do "$gp" --db "$db" export --run "$id" -o "$out/run_$id.json"; done
python3 - "$out" "${ids[@]}" >"$out/fingerprints.txt" <<'PY'
import json, sys
out, ids = sys.argv[1], sys.argv[2:]
def codes(i):
    run = json.load(open(f"{out}/run_{i}.json"))["runs"][0]
    return {r["benchmark"] + json.dumps(r["params"], sort_keys=True): r.get("code", {}).get("fingerprint", "")
            for r in run["results"]}
first = codes(ids[0])
for i in ids[1:]:
    other = codes(i)
    same = sum(1 for k, v in first.items() if v and other.get(k) == v)
    print(f"run {ids[0]} vs {i}: {len(first)} instances, {sum(1 for v in first.values() if v)} with a fingerprint, "
          f"{same} equal")
PY
cat "$out/fingerprints.txt"
while read -r line; do
  n=$(sed -E 's/.*: ([0-9]+) instances, ([0-9]+) with a fingerprint, ([0-9]+) equal/\1 \2 \3/' <<<"$line")
  read -r total with equal <<<"$n"
  if ((total > 0 && with == total && equal == total)); then verdict ok "$line"; else verdict FAIL "$line"; fi
done <"$out/fingerprints.txt"

# 2. One kernel edited: check b against a.
"$bench_a" --db "$db" --quiet run --quick --metrics none --branch base >"$out/bench_a.txt" 2>&1
"$bench_b" --db "$db" --quiet check --quick --metrics none --branch edit --baseline branch:base --all \
  --format json >"$out/check.json" 2>"$out/check.err"
python3 - "$out/check.json" >"$out/check_codes.txt" <<'PY'
import json, sys
for row in json.load(open(sys.argv[1]))["rows"]:
    if row["metric"] == "duration":
        print(row["benchmark"], row.get("code", "(none)"), row["verdict"])
PY
cat "$out/check_codes.txt"
expect_line '^identity/scale code changed' "$out/check_codes.txt" "check: identity/scale code changed"
expect_line '^identity/map same code' "$out/check_codes.txt" "check: identity/map same code"

# 3. runs show.
"$gp" --db "$db" runs show "${ids[0]}" | tee "$out/runs_show.txt"
expect_line '^  driver ' "$out/runs_show.txt" "runs show: driver"
expect_line '^  power_limit_w ' "$out/runs_show.txt" "runs show: power limit (NVML)"

# 4. record of a PyTorch program.
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  "$gp" --db "$db" record --name torchid -- python3 "$here/identity_torch.py" >"$out/record.txt" 2>&1
  rid=$(last_run)
  "$gp" --db "$db" runs show "$rid" | tee "$out/record_show.txt"
  for lib in lib.cublas lib.cudnn lib.nccl framework.torch; do
    expect_line "^  $lib " "$out/record_show.txt" "record: $lib stored"
  done
  "$gp" --db "$db" export --run "$rid" | python3 -c '
import json, sys
rs = json.load(sys.stdin)["runs"][0]["results"]
print(sum(1 for r in rs if r.get("code", {}).get("fingerprint")), "of", len(rs), "recorded kernels with a fingerprint")' |
    tee "$out/record_codes.txt"
else
  verdict skip "record of PyTorch (no torch with CUDA here)"
fi

echo
echo "== identity_gpu.sh ($(head -1 "$out/gpus.txt"); logs in $out)"
printf '%s\n' "${results[@]}"
! printf '%s\n' "${results[@]}" | grep -q '^FAIL'
