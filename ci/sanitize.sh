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
failed=()
run() { # NAME COMMAND...: one suite; its log kept under build-sanitize/sanitize-logs
  local name=$1 log=build-sanitize/sanitize-logs/$1.log start=$SECONDS rc=0
  shift
  mkdir -p build-sanitize/sanitize-logs
  "$@" >"$log" 2>&1 || rc=$?
  printf '%-28s %s  %4ds\n' "$name" "$( ((rc == 0)) && echo passed || echo "FAILED (exit $rc)")" $((SECONDS - start))
  if ((rc != 0)); then
    failed+=("$name")
    grep -E 'ERROR: (Address|Leak)Sanitizer|runtime error:|^\[  FAILED  \]' "$log" | head -20 || tail -30 "$log"
  fi
}
for t in test_cli test_cli_bisect; do run "$t" "build-sanitize/tests/cli/$t" --gtest_brief=1; done
run test_db build-sanitize/tests/db/test_db --gtest_brief=1
for t in test_reports test_report_input test_report_golden test_report_long_names; do
  run "$t" "build-sanitize/tests/reports/$t" --gtest_brief=1
done
run team_week_sqlite bash tests/ci/test_team_week.sh build-sanitize/cli/gpuperf sqlite
if ((${#failed[@]})); then
  echo "sanitize: ${#failed[@]} failed: ${failed[*]} (logs in build-sanitize/sanitize-logs)" >&2
  exit 1
fi
echo "sanitize: every suite passed under AddressSanitizer and UndefinedBehaviorSanitizer"
