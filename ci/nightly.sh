#!/usr/bin/env bash
# The nightly job: build, measure the suite on every GPU, detect changes, write the HTML and Markdown reports
# and a JUnit file into an artifacts folder. Exit 0: fine; 1: a regression of a gated metric (duration, the
# deterministic counters, what --gate adds) appeared tonight that the history did not show before (a step is
# one the night it lands, as an unconfirmed change, and is not reported again when later nights confirm
# it); 2: bad arguments; 3: no GPU / environment / the database unreachable, or it lost tonight's run after
# storing it (the night is then not reported: "nothing new" would be about what is left); 4: a kernel gave a
# wrong answer.
#
# "New tonight" comes from the history itself, per machine: for each machine that stored a run tonight,
# `detect --machine M --before-run FIRST` (the history as it stood before tonight's runs of M) against
# `detect --machine M --as-of LAST` (with them). Run ids grow in the order runs are stored, so this holds
# when many runners write one history at once (a PostgreSQL server, --db URI): each nightly reports its own
# machines' new findings, never another runner's, whatever the runners' clocks say.
#
# Safe to rerun after a crash: a GPU that already stored tonight's run for this commit is not measured again
# (run keys; on a server a second job given the same key waits for the first and measures nothing), imports
# are idempotent, tonight's runs are found again by their key or uuids, so a rerun reports the same findings,
# and reports are replaced whole.
#
# Usage: ci/nightly.sh [--db PATH|URI] [--artifacts DIR] [--branch NAME] [--device all|N[,M...]]
#                      [--filter REGEX] [--quick] [--night YYYY-MM-DD] [--bench BIN] [--source DIR]
#                      [--import FILE]...   # imported-data mode: no measuring, no GPU needed
#                      [--backup] [--no-report] [--all-machines] [--gate METRIC[,METRIC...]|all]
#                      [--window N|all]
#                      [--bisect [--bisect-budget MIN] [--bisect-build CMD] [--bisect-bench PATH]]
# --db: an SQLite file, or a PostgreSQL URI or keyword string (default $GPUPERF_DB, else ./gpuperf.db).
# --gate: also fail the night (exit 1) on new regressions of these metrics; by default only duration, a
# wrong answer and the deterministic counters gate, and sampled counters (stalls, throughputs, achieved
# occupancy) are listed, not failed (docs/regressions.md, "What fails a job").
# --window: analyse each machine's newest N runs (default 90), not its whole history: detect, "new tonight"
# and the reports read that window, so a nightly's work stays the same after a year of nights (all: the whole
# history, as before). Tonight's "before" and "as of" reads share the window's first run, so what they differ
# in is tonight's runs only. What falls outside: a change older than the window is no longer listed in
# changes.md, junit.xml and the reports (it was reported the night it landed), and a drift slower than N runs
# is judged by the N runs it spans (docs/nightly.md, "The analysis window").
# --backup: an SQLite file only: copy it to ARTIFACTS/gpuperf-before-NIGHT.db first (kept by a rerun).
# --no-report: skip the HTML and Markdown trend reports (load tests; the findings and JUnit are still written).
# --all-machines: changes.json, changes.md, junit.xml and the reports cover every machine of the branch; by
# default they cover the machines that stored a run tonight (on a shared server, this job's GPUs, not the
# whole team's).
# ARTIFACTS/steps.tsv: seconds each step took (store, runs, detect, tonight, report), a line each.
# --bench: the executable to run: gpuperf, or a project's own bench executable linking gpuperf::main
# (--gpuperf is the same). Without it: the installed copy (PREFIX/share/gpuperf/ci/) runs PREFIX/bin/gpuperf;
# in a source tree, gpuperf is built from it.
# --source: the git checkout whose commit and branch are recorded (default: gpuperf's own tree when this
# script lies in one, else the checkout around the current directory, e.g. a user repository calling the
# installed share/gpuperf/ci/nightly.sh).
# --bisect: for each new regression, `gpuperf bisect` between its last good and first bad commit in the
# --source checkout (on device 0), within --bisect-budget minutes in all (default 60); each culprit goes to
# summary.md. --bisect-build is run in each commit's checkout (default for gpuperf's own tree: a Release build
# of the gpuperf target into build-bisect/), --bisect-bench is the executable it makes, relative to the checkout.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
db=${GPUPERF_DB:-$PWD/gpuperf.db}
artifacts=$PWD/artifacts
branch=""
devices=all
filter=""
quick=()
gate=()
night=$(date -u +%F)
gpuperf=${GPUPERF_BIN:-}
source_dir=""
imports=()
backup_wanted=0
report=1
all_machines=0
bisect=0
bisect_budget=60
window=90
# shellcheck disable=SC2016 # expanded by the sh that runs the build in each checkout
bisect_build='cmake -S . -B build-bisect -DCMAKE_BUILD_TYPE=Release -DGPUPERF_BUILD_TESTS=OFF >/dev/null && cmake --build build-bisect -j "$(nproc)" --target gpuperf'
bisect_bench=build-bisect/cli/gpuperf

