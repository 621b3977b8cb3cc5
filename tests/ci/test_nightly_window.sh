#!/usr/bin/env bash
# ci/nightly.sh --window (imported-data mode, no GPU): the nightly analyses each machine's newest N runs.
#  1. A step landing tonight, inside the window: the same verdict as the whole-history nightly (exit 1, the
#     same new findings), and the window's changes.json lists only changes within its runs.
#  2. A step older than the window: nothing new tonight (exit 0), as with the whole history; the whole
#     history's changes.json still lists the old step, the window's does not (what the window gives up).
#  3. A step one run inside the window's first run (the edge): nothing new tonight either.
#  4. Bad --window values are refused with exit 2 before anything is made.
#   test_nightly_window.sh GPUPERF_BIN
set -euo pipefail
gpuperf=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# history CASE NIGHTS STEP_AT WHICH: a database with nights 1..NIGHTS-1 imported, the last night's file left
# for the nightly to import.
history() {
  local case=$1 nights=$2 step_at=$3 which=$4
  python3 "$repo/tests/ci/make_nights.py" "$work/$case/nights" "$nights" "$step_at" "$which"
  local files=()
  for i in $(seq 1 $((nights - 1))); do files+=("$work/$case/nights/night-$(printf %02d "$i").json"); done
  "$gpuperf" --db "$work/$case/history.db" --quiet import "${files[@]}" >/dev/null
}
# nightly CASE NIGHT WINDOW -> exit code; artifacts in $work/CASE/art-WINDOW. Run twice on one history, the
# second finds tonight's run stored (a rerun) and must report what a first run would.
nightly() {
  local case=$1 n=$2 window=$3 rc=0
  shift 3
  bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$work/$case/history.db" --artifacts "$work/$case/art-$window$*" \
    --branch main --night "2026-10-$n" --import "$work/$case/nights/night-$n.json" --window "$window" --no-report \
    "$@" >"$work/$case/log-$window$*" 2>&1 || rc=$?
  echo "$rc"
}
# The new findings of a nightly: series and run of each, sorted.
findings() {
  python3 -c 'import json, sys
doc = json.load(open(sys.argv[1]))
for f in sorted((f["benchmark"], f["metric"], f["run_id"], f["kind"]) for f in doc["findings"]): print(*f)' "$1"
}
# The changes a nightly's changes.json lists: series and first run at the new level's started_at.
changes() {
  python3 -c 'import json, sys
for c in json.load(open(sys.argv[1]))["changes"]: print(c["benchmark"], c["metric"], c["run_id"])' "$1"
}

# 1. 24 nights, memory/coalesced loses coalescing on the last one (80% slower, gld/gst_efficiency 100% -> 50%).
history step-tonight 24 24 coalesced
rc=$(nightly step-tonight 24 16)
[[ $rc == 1 ]] || { cat "$work/step-tonight/log-16"; fail "--window 16: the step of tonight exited $rc, expected 1"; }
rc=$(nightly step-tonight 24 all)
[[ $rc == 1 ]] || { cat "$work/step-tonight/log-all"; fail "--window all: the step of tonight exited $rc, expected 1"; }
win=$(findings "$work/step-tonight/art-16/new-tonight.json")
all=$(findings "$work/step-tonight/art-all/new-tonight.json")
[[ -n $win ]] || fail "--window 16 found nothing new on the night of the step"
[[ $win == "$all" ]] || fail "the window's verdict differs from the whole history's: [$win] vs [$all]"
[[ $win == *"memory/coalesced duration"*"regression"* ]] || fail "the new finding is not the duration step: $win"
# --all-machines: the findings and reports cover every machine, each "new tonight" read is its own; the same.
rc=$(nightly step-tonight 24 16 --all-machines)
[[ $rc == 1 ]] || { cat "$work/step-tonight/log-16--all-machines"; fail "--window 16 --all-machines exited $rc"; }
[[ $(findings "$work/step-tonight/art-16--all-machines/new-tonight.json") == "$win" ]] ||
  fail "--window 16 --all-machines found other things than --window 16"
# Only the newest 16 runs of the machine: no change of the window's may start at a run older than them.
oldest=$("$gpuperf" --db "$work/step-tonight/history.db" runs --branch main --last 16 --format json |
  python3 -c 'import json, sys; print(min(r["id"] for r in json.load(sys.stdin)))')
while read -r _ _ run; do
  ((run >= oldest)) || fail "--window 16's changes.json lists a change at run $run, before the window's first ($oldest)"
done < <(changes "$work/step-tonight/art-16/changes.json")
echo "window: a step of tonight is the same finding with --window 16 as with the whole history ($win): ok"

# 2. 30 nights, memory/strided 25% slower from night 5: 25 nights before tonight, outside a 16-run window.
history step-old 30 5 strided
rc=$(nightly step-old 30 16)
[[ $rc == 0 ]] || { cat "$work/step-old/log-16"; fail "--window 16 and a step older than the window exited $rc"; }
rc=$(nightly step-old 30 all)
[[ $rc == 0 ]] || { cat "$work/step-old/log-all"; fail "--window all and an old step exited $rc (not new tonight)"; }
[[ -z $(findings "$work/step-old/art-16/new-tonight.json") ]] || fail "--window 16 reported something new"
changes "$work/step-old/art-all/changes.json" | grep -q '^memory/strided duration ' ||
  fail "the whole history's changes.json does not list the old step (the test's premise)"
! changes "$work/step-old/art-16/changes.json" | grep -q '^memory/strided duration ' ||
  fail "--window 16's changes.json lists the step 25 runs back, outside the window"
echo "window: a step older than the window is not new tonight, and is not listed by the window's detect: ok"

# 3. The window's edge: 30 nights, the step at night 15. Tonight's window (16 runs before tonight, and
#    tonight's) starts at night 14: one run at the old level, then the new one; before tonight's run the same.
history step-edge 30 15 strided
rc=$(nightly step-edge 30 16)
[[ $rc == 0 ]] || { cat "$work/step-edge/log-16"; fail "--window 16, a step at the window's edge: exit $rc"; }
[[ -z $(findings "$work/step-edge/art-16/new-tonight.json") ]] || fail "a step at the window's edge was new tonight"
echo "window: a step at the window's first runs is not new tonight: ok"

# 4. Refusals, before any folder is made.
for bad in 0 15 abc -3 ''; do
  rc=0
  bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$work/refused.db" --artifacts "$work/refused" \
    --import "$work/step-old/nights/night-01.json" --window "$bad" >"$work/refused.log" 2>&1 || rc=$?
  [[ $rc == 2 ]] || fail "--window '$bad' exited $rc, expected 2"
  grep -q -- "--window" "$work/refused.log" || fail "--window '$bad': the message does not name the option"
  [[ ! -e $work/refused && ! -e $work/refused.db ]] || fail "--window '$bad' made files before refusing"
done
echo "window: bad --window values are refused (exit 2) before anything is made: ok"
