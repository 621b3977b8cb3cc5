#!/usr/bin/env bash
# The sanitizer job: the host code built with AddressSanitizer and UndefinedBehaviorSanitizer (CMake preset
# `sanitize`, build-sanitize/), then the CLI, db and reports suites run against it, the gpuperf executable they
# start included, and a team's week through the nightly on SQLite. Any report of either sanitizer fails the
# job (exit code 99 from the sanitized process, never 1 or 2, which the tests read as gpuperf's own codes).
# No GPU needed; CUDA device code is built as usual, unsanitized.
#   bash ci/sanitize.sh [--no-build]
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
[[ ${1:-} == --no-build ]] && build=0
targets=(gpuperf test_cli test_cli_bisect test_db test_reports test_report_input test_report_golden
  test_report_long_names)
if ((build)); then
  cmake --preset sanitize >/dev/null
  cmake --build build-sanitize -j "$(nproc)" --target "${targets[@]}"
fi
export ASAN_OPTIONS=exitcode=99:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=exitcode=99:print_stacktrace=1:halt_on_error=1
export LSAN_OPTIONS=exitcode=99
logs="build-sanitize/sanitize-logs"
rm -rf "$logs"
mkdir -p "$logs"
run() { # NAME COMMAND...: one suite; its log under $logs, and NAME.failed there when it fails (also from `run &`)
  local name=$1 log=$logs/$1.log start=$SECONDS rc=0
  shift
  "$@" >"$log" 2>&1 || rc=$?
  printf '%-28s %s  %4ds\n' "$name" "$( ((rc == 0)) && echo passed || echo "FAILED (exit $rc)")" $((SECONDS - start))
  if ((rc != 0)); then
    : >"$logs/$name.failed"
    grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:|^\[  FAILED  \]|incompatible with sanitizer' "$log" |
      head -20 || tail -30 "$log"
  fi
}
# CUPTI's host API loads libnvperf_host.so with RTLD_DEEPBIND, which the sanitizer runtime refuses ("incompatible
# with sanitizer runtime", google/sanitizers#611): `gpuperf metrics` cannot run under it, so its test runs in the
# plain suite only. test_cli (about 3.5 minutes here) runs beside the others.
run test_cli build-sanitize/tests/cli/test_cli --gtest_brief=1 --gtest_filter=-CliTest.MetricsAsksAChipByItsName &
cli=$!
run test_cli_bisect build-sanitize/tests/cli/test_cli_bisect --gtest_brief=1
run test_db build-sanitize/tests/db/test_db --gtest_brief=1
for t in test_reports test_report_input test_report_golden test_report_long_names; do
  run "$t" "build-sanitize/tests/reports/$t" --gtest_brief=1
done
run team_week_sqlite bash tests/ci/test_team_week.sh build-sanitize/cli/gpuperf sqlite
wait "$cli"
failed=()
for f in "$logs"/*.failed; do [[ -e $f ]] && failed+=("$(basename "$f" .failed)"); done
if ((${#failed[@]})); then
  echo "sanitize: ${#failed[@]} failed: ${failed[*]} (logs in $logs)" >&2
  exit 1
fi
echo "sanitize: every suite passed under AddressSanitizer and UndefinedBehaviorSanitizer"
