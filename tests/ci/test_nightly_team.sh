#!/usr/bin/env bash
# Two runners' nightlies into one history at the same moment, each night (imported-data mode, no GPU):
# ci-gpu-1 loses coalescing on memory/coalesced on night 10; ci-gpu-2, whose clock is five years behind (its
# started_at say 2021; one ahead of the importing machine's is refused), gets memory/strided 25% slower on
# night 12. Each nightly must report its own machine's step on its night, once, and never the other's. Then: a rerun of a past night reports the same;
# a double-triggered night stores one run; on a server, the server going away makes the night exit 3, and a
# rerun once it is back completes the night without duplicates.
#   test_nightly_team.sh GPUPERF_BIN sqlite|postgres
# Exit 77 (skipped) for postgres when no server binaries are installed and CI is not set.
set -euo pipefail
gpuperf=$(realpath "$1")
mode=${2:?sqlite or postgres}
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
fail() { echo "FAIL: $*" >&2; exit 1; }

# shellcheck source=/dev/null # bench/store/pg_throwaway.sh, checked on its own
. "$repo/bench/store/pg_throwaway.sh"
throwaway_store "$mode" "$work"
db=$THROWAWAY_DB

nights=12
python3 "$repo/tests/ci/make_nights.py" "$work/m1" "$nights" 10 coalesced --machine 1
python3 "$repo/tests/ci/make_nights.py" "$work/m2" "$nights" 12 strided --machine 2 --started-year 2021

nightly() { # MACHINE NIGHT [TAG]: the runner's nightly of that night; its exit status in $work/rc-M-N[TAG]
  local m=$1 n=$2 tag=${3:-} rc=0
  bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$db" --artifacts "$work/art-$m-$n$tag" --branch main \
    --night "2026-10-$n" --no-report --import "$work/m$m/night-$n.json" >"$work/log-$m-$n$tag" 2>&1 || rc=$?
  echo "$rc" >"$work/rc-$m-$n$tag"
}
findings() { # ARTIFACTS: "machine benchmark metric run_id" of each finding in new-tonight.json (machine: GPU uuid)
  python3 - "$1/new-tonight.json" <<'EOF'
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    print(f["machine"], f["benchmark"], f["metric"], f["run_id"])
EOF
}
expect_night() { # MACHINE NIGHT RC FINDINGS [TAG]
  local m=$1 n=$2 want_rc=$3 want=$4 tag=${5:-} got
  [[ $(cat "$work/rc-$m-$n$tag") == "$want_rc" ]] ||
    { cat "$work/log-$m-$n$tag"; fail "ci-gpu-$m night $n$tag exited $(cat "$work/rc-$m-$n$tag"), expected $want_rc"; }
  got=$(findings "$work/art-$m-$n$tag" | cut -d' ' -f1-3)
  [[ $got == "$want" ]] || { cat "$work/log-$m-$n$tag"; fail "ci-gpu-$m night $n$tag found '$got', expected '$want'"; }
}

for i in $(seq 1 "$nights"); do
  n=$(printf %02d "$i")
  nightly 1 "$n" & nightly 2 "$n" & wait
  m1="" m2=""
  ((i == 10)) && m1="GPU-c1c1c1c1 memory/coalesced duration"
  ((i == 12)) && m2="GPU-c2c1c1c1 memory/strided duration"
  expect_night 1 "$n" "$([[ -n $m1 ]] && echo 1 || echo 0)" "$m1"
  expect_night 2 "$n" "$([[ -n $m2 ]] && echo 1 || echo 0)" "$m2"
done
grep -q '^\*\*1 new regression tonight\*\*' "$work/art-1-10/summary.md" || fail "night 10's summary.md lacks the finding"
echo "two runners at once: each reported its own step on its night, once, and not the other's: ok"
machines_in() { # CHANGES.JSON: the machines its change points are of, sorted, one line
  python3 -c 'import json, sys; print(" ".join(sorted({c["machine"] for c in json.load(open(sys.argv[1]))["changes"]})))' "$1"
}
# changes.json and junit.xml cover the job's own machines: ci-gpu-1's night 12 holds its own step (night 10),
# not ci-gpu-2's (night 12); with --all-machines both.
[[ $(machines_in "$work/art-1-12/changes.json") == "GPU-c1c1c1c1" ]] ||
  fail "ci-gpu-1's changes.json is of '$(machines_in "$work/art-1-12/changes.json")', expected its own machine only"
[[ $(machines_in "$work/art-2-12/changes.json") == "GPU-c2c1c1c1" ]] ||
  fail "ci-gpu-2's changes.json is of '$(machines_in "$work/art-2-12/changes.json")', expected its own machine only"
