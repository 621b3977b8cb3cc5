#!/usr/bin/env bash
# The team answers a nightly's finding (docs/answers.md), imported-data mode (no GPU): twelve nights, and on
# night 12 memory/strided gets 25% slower. That night fails with the finding; after `gpuperf ack` the same night
# run again and the next night do not list it as new, and their summary and report show it acknowledged with its
# reason; `ack --accept` makes the new level the baseline of `compare` (exit 0 where it was 1); `ack --undo`
# restores the first behaviour.
#   test_nightly_answers.sh GPUPERF_BIN sqlite|postgres
# Exit 77 (skipped) for postgres when no server binaries are installed and CI is not set.
set -euo pipefail
gpuperf=$(realpath "$1")
mode=${2:?sqlite or postgres}
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d); [[ -n ${KEEP:-} ]] && echo "work: $work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=/dev/null # bench/store/pg_throwaway.sh, checked on its own
. "$repo/bench/store/pg_throwaway.sh"
throwaway_store "$mode" "$work"
db=$THROWAWAY_DB

python3 "$repo/tests/ci/make_nights.py" "$work/nights" 13 12 strided
night() { # NIGHT TAG: that night's nightly; its exit status is echoed
  local rc=0
  bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$db" --artifacts "$work/art-$1$2" --branch main \
    --night "2026-10-$1" --import "$work/nights/night-$1.json" >"$work/log-$1$2" 2>&1 || rc=$?
  echo "$rc"
}
gp() { "$gpuperf" --db "$db" "$@"; }
for i in $(seq 1 11); do
  n=$(printf %02d "$i")
  [[ $(night "$n" "") == 0 ]] || { cat "$work/log-$n"; fail "night $n exited non-zero before the step"; }
done

# Night 12: the step, found and failed.
[[ $(night 12 "") == 1 ]] || { cat "$work/log-12"; fail "the night of the step did not exit 1"; }
grep -q '^\*\*1 new regression tonight\*\*' "$work/art-12/summary.md" || fail "night 12 does not list the step as new"
step_run=00000000-0000-4000-8000-000000000012
old_run=00000000-0000-4000-8000-000000000005
instance='memory/strided[n=16777216,stride=32]'
[[ $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["findings"][0]["run"])' \
  "$work/art-12/new-tonight.json") == "$step_run" ]] || fail "the finding does not start at night 12's run"

# Before any answer, the new level is a regression against a run before it.
rc=0; gp compare "$old_run" "$step_run" >"$work/compare-0" 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat "$work/compare-0"; fail "compare of the new level against night 5 exited $rc, expected 1"; }

# The team acknowledges it (known, tracked) without accepting it.
gp ack --run "$step_run" --benchmark "$instance" --metric duration --reason 'tracked in #123' \
  --link https://example.org/123 --by ana >"$work/ack" || fail "ack failed: $(cat "$work/ack")"
grep -q 'acknowledged memory/strided' "$work/ack" || fail "ack did not say what it acknowledged: $(cat "$work/ack")"
[[ $(night 12 -again) == 0 ]] || { cat "$work/log-12-again"; fail "night 12 run again after the ack still failed"; }
f="$work/art-12-again/summary.md"
{
  grep -q 'No new regressions tonight' "$f" || { cat "$f"; fail "the acknowledged step is still new"; }
  grep -q 'acknowledged: tracked in #123' "$f" || { cat "$f"; fail "the summary does not show the acknowledgement"; }
}
grep -qE '^\| memory/strided.*\| acknowledged: tracked in \\#123' "$work/art-12-again/report.md" ||
  fail "report.md's Regressions table does not show the step as acknowledged with its reason"
grep -q 'acknowledged: tracked in #123' "$work/art-12-again/report.html" || fail "report.html does not show the answer"
[[ $(night 13 "") == 0 ]] || { cat "$work/log-13"; fail "night 13 failed"; }
grep -q 'No new regressions tonight' "$work/art-13/summary.md" || fail "night 13 lists the acknowledged step as new"
grep -q 'acknowledged: tracked in #123' "$work/art-13/summary.md" || fail "night 13 does not show the acknowledgement"
rc=0; gp compare "$old_run" "$step_run" >/dev/null 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "an acknowledgement without --accept changed the baseline (compare exited $rc)"

# Accepted: the step is the new baseline of the series.
gp ack --undo --run "$step_run" --benchmark "$instance" --metric duration >/dev/null || fail "undo failed"
gp ack --accept --run "$step_run" --benchmark "$instance" --metric duration --reason 'new kernel: correct, slower' \
  >/dev/null || fail "ack --accept failed"
rc=0; gp compare "$old_run" 00000000-0000-4000-8000-000000000013 >"$work/compare-1" 2>&1 || rc=$?
[[ $rc == 0 ]] || { cat "$work/compare-1"; fail "compare of the new level after --accept exited $rc, expected 0"; }
grep -q 'baseline: accepted step at run 00000000: new kernel' "$work/compare-1" ||
  gp compare "$old_run" 00000000-0000-4000-8000-000000000013 --all | grep -q 'accepted step' ||
  fail "compare does not say the baseline came from the accepted step"
gp compare "$old_run" 00000000-0000-4000-8000-000000000013 --format json | python3 -c '
import json, sys
rows = [r for r in json.load(sys.stdin)["rows"] if r.get("accepted_baseline")]
assert rows and rows[0]["accepted_baseline"]["accepted"], rows' || fail "compare JSON lacks the accepted baseline"
gp detect --fail-on-regression >/dev/null || fail "detect --fail-on-regression fails on an accepted step"
gp detect --format json | grep -q '"accepted": true' || fail "detect JSON does not carry the acceptance"

# Undone: the first behaviour again.
gp ack --undo --run "$step_run" --benchmark "$instance" --metric duration >/dev/null || fail "undo failed"
rc=0; gp compare "$old_run" 00000000-0000-4000-8000-000000000013 >/dev/null 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "compare after the undo exited $rc, expected 1"
[[ $(night 12 -undone) == 1 ]] || { cat "$work/log-12-undone"; fail "night 12 after the undo did not fail again"; }
grep -q '^\*\*1 new regression tonight\*\*' "$work/art-12-undone/summary.md" || fail "the undone step is not new again"
gp ack --list | grep -q 'undone, was accepted' || fail "ack --list does not keep the undone acknowledgement"
echo "nightly ($mode): finding, acknowledgement, acceptance and undo: ok"
