#!/usr/bin/env bash
# The pre-merge job: run the suite on this branch, store the run, and compare it with the nightly history
# of the merge base (the base branch's latest run when the merge base itself was never measured).
# Exit codes are gpuperf check's: 0 fine, 1 regression, 2 bad input, 3 no GPU, 4 wrong answer.
#
# Usage: ci/premerge.sh [--db PATH] [--base-branch NAME] [--artifacts DIR] [--filter REGEX] [--quick]
#                       [--gpuperf BIN]
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
db=${GPUPERF_DB:-$PWD/gpuperf.db}
base_branch=main
artifacts=$PWD/artifacts
filter=()
quick=()
gpuperf=${GPUPERF_BIN:-}
while (($#)); do
  case "$1" in
    --db) db=${2:?}; shift 2 ;;
    --base-branch) base_branch=${2:?}; shift 2 ;;
    --artifacts) artifacts=${2:?}; shift 2 ;;
    --filter) filter=(--filter "${2:?}"); shift 2 ;;
    --quick) quick=(--quick); shift ;;
    --gpuperf) gpuperf=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "premerge: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
mkdir -p "$artifacts"

if [[ -z $gpuperf ]]; then
  bash "$repo/ci/setup.sh"
  cmake -S "$repo" -B "$repo/build-nightly" -DCMAKE_BUILD_TYPE=Release -DGPUPERF_BUILD_TESTS=OFF >/dev/null
  cmake --build "$repo/build-nightly" -j "$(nproc)" --target gpuperf >/dev/null
  gpuperf=$repo/build-nightly/cli/gpuperf
fi

# The baseline: the merge base's own run if the nightly measured it, else the base branch's latest run.
baseline="branch:$base_branch"
merge_base=$(git -C "$repo" merge-base HEAD "origin/$base_branch" 2>/dev/null ||
             git -C "$repo" merge-base HEAD "$base_branch" 2>/dev/null || true)
if [[ -n $merge_base && -f $db ]] &&
   "$gpuperf" --db "$db" runs --branch "$base_branch" --format json | grep -q "\"$merge_base\""; then
  baseline=$merge_base
fi
echo "premerge: comparing against $baseline" >&2

rc=0
"$gpuperf" --db "$db" check --baseline "$baseline" --label pre-merge "${filter[@]}" "${quick[@]}" \
  --format md --junit "$artifacts/junit.xml" >"$artifacts/check.md" || rc=$?
cat "$artifacts/check.md"
exit "$rc"
