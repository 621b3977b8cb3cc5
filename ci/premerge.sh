#!/usr/bin/env bash
# The pre-merge job: run the suite on this branch, store the run, and compare it with the nightly history
# of the merge base (the base branch's latest run when the merge base itself was never measured).
# Exit codes are gpuperf check's: 0 fine, 1 regression, 2 bad input, 3 no GPU, 4 wrong answer.
#
# Usage: ci/premerge.sh [--db PATH|URI] [--base-branch NAME] [--artifacts DIR] [--filter REGEX] [--quick]
#                       [--bench BIN] [--source DIR] [--gate METRIC[,METRIC...]|all]
# --gate: also fail (exit 1) on these metrics' slower rows; by default duration, a wrong answer and the
# deterministic counters gate, and sampled counters are listed, not failed (docs/regressions.md).
# --db (default $GPUPERF_DB, else ./gpuperf.db): an SQLite file or a PostgreSQL location, e.g. a URI from
# the CI system's secret store; never printed.
# --bench: gpuperf, or a project's own bench executable linking gpuperf::main (--gpuperf is the same);
# without it the installed copy runs its prefix's bin/gpuperf, and in a source tree gpuperf is built.
# --source: the checkout whose merge base is looked up (default: gpuperf's tree when this script lies in
# one, else the current directory's).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
db=${GPUPERF_DB:-$PWD/gpuperf.db}
base_branch=main
artifacts=$PWD/artifacts
filter=()
quick=()
gate=()
gpuperf=${GPUPERF_BIN:-}
source_dir=""
while (($#)); do
  case "$1" in
    --db) db=${2:?}; shift 2 ;;
    --base-branch) base_branch=${2:?}; shift 2 ;;
    --artifacts) artifacts=${2:?}; shift 2 ;;
    --filter) filter=(--filter "${2:?}"); shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --gate) gate+=(--gate "${2:?--gate needs METRIC[,METRIC...] or all}"); shift 2 ;;
    --gpuperf|--bench) gpuperf=${2:?}; shift 2 ;;
    --source) source_dir=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "premerge: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# Installed as PREFIX/share/gpuperf/ci/premerge.sh: without --bench, the gpuperf of the same prefix.
installed_gpuperf=$(cd "$repo/../.." && pwd)/bin/gpuperf
if [[ -z $gpuperf && ! -f $repo/CMakeLists.txt && -x $installed_gpuperf ]]; then
  gpuperf=$installed_gpuperf
fi
# Refusals come before anything is made: no artifacts folder for a check that never starts.
[[ -z $gpuperf || -x $gpuperf ]] ||
  { echo "premerge: bench executable '$gpuperf' is missing or not executable" >&2; exit 2; }
[[ -n $gpuperf || -f $repo/CMakeLists.txt ]] ||
  { echo "premerge: no --bench given, $repo is not gpuperf's source tree and $installed_gpuperf is missing" >&2; exit 2; }
mkdir -p "$artifacts"

if [[ -z $gpuperf ]]; then
  [[ -f $repo/CMakeLists.txt ]] || { echo "premerge: no --bench given and $repo is not gpuperf's source tree" >&2; exit 2; }
  bash "$repo/ci/setup.sh"
  cmake -S "$repo" -B "$repo/build-nightly" -DCMAKE_BUILD_TYPE=Release -DGPUPERF_BUILD_TESTS=OFF >/dev/null
  cmake --build "$repo/build-nightly" -j "$(nproc)" --target gpuperf >/dev/null
  gpuperf=$repo/build-nightly/cli/gpuperf
fi

[[ -x $gpuperf ]] || { echo "premerge: bench executable '$gpuperf' is missing or not executable" >&2; exit 2; }
if [[ -z $source_dir ]]; then
  source_dir=$PWD
  [[ -f $repo/CMakeLists.txt ]] && source_dir=$repo
fi

# The baseline: the merge base's own run if the nightly measured it, else the base branch's latest run.
# --db is a file or a PostgreSQL location (a URI, keywords, service=NAME): it goes to gpuperf as given, never
# through a path test, and is never printed here (gpuperf's own messages show it without its password). A
# history that is missing or does not answer leaves the base branch as the baseline: check then says why.
baseline="branch:$base_branch"
merge_base=$(git -C "$source_dir" merge-base HEAD "origin/$base_branch" 2>/dev/null ||
             git -C "$source_dir" merge-base HEAD "$base_branch" 2>/dev/null || true)
if [[ -n $merge_base ]] &&
   "$gpuperf" --db "$db" runs --branch "$base_branch" --format json 2>/dev/null | grep -q "\"$merge_base\""; then
  baseline=$merge_base
fi
echo "premerge: comparing against $baseline" >&2

# The candidate run records the checkout's commit and branch (the bench executable may live elsewhere).
source_args=()
if head=$(git -C "$source_dir" rev-parse --verify -q HEAD 2>/dev/null); then
  source_args=(--commit "$head")
  branch=$(git -C "$source_dir" rev-parse --abbrev-ref HEAD 2>/dev/null || true)
  [[ -n $branch && $branch != HEAD ]] && source_args+=(--branch "$branch")
fi

rc=0
"$gpuperf" --db "$db" check --baseline "$baseline" --label pre-merge "${filter[@]}" "${quick[@]}" "${gate[@]}" "${source_args[@]}" \
  --format md --junit "$artifacts/junit.xml" >"$artifacts/check.md" || rc=$?
cat "$artifacts/check.md"
exit "$rc"
