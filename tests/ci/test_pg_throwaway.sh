#!/usr/bin/env bash
# bench/store/pg_throwaway.sh against the real server: start prints working URIs (socket and TCP with the superuser's
# password), crash then start keeps committed data and the port, two folders at once, stop leaves no process
# and no folder, and sourcing it sets the variables. Skips (77) without server binaries, fails when CI is set.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tw=$root/bench/store/pg_throwaway.sh
if ! bindir=$(bash -c ". '$tw'; _pg_tw_bindir" 2>&1); then
  if [[ -n ${CI:-} && ${CI:-} != 0 && ${CI:-} != false ]]; then echo "CI is set and $bindir"; exit 1; fi
  echo "skipped: $bindir"
  exit 77
fi
work=$(mktemp -d /tmp/gpuperf-tw-test-XXXXXX)
chmod 755 "$work"
trap 'bash "$tw" stop "$work/a" >/dev/null 2>&1; bash "$tw" stop "$work/b" >/dev/null 2>&1; rm -rf "$work"' EXIT
fail=0
check() {  # check DESCRIPTION EXPECTED ACTUAL
  if [[ $2 != "$3" ]]; then echo "FAIL: $1: expected '$2', got '$3'"; fail=1; fi
}
# No password file: one in the temporary folder that is never made. A fixed path may exist: /nonexistent, the home
# of `nobody`, appeared on a build machine during a CI run, and psql's warning about it went into every answer.
psql_at() { PGPASSFILE="$work/no-pgpass" "$bindir/psql" -XAtq "$@" 2>&1; }

out=$(bash "$tw" start "$work/a" gpuperf) || { echo "start failed: $out"; exit 1; }
eval "$out"
check "URI form" "postgresql:///gpuperf?host=$work/a&port=$PG_PORT&user=postgres" "$PG_URI"
check "socket query" 3 "$(psql_at "$PG_URI" -c 'CREATE TABLE t (x int); INSERT INTO t VALUES (1), (2), (3);
  SELECT count(*) FROM t')"
check "TCP with the password" gpuperf "$(psql_at "$PG_TCP_URI" -c 'SELECT current_database()')"
wrong=$(psql_at "postgresql://postgres:wrong@127.0.0.1:$PG_PORT/gpuperf" -c 'SELECT 1')
[[ $wrong == *"password authentication failed"* ]] || { echo "FAIL: a wrong password was not refused: $wrong"; fail=1; }

port=$PG_PORT
bash "$tw" crash "$work/a"
[[ $(psql_at "$PG_URI" -c 'SELECT 1') == 1 ]] && { echo "FAIL: the server answers after crash"; fail=1; }
eval "$(bash "$tw" start "$work/a")"
check "port kept over a restart" "$port" "$PG_PORT"
check "data kept over a crash" 6 "$(psql_at "$PG_URI" -c 'SELECT sum(x) FROM t')"

eval "$(bash "$tw" start "$work/b")"
[[ $PG_PORT != "$port" ]] || { echo "FAIL: two servers on one port"; fail=1; }
check "second server is separate" 0 "$(psql_at "$PG_URI" -c "SELECT count(*) FROM pg_tables WHERE tablename = 't'")"

bash "$tw" stop "$work/b"
sourced=$(bash -c ". '$tw'; pg_throwaway start '$work/b' >/dev/null && echo \"\$PG_PORT\"")
[[ $sourced =~ ^[0-9]+$ ]] || { echo "FAIL: sourcing did not set PG_PORT: $sourced"; fail=1; }

for d in a b; do bash "$tw" stop "$work/$d"; done
[[ ! -e $work/a && ! -e $work/b ]] || { echo "FAIL: stop left the folder"; fail=1; }
if pgrep -f -- "-D $work/" >/dev/null; then echo "FAIL: a server outlived stop"; fail=1; fi
exit $fail
