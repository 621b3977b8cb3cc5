#!/usr/bin/env bash
# A team's week (docs/answers.md), imported-data mode (no GPU): ten nights of one runner, each storing the
# built-in suite's run and a recorded program's run (tests/ci/make_team_week.py). On night 9 memory/coalesced
# loses coalescing (a duration finding with its efficiency hints) and the program's mean reduction, a templated
# kernel longer than the tables show, takes 30% longer. The team answers each with one `ack` naming the commit
# and the benchmark exactly as `detect` printed them; then detect (text, --fail-on-regression, JUnit,
# Markdown, JSON), the report (Markdown, HTML), the same night run again and the next night all agree it is
# answered; --accept makes the step compare's baseline and --undo takes that back; an annotation of a night
# shows on the chart; export -> import -> merge carries the same answers.
#   test_team_week.sh GPUPERF_BIN sqlite|postgres
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

python3 "$repo/tests/ci/make_team_week.py" "$work/nights" 10 9
night() { # NIGHT TAG: that night's nightly; its exit status is echoed
  local rc=0
  bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$db" --artifacts "$work/art-$1$2" --branch main \
    --night "2026-10-$1" --import "$work/nights/night-$1.json" >"$work/log-$1$2" 2>&1 || rc=$?
  echo "$rc"
}
gp() { "$gpuperf" --db "$db" "$@"; }
for i in $(seq 1 8); do
  n=$(printf %02d "$i")
  [[ $(night "$n" "") == 0 ]] || { cat "$work/log-$n"; fail "night $n exited non-zero before the step"; }
done

# Night 9: both steps found, the night fails.
[[ $(night 09 "") == 1 ]] || { cat "$work/log-09"; fail "the night of the step did not exit 1"; }
grep -q '^\*\*2 new regressions tonight\*\*' "$work/art-09/summary.md" ||
  { cat "$work/art-09/summary.md"; fail "night 9 does not list the two steps as new"; }
rc=0; gp detect --fail-on-regression >"$work/detect-0" || rc=$?
[[ $rc == 1 ]] || { cat "$work/detect-0"; fail "detect --fail-on-regression exited $rc before any answer"; }

# What detect printed: each finding's benchmark and commit, as a user copies them from the table.
printed() { # PATTERN: "BENCHMARK<TAB>COMMIT" of the first duration row whose benchmark starts with PATTERN
  python3 - "$work/detect-0" "$1" <<'PY'
import re, sys
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith(sys.argv[2]):
        m = re.match(r"(\S.*?)\s{2,}duration\s.*?\s([0-9a-f]{10})\s{2,}[0-9a-f]{10}\s", line)
        if m:
            print(f"{m.group(1)}\t{m.group(2)}")
            break
PY
}
IFS=$'\t' read -r suite_name suite_commit <<<"$(printed memory/coalesced)"
IFS=$'\t' read -r kernel_name kernel_commit <<<"$(printed train/)"
[[ $suite_name == 'memory/coalesced[n=16777216]' && $suite_commit =~ ^097eab ]] ||
  fail "detect's row for memory/coalesced not found: '$suite_name' '$suite_commit'"
[[ $kernel_name == train/at::native::reduce_kernel* && $kernel_name == *'…'* && $kernel_commit == "$suite_commit" ]] ||
  fail "detect's row for the recorded reduction is not the shortened name at the step's commit: '$kernel_name'"

# One ack each, by the commit and the name detect printed.
gp ack --run "$suite_commit" --benchmark "$suite_name" --reason 'tracked in #7' --by ana >"$work/ack-1" ||
  fail "ack of the suite's step failed: $(cat "$work/ack-1")"
grep -q '(3 findings, duration +' "$work/ack-1" || fail "the ack did not answer the step whole: $(cat "$work/ack-1")"
gp ack --run "$kernel_commit" --benchmark "$kernel_name" --reason 'tracked in #8' --by ana >"$work/ack-2" ||
  fail "ack of the recorded kernel's step failed: $(cat "$work/ack-2")"
grep -q 'findings, duration +' "$work/ack-2" || fail "the ack did not answer the kernel's step: $(cat "$work/ack-2")"

# Answered everywhere: detect in every form, the report, the same night again and the next night.
gp detect --fail-on-regression --junit "$work/junit.xml" --json "$work/detect.json" >"$work/detect-1" ||
  { cat "$work/detect-1"; fail "detect --fail-on-regression still fails after the two acks"; }
grep -q 'failures="0"' "$work/junit.xml" || { cat "$work/junit.xml"; fail "JUnit still has failures"; }
python3 - "$work/detect.json" <<'PY' || fail "detect JSON still has an open gated regression"
import json, sys
changes = json.load(open(sys.argv[1]))["changes"]
answered = [c for c in changes if c.get("acknowledgement")]
assert not [c for c in changes if c["gated"] and c not in answered], changes
assert len(answered) == 5, answered  # the suite's duration and two hints, the kernel's duration and total
PY
gp detect --format md >"$work/detect.md"
grep -qF 'acknowledged: tracked in \#7' "$work/detect.md" || { cat "$work/detect.md"; fail "detect's Markdown does not show the answer"; }
gp report --out "$work/site" >/dev/null 2>&1 || fail "report failed"
grep -qE '^### Regressions \([0-9]+, [0-9]+ answered\)' "$work/site/report.md" ||
  { grep -n Regressions "$work/site/report.md"; fail "report.md does not count the answered findings"; }