die() { echo "nightly: $*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --db) db=${2:?--db needs a path}; shift 2 ;;
    --artifacts) artifacts=${2:?--artifacts needs a folder}; shift 2 ;;
    --branch) branch=${2:?--branch needs a name}; shift 2 ;;
    --device) devices=${2:?--device needs all or a list}; shift 2 ;;
    --filter) filter=${2:?--filter needs a regex}; shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --gate) gate+=(--gate "${2:?--gate needs METRIC[,METRIC...] or all}"); shift 2 ;;
    --night) night=${2:?--night needs a date}; shift 2 ;;
    --gpuperf|--bench) gpuperf=${2:?$1 needs a path}; shift 2 ;;
    --source) source_dir=${2:?--source needs a folder}; shift 2 ;;
    --import) imports+=("${2:?--import needs a file}"); shift 2 ;;
    --backup) backup_wanted=1; shift ;;
    --all-machines) all_machines=1; shift ;;
    --no-report) report=0; shift ;;
    --window) (($# >= 2)) || die "--window needs a number of runs or all"; window=$2; shift 2 ;;
    --bisect) bisect=1; shift ;;
    --bisect-budget) bisect_budget=${2:?--bisect-budget needs minutes}; shift 2 ;;
    --bisect-build) bisect_build=${2:?--bisect-build needs a command}; shift 2 ;;
    --bisect-bench) bisect_bench=${2:?--bisect-bench needs a path}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $night =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || die "--night '$night' is not YYYY-MM-DD"
