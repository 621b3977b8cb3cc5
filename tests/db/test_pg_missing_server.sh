#!/usr/bin/env bash
# A `postgres` test on a machine without the server binaries: skipped with the reason for a developer,
# failed with the reason when CI is set (a missing server must not pass CI silently).
#   test_pg_missing_server.sh TEST_PG_CLUSTER_BINARY
set -uo pipefail
bin=$1
filter=--gtest_filter=PgCluster.StartsAndRunsSqlInACreatedDatabase
fail=0

out=$(env -u CI GPUPERF_PG_BINDIR=/nonexistent/pg/bin "$bin" "$filter" 2>&1)
rc=$?
if [[ $rc -ne 0 || $out != *"[  SKIPPED ]"* || $out != *"/nonexistent/pg/bin"* ]]; then
  echo "without CI: expected exit 0, SKIPPED and the searched folder; got exit $rc:"; echo "$out"; fail=1
fi

out=$(CI=true GPUPERF_PG_BINDIR=/nonexistent/pg/bin "$bin" "$filter" 2>&1)
rc=$?
if [[ $rc -eq 0 || $out != *"[  FAILED  ]"* || $out != *"required in CI"* || $out != *"/nonexistent/pg/bin"* ]]; then
  echo "with CI=true: expected a failure naming the reason; got exit $rc:"; echo "$out"; fail=1
fi

out=$(CI=false GPUPERF_PG_BINDIR=/nonexistent/pg/bin "$bin" "$filter" 2>&1)
rc=$?
if [[ $rc -ne 0 || $out != *"[  SKIPPED ]"* ]]; then
  echo "with CI=false: expected a skip; got exit $rc:"; echo "$out"; fail=1
fi
exit $fail
