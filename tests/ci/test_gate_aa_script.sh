#!/usr/bin/env bash
# bench/detect/gate_aa_gpu.sh without a GPU: stand-in gpuperf executables answer `run` and `check` as the real one
# does (JSON rows with "gated"); the script's table, its verdict and its exit code follow them. And the patch
# that makes the plant still applies.
#   test_gate_aa_script.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

(cd "$repo" && git apply --check bench/detect/patches/lose_occupancy.patch) || fail "bench/detect/patches/lose_occupancy.patch no longer applies"

# fake BIN ROWS_JSON EXIT: a gpuperf whose `run` stores nothing and whose `check` prints ROWS_JSON, exits EXIT.
fake() {
  cat >"$work/$1" <<SH
#!/usr/bin/env bash
for a in "\$@"; do
  if [[ \$a == run ]]; then exit 0; fi
  if [[ \$a == check ]]; then echo '{"regression": false, "rows": $2}'; exit $3; fi
done
exit 2
SH
  chmod +x "$work/$1"
}
same='{"benchmark": "stencil1d/shared", "params": {}, "metric": "duration", "verdict": "same", "gated": true, "change_pct": 0.1, "note": ""}'
stall='{"benchmark": "memory/strided", "params": {"stride": 32}, "metric": "stall_not_selected", "verdict": "slower", "gated": false, "change_pct": 12.0, "note": ""}'
plant='{"benchmark": "stencil1d/shared", "params": {}, "metric": "duration", "verdict": "slower", "gated": true, "change_pct": 21.5, "note": "with static_shared_bytes 1.05 kB -> 46.1 kB, theoretical_occupancy 100% -> 50%, achieved_occupancy 84.8% -> 47.1%"}'
fake quiet "[$same]" 0
fake wobbly "[$same, $stall]" 0
fake planted "[$plant]" 1
fake unnamed "[${plant/achieved_occupancy 84.8% -> 47.1%/registers 32 -> 32}]" 1

rc=0
bash "$repo/bench/detect/gate_aa_gpu.sh" --gpuperf "$work/quiet" --patched "$work/planted" --checks 3 --nightlies 2 \
  --out "$work/ok" >"$work/log" 2>&1 || rc=$?
[[ $rc == 0 ]] || { cat "$work/log"; fail "quiet A/A and a caught plant: exit $rc, expected 0"; }
grep -qE '^A/A 3 +0 +0 +0 +0 +0 +0' "$work/log" || { cat "$work/log"; fail "the table lacks A/A check 3's row"; }
grep -qE '^plant +1 +1 +0 .*achieved_occupancy named' "$work/log" || { cat "$work/log"; fail "the plant's row"; }
grep -q "A/A: every check exit 0, no row slower or faster" "$work/log" || fail "the A/A verdict"

# A slower row that does not gate still fails the A/A (the issue's bar: no row slower or faster), and a plant
# whose duration finding does not name achieved occupancy is not caught.
rc=0
bash "$repo/bench/detect/gate_aa_gpu.sh" --gpuperf "$work/wobbly" --patched "$work/unnamed" --checks 2 --nightlies 1 \
  --out "$work/bad" >"$work/log2" 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat "$work/log2"; fail "a slower row in the A/A: exit $rc, expected 1"; }
grep -qE '^A/A 1 +0 +0 +1 ' "$work/log2" || { cat "$work/log2"; fail "the ungated slower row is not counted"; }
grep -q "A/A: FAILED" "$work/log2" || fail "the A/A verdict does not say FAILED"
grep -q "plant: NOT caught" "$work/log2" || fail "the plant verdict does not say NOT caught"
grep -q "memory/strided\[stride=32\] stall_not_selected slower (not gated) +12.00%" "$work/bad/check-1.log" ||
  fail "check-1.log does not list the row"
bash "$repo/bench/detect/gate_aa_gpu.sh" --gpuperf "$work/none" >/dev/null 2>&1 && fail "a missing --gpuperf was accepted"
echo "gate_aa_gpu.sh: table, verdicts and exit codes: ok"