grep -q "memory/strided" "$work/art-1-12/junit.xml" && fail "ci-gpu-1's junit.xml names ci-gpu-2's step"
bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$db" --artifacts "$work/art-1-12-all" --branch main \
  --night 2026-10-12 --no-report --all-machines --import "$work/m1/night-12.json" >"$work/log-1-12-all" 2>&1 ||
  { cat "$work/log-1-12-all"; fail "ci-gpu-1's night 12 again with --all-machines did not exit 0"; }
[[ $(machines_in "$work/art-1-12-all/changes.json") == "GPU-c1c1c1c1 GPU-c2c1c1c1" ]] ||
  fail "--all-machines changes.json is of '$(machines_in "$work/art-1-12-all/changes.json")', expected both machines"
echo "changes.json and junit.xml are of the job's own machines, every machine with --all-machines: ok"
# The reports have the findings' scope: the job's own machine, or every machine with --all-machines.
for all in "" --all-machines; do
  bash "$repo/ci/nightly.sh" --gpuperf "$gpuperf" --db "$db" --artifacts "$work/art-1-12-report$all" --branch main \
    --night 2026-10-12 $all --import "$work/m1/night-12.json" >"$work/log-1-12-report$all" 2>&1 ||
    { cat "$work/log-1-12-report$all"; fail "ci-gpu-1's night 12 with reports ${all:-(own machine)} did not exit 0"; }
done
own=$work/art-1-12-report/report.md
if ! grep -q "Machine: ci-gpu-1 .*runs on 1 machine" "$own" || grep -q "ci-gpu-2" "$own"; then
  fail "ci-gpu-1's report is not of its own machine only: $(head -4 "$own")"
fi
grep -q "runs on 2 machines" "$work/art-1-12-report--all-machines/report.md" ||
  fail "the --all-machines report is not of both machines: $(head -4 "$work/art-1-12-report--all-machines/report.md")"
echo "the reports have the findings' machines: ok"

# A rerun of night 10 (after a crash, say) reports what night 10 reported, the same run, though two nights
# came after it.
nightly 1 10 -rerun
expect_night 1 10 1 "GPU-c1c1c1c1 memory/coalesced duration" -rerun
[[ $(findings "$work/art-1-10-rerun") == $(findings "$work/art-1-10") ]] || fail "the rerun of night 10 differs"
echo "a rerun of a past night reports the same finding: ok"

count_runs() {
  "$gpuperf" --db "$db" runs --format json | python3 -c 'import json, sys
runs = json.load(sys.stdin); print(len(runs), len({r["uuid"] for r in runs}))'
}
# A double-triggered night: ci-gpu-2's night 12 twice at once, both after its first time. Nothing new is
# stored, and both report the same finding as the first time.
nightly 2 12 -twice-a & nightly 2 12 -twice-b & wait
expect_night 2 12 1 "GPU-c2c1c1c1 memory/strided duration" -twice-a
expect_night 2 12 1 "GPU-c2c1c1c1 memory/strided duration" -twice-b
[[ $(count_runs) == "24 24" ]] || fail "after the double trigger: $(count_runs) runs/uuids, expected 24 24"
# Two jobs importing one new night at once store it once.
python3 "$repo/tests/ci/make_nights.py" "$work/m1" 13 10 coalesced --machine 1
nightly 1 13 -a & nightly 1 13 -b & wait
expect_night 1 13 0 "" -a
expect_night 1 13 0 "" -b
[[ $(count_runs) == "25 25" ]] || fail "two jobs of one night stored $(count_runs) runs/uuids, expected 25 25"
echo "a double-triggered night stores one run, and both jobs report the same: ok"

if [[ $mode == postgres ]]; then
  # The server goes away before the night: exit 3, nothing half-done; back again, a rerun completes it.
  python3 "$repo/tests/ci/make_nights.py" "$work/m2" 14 12 strided --machine 2 --started-year 2021
  pg_throwaway crash "$work/pg" >/dev/null
  nightly 2 14 -down
  [[ $(cat "$work/rc-2-14-down") == 3 ]] || { cat "$work/log-2-14-down"; fail "with the server gone the night exited $(cat "$work/rc-2-14-down"), not 3"; }
  pg_throwaway start "$work/pg" gpuperf >/dev/null
  nightly 2 14
  expect_night 2 14 0 ""
  nightly 2 14 -again
  expect_night 2 14 0 "" -again
  [[ $(count_runs) == "26 26" ]] || fail "after the server came back: $(count_runs) runs/uuids, expected 26 26"
  echo "the server gone: exit 3; back again, the rerun completes the night without duplicates: ok"
fi
