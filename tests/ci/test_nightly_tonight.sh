#!/usr/bin/env bash
# ci/nightly.sh in imported-data mode (no GPU): twenty nights, and on the last one memory/coalesced loses
# coalescing (80% slower, gld_efficiency 100% -> 50%). The job must say so that night, in one finding.
#   test_nightly_tonight.sh GPUPERF_BIN
set -euo pipefail
gpuperf=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$repo/tests/ci/make_nights.py" "$work/nights" 20 20 coalesced
for i in $(seq 1 20); do
  n=$(printf %02d "$i")
  rc=0
  bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$work/history.db" --artifacts "$work/art-$n" \
    --branch main --night "2026-10-$n" --import "$work/nights/night-$n.json" >"$work/log-$n" 2>&1 || rc=$?
  if ((i < 20)); then
    [[ $rc == 0 ]] || { cat "$work/log-$n"; fail "night $n exited $rc before the step"; }
  else
    [[ $rc == 1 ]] || { cat "$work/log-$n"; fail "the night of the step exited $rc, expected 1"; }
  fi
done

summary=$work/art-20/summary.md
[[ -s $summary ]] || fail "night 20 wrote no summary.md"
# The new-tonight table: one finding, the duration, unconfirmed, with the counters as its hints.
row=$(grep -E '^\| memory/coalesced\[n=16777216\] \| duration \|' "$summary" | head -1)
[[ -n $row ]] || { cat "$summary"; fail "summary.md does not report the duration step of memory/coalesced"; }
[[ $row == *"+80."*"unconfirmed (1 run)"* ]] || fail "the step is not reported as +80%, unconfirmed: $row"
[[ $row == *"gld_efficiency 100% -> 50%"* ]] || fail "the step's finding does not name gld_efficiency: $row"
[[ $row == *"gst_efficiency 100% -> 50%"* ]] || fail "the step's finding does not name gst_efficiency: $row"
grep -q '^\*\*1 new regression tonight\*\*' "$summary" || fail "the counters were reported as findings of their own"
! grep -qE '^\| memory/coalesced\[n=16777216\] \| g[ls]d_efficiency \|' "$summary" ||
  fail "a counter that moved with the duration has a row of its own"
# The report below it lists the same finding, with the same hints.
grep -qE '^\| memory/coalesced\\\[n=16777216\\\] \| duration \| \*\*\+80\.[0-9]%\*\* .*\| unconfirmed \(1 run\) \| gld\\_efficiency 100% -> 50%' \
  "$summary" || { cat "$summary"; fail "the report's Regressions table lacks the finding with its hints"; }
echo "nightly: the step of the last night is reported that night, one finding with its counters: ok"
