#!/usr/bin/env bash
# A mixed fleet in one history (docs/gpus.md), imported-data mode (no GPU): an H100, an A100 and a T4 runner
# (tests/ci/make_fleet.py), each night each runner's nightly imports its suite run and its recorded program's run.
# The chips' metric sets differ (record's TriageCompute names on the H100 alone, PM sampling's sets per chip, none
# on the T4). On night 9 the A100's memory/coalesced is 25% slower, the fleet's only step. Checks: each runner's
# nightly reports its own step and nothing of the others' metrics; detect finds that one step, on the A100, and no
# missing or stepped metric on the chips that lack one; compare keeps chips apart (a run of another GPU
# generation is refused, exit 2; --across-chips compares anyway) and within a chip reads no metric as missing;
# the report groups the machines by generation (H100, A100, T4) with the finding on the A100 alone.
#   test_fleet.sh GPUPERF_BIN sqlite|postgres
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
python3 "$repo/tests/ci/make_fleet.py" "$work/nights" 10 9
gp() { "$gpuperf" --db "$db" "$@"; }

runners=(h100-1 a100-1 t4-1)
for i in $(seq 1 10); do
  n=$(printf %02d "$i")
  for r in "${runners[@]}"; do
    rc=0
    bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$db" --artifacts "$work/art-$r-$n" --branch main \
      --night "2026-10-$n" --no-report --import "$work/nights/$r-night-$n.json" >"$work/log-$r-$n" 2>&1 || rc=$?
    want=0
    [[ $r == a100-1 && $i == 9 ]] && want=1
    [[ $rc == "$want" ]] || { cat "$work/log-$r-$n"; fail "$r night $n exited $rc, expected $want"; }
  done
done
grep -q '^\*\*1 new regression tonight\*\*' "$work/art-a100-1-09/summary.md" ||
  { cat "$work/art-a100-1-09/summary.md"; fail "the A100's night 9 does not report its step"; }
for r in h100-1 t4-1; do
  grep -q 'No new regressions tonight' "$work/art-$r-09/summary.md" ||
    { cat "$work/art-$r-09/summary.md"; fail "$r's night 9 reports a step that is the A100's"; }
done

# detect: the one step, on the A100; nothing about the metrics a chip lacks.
gp detect --format json >"$work/detect.json"
python3 - "$work/detect.json" <<'PY' || fail "detect does not find exactly the A100's step"
import json, sys
changes = json.load(open(sys.argv[1]))["changes"]
got = [(c["benchmark"], c["metric"]) for c in changes]
assert got == [("memory/coalesced", "duration")], got
assert changes[0]["machine"].startswith("GPU-"), changes[0]
PY
rc=0; gp detect --fail-on-regression >/dev/null || rc=$?
[[ $rc == 1 ]] || fail "detect --fail-on-regression exited $rc with the A100's step open"

# compare: chips apart; within a chip no metric reads as missing.
runs_json=$(gp runs --format json)
run_of() { # HOST NIGHT LABEL
  python3 -c 'import json, sys
for r in json.loads(sys.argv[1]):
    if r["machine"]["hostname"] == sys.argv[2] and r["started_at"].startswith("2026-10-" + sys.argv[3]) and r["label"] == sys.argv[4]:
        print(r["id"]); break' "$runs_json" "$1" "$2" "$3"
}
t4_1=$(run_of t4-1 01 record) t4_10=$(run_of t4-1 10 record) h100_10=$(run_of h100-1 10 record)
a100_10=$(run_of a100-1 10 nightly) h100_n10=$(run_of h100-1 10 nightly)
[[ -n $t4_1 && -n $t4_10 && -n $h100_10 && -n $a100_10 && -n $h100_n10 ]] || fail "runs not found: $runs_json"
rc=0; gp compare "$t4_10" "$h100_10" >"$work/cmp-x" 2>&1 || rc=$?
[[ $rc == 2 ]] || { cat "$work/cmp-x"; fail "a T4 run against an H100 run exited $rc, expected 2 (another generation)"; }
grep -q 'another GPU generation is no baseline' "$work/cmp-x" || { cat "$work/cmp-x"; fail "the refusal does not say why"; }
rc=0; gp compare "$a100_10" "$h100_n10" --across-chips >"$work/cmp-y" 2>&1 || rc=$?
[[ $rc != 2 ]] || { cat "$work/cmp-y"; fail "--across-chips did not compare"; }
grep -q 'compared across GPU generations as asked' "$work/cmp-y" || fail "--across-chips does not warn"
gp compare "$t4_1" "$t4_10" --all --format json >"$work/cmp-t4.json" || fail "the T4's own compare failed"
python3 - "$work/cmp-t4.json" <<'PY' || fail "the T4's compare reads a metric as missing or new"
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
bad = [(r["benchmark"], r["metric"], r["verdict"]) for r in rows if r["verdict"] in ("missing", "new", "failed")]
assert not bad and rows, bad
assert not any(r["metric"].startswith(("pm_", "sol_")) for r in rows), rows
PY
# An instance the chip cannot run (matmul/wgmma, sm_90a code alone, unsupported on the A100 and the T4 every night) is
# that machine's standing status: no regression, no missing benchmark, in compare as in the nightly above.
t4_n1=$(run_of t4-1 01 nightly) t4_n10=$(run_of t4-1 10 nightly)
rc=0; gp compare "$t4_n1" "$t4_n10" --format json >"$work/cmp-t4-suite.json" || rc=$?
[[ $rc == 0 ]] || fail "the T4's suite compare exited $rc with an instance unsupported on both nights"
python3 - "$work/cmp-t4-suite.json" <<'PY' || fail "the T4's unsupported instance does not read as its standing status"
import json, sys
rows = [r for r in json.load(open(sys.argv[1]))["rows"] if r["benchmark"] == "matmul/wgmma"]
assert len(rows) == 1 and rows[0]["verdict"] == "failed", rows
assert rows[0]["note"].startswith("both unsupported: the verification launch cannot run here: the binary holds no code sm_75"), rows
PY

# The report: machines grouped by generation, newest first; the finding on the A100 alone.
gp report --format md --out "$work/site" >/dev/null 2>&1 || fail "report failed"
python3 - "$work/site/report.md" <<'PY' || fail "report.md does not group the machines by generation"
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r"^\| (\S+) \((.*?), GPU-[0-9a-f]+\) \| .*\| (\**\d+\**) \| \d+ \|$", text, re.M)
assert [r[0] for r in rows] == ["h100-1", "a100-1", "t4-1"], rows
assert [r[2].strip("*") for r in rows] == ["0", "1", "0"], rows
PY
echo "ok: a fleet of three generations on $mode"
