#!/usr/bin/env bash
# ci/nightly.sh end to end in imported-data mode (no GPU): night after night into one database, a step that
# becomes detectable exactly once, a rerun after a "crash" that changes nothing, and the artifacts it promises.
#   test_nightly.sh GPUPERF_BIN
set -euo pipefail
gpuperf=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$repo/tests/ci/make_nights.py" "$work/nights" 20 9
nightly() {  # nightly NIGHT [OPTION...] -> exit code of ci/nightly.sh
  local n=$1 rc=0
  shift
  bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$work/history.db" --artifacts "$work/art-$n" \
    --branch main --night "2026-10-$n" --import "$work/nights/night-$n.json" "$@" >"$work/log-$n" 2>&1 || rc=$?
  echo "$rc"
}

# Twenty nights with a 25% step at night 9. The step is reported the night it lands (unconfirmed: one run
# at the new level) and exactly once: not again when later nights confirm it.
flagged=""
for i in $(seq 1 20); do
  n=$(printf %02d "$i")
  backup=()
  [[ $n == 02 ]] && backup=(--backup)  # the SQLite user's optional copy; "new tonight" does not need it
  rc=$(nightly "$n" "${backup[@]}")
  case $rc in
    0) ;;
    1) [[ -z $flagged ]] || fail "night $n reported a new regression again (first on night $flagged)"
       flagged=$n ;;
    *) cat "$work/log-$n"; fail "night $n exited $rc" ;;
  esac
  if [[ $n == 02 ]]; then
    for f in report.html report.md junit.xml changes.json summary.md new-regressions.md new-tonight.json steps.tsv; do
      [[ -s $work/art-02/$f ]] || fail "night 02 did not write $f"
    done
    # --backup's copy holds the history before tonight; the second night's report has two points per series.
    runs=$("$gpuperf" --db "$work/art-02/gpuperf-before-2026-10-02.db" runs --format json | grep -c '"uuid"')
    [[ $runs == 1 ]] || fail "the backup of night 02 holds $runs runs, expected night 01 alone"
    grep -q "memory/strided" "$work/art-02/report.md" || fail "night 02's report does not mention memory/strided"
    grep -q "2 runs" "$work/art-02/report.md" || fail "night 02's report does not count 2 runs"
    for step in store runs detect tonight report; do
      grep -qE "^$step"$'\t'"[0-9]+\.[0-9]{3}$" "$work/art-02/steps.tsv" || fail "steps.tsv lacks the $step step"
    done
  elif [[ -e $work/art-$n/gpuperf-before-2026-10-$n.db ]]; then
    fail "night $n made a backup without --backup"
  fi
done
[[ -n $flagged ]] || fail "the 25% step at night 9 was never reported"
((10#$flagged == 9)) || fail "the step of night 9 was first reported on night $flagged"
grep -q "memory/strided" "$work/art-$flagged/new-regressions.md" || fail "the new regression is not named"
grep -q 'failures="[1-9]' "$work/art-$flagged/junit.xml" || fail "junit.xml has no failure for the regression"
grep -q "No new regressions" "$work/art-20/new-regressions.md" || fail "night 20 should report nothing new"

# A rerun of the flagged night (as after a crash) gives the same answer and stores nothing twice.
rm -rf "$work/art-$flagged/report.html"
rc=$(nightly "$flagged")
[[ $rc == 1 ]] || fail "the rerun of night $flagged exited $rc, expected 1 again"
[[ -s $work/art-$flagged/report.html ]] || fail "the rerun did not rewrite the report"
runs=$("$gpuperf" --db "$work/history.db" runs --format json | grep -c '"uuid"')
[[ $runs == 20 ]] || fail "the history holds $runs runs after the rerun, expected 20"

# A database that loses tonight's run after storing it (a gpuperf whose import says "1 new" and stores nothing,
# as the SQLite lock bug of 2026-11-29 did): the night exits 3 and names the run, not "no new regressions".
python3 "$repo/tests/ci/make_nights.py" "$work/night21" 21 9
cat >"$work/losing-gpuperf" <<EOF
#!/usr/bin/env bash
[[ " \$* " == *" import "* ]] && { echo "imported 1 run: 1 new (and lost)"; exit 0; }
exec "$gpuperf" "\$@"
EOF
chmod +x "$work/losing-gpuperf"
rc=0
bash "$repo/ci/nightly.sh" --gpuperf "$work/losing-gpuperf" --db "$work/history.db" --artifacts "$work/art-21" \
  --branch main --night 2026-10-21 --import "$work/night21/night-21.json" >"$work/log-21" 2>&1 || rc=$?
[[ $rc == 3 ]] || { cat "$work/log-21"; fail "a night whose run was lost exited $rc, expected 3"; }
uuid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["runs"][0]["uuid"])' "$work/night21/night-21.json")
grep -q "run $uuid .*does not hold it" "$work/log-21" || { cat "$work/log-21"; fail "the lost run is not named"; }
[[ ! -e $work/art-21/new-regressions.md ]] || fail "a night whose run was lost still reported its findings"

# Bad usage is exit 2 and touches nothing.
rc=0
bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$work/history.db" --night "yesterday" >/dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "a bad --night exited $rc, expected 2"
rc=0
bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "postgresql://perf-db/gpuperf" --backup >"$work/log-bad" 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "--backup with a server location exited $rc, expected 2"
grep -q "pg_dump" "$work/log-bad" || fail "--backup with a server location does not point at pg_dump"
echo "nightly: 20 nights, the step of night 9 reported once (night $flagged), rerun idempotent, a lost run exit 3: ok"