python3 - "$work/site/report.md" <<'PY' || fail "report.md's Regressions have an unanswered row"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"^### Regressions \((\d+), (\d+) answered\)", text, re.M)
assert m and m.group(1) == m.group(2), m and m.groups()
PY
grep -q 'acknowledged: tracked in #7' "$work/site/report.html" || fail "report.html does not show the suite's answer"
grep -q 'acknowledged: tracked in #8' "$work/site/report.html" || fail "report.html does not show the kernel's answer"
[[ $(night 09 -again) == 0 ]] || { cat "$work/log-09-again"; fail "night 9 run again after the acks still failed"; }
grep -q 'No new regressions tonight' "$work/art-09-again/summary.md" ||
  { cat "$work/art-09-again/summary.md"; fail "night 9 again lists an answered step as new"; }
[[ $(night 10 "") == 0 ]] || { cat "$work/log-10"; fail "night 10 failed"; }
grep -q 'tracked in #8' "$work/art-10/summary.md" || fail "night 10 does not show the kernel's answer"

# --accept: the step is compare's baseline; --undo takes the acceptance back.
runs_json=$(gp runs --format json)
run_at() { # NIGHT LABEL: the uuid of that night's run with that label
  python3 -c 'import json, sys
for r in json.loads(sys.argv[1]):
    if r["started_at"].startswith("2026-10-" + sys.argv[2]) and r["label"] == sys.argv[3]:
        print(r["uuid"]); break' "$runs_json" "$1" "$2"
}
old_run=$(run_at 05 nightly) new_run=$(run_at 10 nightly)
rc=0; gp compare "$old_run" "$new_run" >"$work/compare-0" 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat "$work/compare-0"; fail "compare of the new level exited $rc before --accept, expected 1"; }
gp ack --undo --run "$suite_commit" --benchmark "$suite_name" >/dev/null || fail "undo of the ack failed"
gp ack --accept --run "$suite_commit" --benchmark "$suite_name" --reason 'uncoalesced on purpose' >"$work/ack-3" ||
  fail "ack --accept failed: $(cat "$work/ack-3")"
rc=0; gp compare "$old_run" "$new_run" >"$work/compare-1" 2>&1 || rc=$?
[[ $rc == 0 ]] || { cat "$work/compare-1"; fail "compare after --accept exited $rc, expected 0"; }
gp ack --undo --run "$suite_commit" --benchmark "$suite_name" >/dev/null || fail "undo of the acceptance failed"
rc=0; gp compare "$old_run" "$new_run" >/dev/null 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "compare after --undo exited $rc, expected 1 (the first behaviour)"
rc=0; gp detect --fail-on-regression >/dev/null || rc=$?
[[ $rc == 1 ]] || fail "detect --fail-on-regression after --undo exited $rc, expected 1"
gp ack --run "$suite_commit" --benchmark "$suite_name" --reason 'tracked in #7' --by ana >/dev/null ||
  fail "the second ack failed"

# A night's note on the chart, by the machine as the tables print it.
machine=$(grep -o 'GPU-[0-9a-f]\{8\}' "$work/detect-0" | head -1)
[[ -n $machine ]] || fail "detect printed no machine"
gp annotate --machine "$machine" --night 2026-10-04 'driver 580 installed' >/dev/null || fail "annotate failed"
gp report --out "$work/site-2" --format html >/dev/null 2>&1 || fail "report after the note failed"
grep -q 'driver 580 installed' "$work/site-2/report.html" || fail "the note is not on the chart"

# Export -> import -> merge: the same answers and notes wherever the history goes.
answers() { # DB: the acknowledgements and annotations, without the store's own ids
  python3 - "$("$gpuperf" --db "$1" ack --list --format json)" "$("$gpuperf" --db "$1" annotate --list --format json)" <<'PY'
import json, sys
def strip(rows):
    return sorted(json.dumps({k: v for k, v in r.items() if k not in ("id", "run_id", "machine_id")}, sort_keys=True)
                  for r in rows)
acks, notes = (json.loads(a) for a in sys.argv[1:3])
print("\n".join(strip(acks if isinstance(acks, list) else acks["acknowledgements"])))
print("\n".join(strip(notes if isinstance(notes, list) else notes["annotations"])))
PY
}
answers "$db" >"$work/answers-0"
[[ $(grep -c 'tracked in #' "$work/answers-0") -ge 3 ]] || { cat "$work/answers-0"; fail "ack --list lacks the answers"; }
gp export --output "$work/export.json" >/dev/null 2>&1 || fail "export failed"
"$gpuperf" --db "$work/imported.db" import "$work/export.json" >/dev/null || fail "import of the export failed"
"$gpuperf" merge "$work/imported.db" --into "$work/merged.db" >/dev/null || fail "merge of the imported file failed"
for copy in imported merged; do
  answers "$work/$copy.db" >"$work/answers-$copy"
  diff "$work/answers-0" "$work/answers-$copy" >&2 || fail "the $copy history's answers differ from the first"
  "$gpuperf" --db "$work/$copy.db" detect --fail-on-regression >/dev/null || fail "detect on the $copy history fails"
done
echo "ok: a team's week on $mode"
