#!/usr/bin/env bash
# ci/format_check.sh on a scratch repository: a badly formatted file fails the check (exit 1, naming it),
# --changed looks only at files changed since a commit, --fix formats in place, then the check passes.
# Skips (exit 77) without clang-format 14.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
command -v clang-format-14 >/dev/null || clang-format --version 2>/dev/null | grep -q 'version 14\.' ||
  { echo "skip: no clang-format 14"; exit 77; }
work=$(mktemp -d -t gpuperf-format.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/ci" "$work/core"
cp "$src/ci/format_check.sh" "$work/ci/"
cp "$src/.clang-format" "$work/"
printf 'int  tidy(int x) { return x; }\n' >"$work/core/old.cpp"
cd "$work"
git init -q -b main
git add -A
git -c user.name=ci -c user.email=ci@example.invalid commit -q -m first
base=$(git rev-parse HEAD)
printf '#include <vector>\nint   sum(const std::vector<int>& v){int s=0;for(int x:v) s+=x;return s;}\n' >core/new.cpp
git add core/new.cpp

rc=0
out=$(bash ci/format_check.sh 2>&1) || rc=$?
[[ $rc == 1 ]] || fail "an unformatted tree: exit $rc, expected 1:"$'\n'"$out"
grep -q "core/new.cpp" <<<"$out" || fail "the check does not name core/new.cpp:"$'\n'"$out"
grep -q "2 of 2 files are not formatted" <<<"$out" || fail "expected 2 of 2 files:"$'\n'"$out"
rc=0
out=$(bash ci/format_check.sh --changed "$base" 2>&1) || rc=$?
if [[ $rc != 1 ]] || ! grep -q "1 of 1 files" <<<"$out"; then
  fail "--changed: exit $rc, expected 1 for core/new.cpp only:"$'\n'"$out"
fi
bash ci/format_check.sh --fix >/dev/null
out=$(bash ci/format_check.sh 2>&1) || fail "after --fix the check still fails:"$'\n'"$out"
grep -q "int sum(const std::vector<int>& v) {" core/new.cpp || fail "--fix did not format core/new.cpp: $(cat core/new.cpp)"
rc=0
bash ci/format_check.sh --bogus >/dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "an unknown argument: exit $rc, expected 2"
echo "format_check: ok"