[[ $bisect_budget =~ ^[0-9]+$ ]] || die "--bisect-budget '$bisect_budget' is not a number of minutes"
# The window must leave detect room for a confirmed change (--min-segment 4 runs on each side) and for the
# unconfirmed-change rule's baseline: fewer than 16 runs would change what the nightly can see, not just cost.
[[ $window == all || ($window =~ ^[0-9]+$ && $window -ge 16 && ${#window} -le 9) ]] ||
  die "--window '$window' is not all or a number of runs of 16 or more"
# detect/report's --last: each machine's newest N runs (none: the whole history).
last_of() { if [[ $window != all ]]; then printf '%s\n' --last "$1"; fi; }

log() { echo "[nightly $(date -u +%H:%M:%S)] $*" >&2; }
start_s=$(date +%s)
# A server location (gpuperf's rule, db/server_location.hpp: a URI, or libpq keywords) is passed on as it
# is; a file's folder is made and its path made absolute. Neither is ever printed with a password by gpuperf.
server=0
if [[ $db == postgres://* || $db == postgresql://* ]] || [[ $db == *=* && ! -e $db ]]; then server=1; fi
((!(server && backup_wanted))) || die "--backup copies an SQLite file; back up a PostgreSQL server with pg_dump"
# Installed as PREFIX/share/gpuperf/ci/nightly.sh: without --bench, the gpuperf of the same prefix.
installed_gpuperf=$(cd "$repo/../.." && pwd)/bin/gpuperf
if [[ -z $gpuperf && ! -f $repo/CMakeLists.txt ]]; then
  [[ -x $installed_gpuperf ]] ||
    die "no --bench given, $repo is not gpuperf's source tree to build one from, and $installed_gpuperf is missing"
  gpuperf=$installed_gpuperf
fi
# Refusals come before anything is made: no artifacts folder or database folder for a run that never starts.
[[ -z $gpuperf || -x $gpuperf ]] || die "bench executable '$gpuperf' is missing or not executable"
mkdir -p "$artifacts"
if ((!server)); then
  mkdir -p "$(dirname "$db")"
  db=$(cd "$(dirname "$db")" && pwd)/$(basename "$db")
fi
artifacts=$(cd "$artifacts" && pwd)
: >"$artifacts/steps.tsv"
step_t0=0
step_start() { step_t0=$(date +%s.%N); }
step_end() { awk -v name="$1" -v t0="$step_t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%s\t%.3f\n", name, t1 - t0 }' \
  >>"$artifacts/steps.tsv"; }

# 1. Build in Release (unless a binary was given or installed beside this script).
if [[ -z $gpuperf ]]; then
  log "building gpuperf (Release)"
  bash "$repo/ci/setup.sh"
  cmake -S "$repo" -B "$repo/build-nightly" -DCMAKE_BUILD_TYPE=Release -DGPUPERF_BUILD_TESTS=OFF >/dev/null
  cmake --build "$repo/build-nightly" -j "$(nproc)" --target gpuperf >/dev/null
  gpuperf=$repo/build-nightly/cli/gpuperf
fi
[[ -x $gpuperf ]] || die "bench executable '$gpuperf' is missing or not executable"
if [[ -z $source_dir ]]; then
  source_dir=$PWD
  [[ -f $repo/CMakeLists.txt ]] && source_dir=$repo
fi
[[ -d $source_dir ]] || die "--source '$source_dir' is not a folder"
gp() { "$gpuperf" --db "$db" "$@"; }

if [[ -z $branch ]]; then
  branch=$(git -C "$source_dir" rev-parse --abbrev-ref HEAD 2>/dev/null || true)
  [[ -n $branch && $branch != HEAD ]] || branch=main
fi
# --verify: outside a git checkout a plain `rev-parse HEAD` prints "HEAD" before failing.
commit=$(git -C "$source_dir" rev-parse --verify -q HEAD 2>/dev/null) || commit=""

# 2. With --backup, a copy of the history as it was before tonight. A rerun keeps the first backup of the night.
backup=$artifacts/gpuperf-before-$night.db
if ((backup_wanted)) && [[ -f $db && ! -f $backup ]]; then
  log "backing up $db to $backup"
  rm -f "$backup.partial"
  gp --quiet db backup "$backup.partial"
  mv "$backup.partial" "$backup"
fi

# 3. Measure every GPU (or import). Exit 4 (a wrong answer) is remembered; the run is stored and reported.
wrong_answer=0
run_key="nightly/$night/$commit"
step_start
if ((${#imports[@]})); then
  log "importing ${imports[*]}"
  gp import "${imports[@]}"
else
  log "running the suite on device(s) $devices, branch $branch, commit ${commit:-(none: not a git checkout)}"
  args=(run --device "$devices" --branch "$branch" --label nightly --run-key "$run_key" "${quick[@]}")
  [[ -n $commit ]] && args+=(--commit "$commit")
  [[ -n $filter ]] && args+=(--filter "$filter")
  rc=0
  gp "${args[@]}" >"$artifacts/run.txt" || rc=$?
  cat "$artifacts/run.txt"
  case $rc in
    0) ;;
    4) wrong_answer=1; log "a kernel gave a wrong answer (stored as incorrect)" ;;
    *) log "gpuperf run failed with exit $rc"; exit "$rc" ;;
  esac
fi
step_end store

# 4. Tonight's runs, by their run key or by the uuids of the imported files, so a rerun finds them again.
step_start
if ((${#imports[@]})); then
  # Only runs started on or after the imported files' earliest day: tonight's, not the whole history's.
  since=$(python3 "$repo/ci/tonight_runs.py" --earliest-date "${imports[@]}" 2>/dev/null) || since=""
  gp runs --branch "$branch" ${since:+--since "$since"} --format json >"$artifacts/runs.json"
  uuids=()
  for f in "${imports[@]}"; do uuids+=(--uuids-from "$f"); done
  # Every imported run of the branch must be there: a run lost after its import said "new" fails the night
  # (exit 3) instead of leaving it to report nothing new. One held under another branch (a uuid stored before
  # with other content: the import kept the stored run and said so) is not lost.
  rc=0
  python3 "$repo/ci/tonight_runs.py" "$artifacts/runs.json" "${uuids[@]}" --branch "$branch" \
    >"$artifacts/tonight-runs.tsv" 2>"$artifacts/.lost" || rc=$?
  if ((rc == 3)); then
    gp runs ${since:+--since "$since"} --format json >"$artifacts/.every-branch.json"
    if ! python3 "$repo/ci/tonight_runs.py" "$artifacts/.every-branch.json" "${uuids[@]}" --branch "$branch" \
      >/dev/null 2>&1; then
      cat "$artifacts/.lost" >&2
      log "the database lost tonight's imported run(s) after storing them: the night is not reported"
      exit 3
    fi
    rc=0
  fi
  ((rc == 0)) || { cat "$artifacts/.lost" >&2; exit "$rc"; }
  rm -f "$artifacts/.lost" "$artifacts/.every-branch.json"
else
  gp runs --run-key "$run_key" --format json >"$artifacts/runs.json"
  # `gpuperf run` succeeded, so the run key names a stored run; none means it was lost (exit 3).
  rc=0
  python3 "$repo/ci/tonight_runs.py" "$artifacts/runs.json" --expect-some >"$artifacts/tonight-runs.tsv" || rc=$?
  if ((rc == 3)); then
    log "the database lost tonight's run (key $run_key) after storing it: the night is not reported"
    exit 3
  fi
  ((rc == 0)) || exit "$rc"
fi
rm -f "$artifacts/runs.json"
step_end runs
[[ -s $artifacts/tonight-runs.tsv ]] || log "no run of tonight's is stored on $branch: nothing can be new"

# 5. Change points, for the JUnit file and the reports: of the machines that stored a run tonight (this job's
#    GPUs; on a shared server not every runner's, so the step costs this job's history, not the team's), or
#    of every machine of the branch with --all-machines or when no run of tonight's is stored.
scope=()
if ((!all_machines)); then
  while IFS=$'\t' read -r machine _; do scope+=(--machine "$machine"); done <"$artifacts/tonight-runs.tsv"
fi
if ((${#scope[@]})); then
  log "detecting change points on $branch, the $((${#scope[@]} / 2)) machine(s) of tonight's runs"
else
  log "detecting change points on $branch, every machine"
fi
# One machine tonight (a one-GPU runner): this read is that machine's "as of" read of step 6 (the window and
# tonight's runs, up to tonight's last run), so step 6 reuses its answer instead of reading and analysing the
# same history again.
machines_tonight=$(wc -l <"$artifacts/tonight-runs.tsv")
as_of=() reuse_machine=""
mapfile -t window_args < <(last_of "$window")
if ((${#scope[@]} && machines_tonight == 1)); then
  IFS=$'\t' read -r reuse_machine _ last count _ <"$artifacts/tonight-runs.tsv"
  as_of=(--as-of "$last")
  mapfile -t window_args < <(last_of $((window + count)))
fi
step_start
gp detect --branch "$branch" "${scope[@]}" "${window_args[@]}" "${as_of[@]}" "${gate[@]}" --format md \
  --junit "$artifacts/junit.xml" --json "$artifacts/changes.json" >"$artifacts/changes.md"
step_end detect

# 6. What is new tonight: for each machine that stored a run tonight, the history before its runs against
#    the history with them (see the top of this file). First the history with them ("as of").
step_start
while IFS=$'\t' read -r machine first last count host; do
  log "new tonight on $host (machine $machine): runs $first..$last against the history before them"
  [[ $machine == "$reuse_machine" ]] && continue  # step 5's answer
  # With a window: the newest N runs before tonight's, then the same N plus tonight's COUNT runs, so both
  # reads start at the same run (a window sliding by a night would move its first run, and a change at its
  # edge could come and go with it).
  mapfile -t tonight_window < <(last_of $((window + count)))
  gp detect --branch "$branch" --machine "$machine" "${tonight_window[@]}" "${gate[@]}" --as-of "$last" \
    --format json >"$artifacts/.tonight-$machine.json"
done <"$artifacts/tonight-runs.tsv"
# Then the history before them, of the benchmarks that regressed in the "as of" answer only: a finding is new
# when its series showed no such change before, so no other series' answer can make one new (change points
# are found per series; a benchmark's other instances and metrics are read too, for the same hints). A
# machine without a regression tonight needs no "before" read at all. Benchmark names, not instance names,
# select: a superset of the series asked about, matched exactly whatever the parameters look like.
answers=()
while IFS=$'\t' read -r machine _; do
  if [[ $machine == "$reuse_machine" ]]; then answers+=("$machine=$artifacts/changes.json")
  else answers+=("$machine=$artifacts/.tonight-$machine.json"); fi
done <"$artifacts/tonight-runs.tsv"
python3 -c 'import json, re, sys
for arg in sys.argv[1:]:
    machine, path = arg.split("=", 1)
    names = sorted({c["benchmark"] for c in json.load(open(path))["changes"] if c.get("kind") == "regression"})
    esc = [re.sub(r"([\\^$.|?*+()\[\]{}])", r"\\\1", n) for n in names]
    print(machine + "\t" + ("^(" + "|".join(esc) + ")(\\[|$)" if esc else ""))' \
  "${answers[@]}" >"$artifacts/.regressed.tsv"
before_parts=() tonight_parts=()
while IFS=$'\t' read -r machine first last count host; do
  regressed=$(awk -F'\t' -v m="$machine" '$1 == m { print $2 }' "$artifacts/.regressed.tsv")
  if [[ -n $regressed ]]; then
    mapfile -t before_window < <(last_of "$window")
    gp detect --branch "$branch" --machine "$machine" "${before_window[@]}" "${gate[@]}" --before-run "$first" \
      --filter "$regressed" --format json >"$artifacts/.before-$machine.json"
  else
    echo '{"changes": []}' >"$artifacts/.before-$machine.json"
  fi
  before_parts+=("$artifacts/.before-$machine.json")
  if [[ $machine == "$reuse_machine" ]]; then
    tonight_parts+=("$artifacts/changes.json")
  else
    tonight_parts+=("$artifacts/.tonight-$machine.json")
  fi
done <"$artifacts/tonight-runs.tsv"
# The "changes" of the machines' detect JSON files as one file each: before tonight, and with tonight's runs.
python3 -c 'import json, sys
before, tonight, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for out, parts in ((before, sys.argv[4:4 + n]), (tonight, sys.argv[4 + n:])):
    with open(out, "w", encoding="utf-8") as f:
        f.write(json.dumps({"changes": [c for p in parts for c in json.load(open(p))["changes"]]}, indent=1) + "\n")' \
  "$artifacts/changes-before.json" "$artifacts/changes-tonight.json" "${#before_parts[@]}" \
  "${before_parts[@]}" "${tonight_parts[@]}"
rm -f "$artifacts"/.before-*.json "$artifacts"/.tonight-*.json "$artifacts/.regressed.tsv"
new_rc=0
python3 "$repo/ci/new_regressions.py" "$artifacts/changes-before.json" "$artifacts/changes-tonight.json" \
  --markdown "$artifacts/new-regressions.md" --json "$artifacts/new-tonight.json" \
  --bisect-list "$artifacts/bisect-list.tsv" || new_rc=$?
((new_rc <= 1)) || exit "$new_rc"
step_end tonight

# 7. Reports, of the machines step 5 read (the same scope as the findings beside them).
if ((report)); then
  log "writing reports to $artifacts"
  step_start
  gp report --out "$artifacts" --branch "$branch" "${scope[@]}" "${window_args[@]}" --format html,md
  step_end report
fi

# 8. Which commit: bisect each new regression within the budget (the culprits go to summary.md).
: >"$artifacts/bisect.md"
if ((bisect && new_rc == 1)) && [[ -s $artifacts/bisect-list.tsv ]]; then
  deadline=$(($(date +%s) + bisect_budget * 60))
  while IFS=$'\t' read -r instance_re metric good bad; do
    left=$((deadline - $(date +%s)))
    if ((left <= 0)); then
      echo "Not bisected (budget of $bisect_budget min spent): \`$instance_re\` $metric" >>"$artifacts/bisect.md"
      continue
    fi
    log "bisecting $metric of $instance_re between ${good:0:10} and ${bad:0:10} (${left} s left)"
    rc=0
    timeout --signal=TERM "$left" "$gpuperf" --db "$db" bisect --repo "$source_dir" --good "$good" --bad "$bad" \
      --build "$bisect_build" --bench "$bisect_bench" --filter "$instance_re" --metric "$metric" \
      --format md >>"$artifacts/bisect.md" 2>>"$artifacts/bisect.log" || rc=$?
    ((rc == 0)) || echo "Bisect of \`$instance_re\` $metric ended with exit $rc (see bisect.log)" >>"$artifacts/bisect.md"
    echo >>"$artifacts/bisect.md"
  done <"$artifacts/bisect-list.tsv"
fi
{ cat "$artifacts/new-regressions.md"; echo; if [[ -s $artifacts/bisect.md ]]; then cat "$artifacts/bisect.md"; echo; fi
  if ((report)) && [[ -f $artifacts/report.md ]]; then cat "$artifacts/report.md"; fi; } >"$artifacts/summary.md"

log "done in $(($(date +%s) - start_s)) s"
if ((wrong_answer)); then exit 4; fi
exit "$new_rc"
