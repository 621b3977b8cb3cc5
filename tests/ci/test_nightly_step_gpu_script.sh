#!/usr/bin/env bash
# bench/detect/nightly_step_gpu.sh without a GPU (--import-dir): three landed nights and an edited one in
# imported data give exit 0 and the finding; with no step on the fourth night the script says FAILED.
# And the patch that makes the edited build still applies.
#   test_nightly_step_gpu_script.sh GPUPERF_BIN
set -euo pipefail
gpuperf=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# The edit still applies to the kernels as they are now (git apply works outside a repository too).
(cd "$repo" && git apply --check bench/detect/patches/lose_coalescing.patch) || fail "bench/detect/patches/lose_coalescing.patch no longer applies"

python3 "$repo/tests/ci/make_nights.py" "$work/step" 4 4 coalesced
rc=0
bash "$repo/bench/detect/nightly_step_gpu.sh" --landed "$gpuperf" --edited "$gpuperf" --out "$work/out" \
  --import-dir "$work/step" >"$work/log" 2>&1 || rc=$?
[[ $rc == 0 ]] || { cat "$work/log"; fail "a step on the fourth night: exit $rc, expected 0"; }
grep -qE '^2026-01-04  edited +1 +1 ' "$work/log" || { cat "$work/log"; fail "the table lacks the edited night's exit 1"; }
grep -qE '^\| memory/coalesced\[n=16777216\] \| duration \| .*unconfirmed \(1 run\).*gld_efficiency 100% -> 50%' \
  "$work/log" || { cat "$work/log"; fail "the finding is not printed with gld_efficiency"; }
[[ -s $work/out/summary-2026-01-04.md && -s $work/out/history.db ]] || fail "missing summary or database"

# --expect-line: these nights carry no source lines, so a line cannot be named and the step fails.
rc=0
bash "$repo/bench/detect/nightly_step_gpu.sh" --landed "$gpuperf" --edited "$gpuperf" --out "$work/out3" \
  --import-dir "$work/step" --expect-line 'out[j] = in[j]' >"$work/log3" 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat "$work/log3"; fail "--expect-line without lines: exit $rc, expected 1"; }
grep -q 'and the line "out\[j\] = in\[j\]" (logs:' "$work/log3" || { cat "$work/log3"; fail "--expect-line: no reason"; }

python3 "$repo/tests/ci/make_nights.py" "$work/flat" 4 9 coalesced
rc=0
bash "$repo/bench/detect/nightly_step_gpu.sh" --landed "$gpuperf" --edited "$gpuperf" --out "$work/out2" \
  --import-dir "$work/flat" >"$work/log2" 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat "$work/log2"; fail "no step: exit $rc, expected 1"; }
grep -q "FAILED: expected exits 0 0 0 1 (got 0 0 0 0)" "$work/log2" || fail "no step: the verdict does not say why"
echo "nightly_step_gpu.sh: the step night's finding and the failure without one: ok"
