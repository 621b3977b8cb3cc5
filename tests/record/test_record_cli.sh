#!/usr/bin/env bash
# `gpuperf record` and `check --record` from the command line, on any machine: bad input exits 2 with its
# reason and runs nothing, another injected tool exits 3 naming it, and nothing is stored by a refusal.
#   test_record_cli.sh GPUPERF_BIN
set -euo pipefail
gp=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() {  # expect RC PATTERN ARGS...
  local want=$1 pattern=$2 rc=0 out
  shift 2
  out=$("$gp" --db "$work/r.db" "$@" 2>&1) || rc=$?
  [[ $rc == "$want" ]] || fail "gpuperf $*: exit $rc, expected $want:"$'\n'"$out"
  grep -Eq -- "$pattern" <<<"$out" || fail "gpuperf $*: no /$pattern/ in:"$'\n'"$out"
  echo "ok: gpuperf $* -> $rc"
}
touch "$work/marker"
expect 2 "command is required" record
expect 2 "does not exist" record -- /no/such/program
expect 2 "not found on PATH" record -- gpuperf-no-such-program
expect 2 "not a valid regular expression" record --kernel-regex '(' -- true
expect 2 "kernel-name" record --kernel-name short -- true
expect 2 "profile-replay" record --metrics default --profile-replay twice -- true
expect 2 "--max-samples: expected a whole number of 1 or more, got .0." record --max-samples 0 -- true
CUDA_INJECTION64_PATH=/opt/nvidia/nsight-systems/libToolsInjection64.so expect 3 "Nsight Systems.*already attached" record -- true
# The program runs only where a GPU is: here (no GPU) exit 3 before it starts; on a GPU `true` makes no CUDA call.
rc=0
out=$("$gp" --db "$work/r.db" record -- touch "$work/ran" 2>&1) || rc=$?
if [[ $rc == 3 ]]; then
  grep -q "no CUDA GPU" <<<"$out" || fail "record without a GPU: $out"
  [[ ! -e $work/ran ]] || fail "record ran the program on a machine without a GPU"
  echo "ok: record without a GPU -> 3, program not run"
else
  if [[ $rc != 2 ]] || ! grep -q "nothing recorded" <<<"$out"; then fail "record -- touch: exit $rc: $out"; fi
  echo "ok: record of a program without CUDA -> 2, nothing stored"
fi
[[ ! -e $work/r.db ]] || fail "a refused record created the database"
expect 2 "needs the program" check --baseline main --record
expect 2 "without --record" check --baseline main -- true
echo '{"format": "gpuperf-results", "version": 1, "runs": []}' | "$gp" --db "$work/r.db" import - >/dev/null
expect 2 "nosuch" check --baseline branch:nosuch --record -- true
echo "record cli: ok"
