#!/usr/bin/env bash
# A throwaway PostgreSQL server for benchmark scripts and CI shell tests, the shell twin of
# tests/support/pg_cluster.hpp: initdb into DIR, the server on a Unix socket in DIR and on 127.0.0.1 at a free
# port; trust on the socket, scram-sha-256 on TCP (superuser postgres, password gpuperf-throwaway).
#
#   pg_throwaway.sh start DIR [DBNAME] [--fsync]  initdb DIR (when new; an existing DIR is started again on its
#                         data) and start; prints shell assignments to eval: PG_URI (socket), PG_TCP_URI,
#                         PG_HOST, PG_PORT, PG_SOCKET_DIR, PG_BINDIR. DBNAME (default postgres) is created.
#   pg_throwaway.sh crash DIR     pg_ctl stop -m immediate, keeping the data (start DIR again to recover)
#   pg_throwaway.sh stop DIR      stop the server and remove DIR
#   pg_throwaway.sh env DIR       print the assignments of a started DIR again
#
#   eval "$(bench/store/pg_throwaway.sh start /tmp/pg-bench gpuperf)"; gpuperf import --db "$PG_URI" ...
#   bench/store/pg_throwaway.sh stop /tmp/pg-bench
# Sourced (. bench/store/pg_throwaway.sh), it defines `pg_throwaway start|crash|stop|env DIR ...`, whose start
# sets the PG_* variables in the calling shell, and `throwaway_store sqlite|postgres WORK` for a test's store.
#
# As root (CI, containers) the server runs as the `postgres` user (initdb refuses root), through runuser or
# setpriv, and DIR belongs to it: DIR's parents must be enterable by postgres (/tmp is). fsync is off unless
# --fsync: safe against a crash of postgres, not of the OS. GPUPERF_PG_BINDIR overrides where the server
# binaries are (default: the highest /usr/lib/postgresql/<major>/bin, then initdb on PATH).
# Exit status: 0 done, 2 bad usage, 3 the server could not be found, initialised or started (the reason and
# the server log's tail on stderr).

_pg_tw_fail() {
  echo "pg_throwaway: $*" >&2
  return 3
}

_pg_tw_bindir() {
  if [[ -n ${GPUPERF_PG_BINDIR:-} ]]; then
    [[ -x $GPUPERF_PG_BINDIR/initdb ]] || { _pg_tw_fail "no initdb in GPUPERF_PG_BINDIR=$GPUPERF_PG_BINDIR"; return; }
    echo "$GPUPERF_PG_BINDIR"
    return 0
  fi
  local best="" major=-1 d m
  for d in /usr/lib/postgresql/*/bin; do
    m=${d#/usr/lib/postgresql/}
    m=${m%/bin}
    if [[ $m =~ ^[0-9]+$ && -x $d/initdb && -x $d/pg_ctl && $m -gt $major ]]; then best=$d major=$m; fi
  done
  if [[ -z $best ]] && command -v initdb >/dev/null; then best=$(dirname "$(command -v initdb)"); fi
  [[ -n $best ]] || { _pg_tw_fail "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin or on PATH" \
    "(Debian: apt-get install postgresql, or ci/setup.sh --test)"; return; }
  echo "$best"
}

# Runs a command as the server's user: postgres when we are root, ourselves otherwise.
_pg_tw_as() {
  if [[ $(id -u) -ne 0 ]]; then
    "$@"
  elif command -v runuser >/dev/null; then
    runuser -u postgres -- "$@"
  else
    setpriv --reuid=postgres --regid=postgres --clear-groups -- "$@"
  fi
}

_pg_tw_free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

_pg_tw_env() {
  local dir=$1 port db
  port=$(cat "$dir/port" 2>/dev/null) || { _pg_tw_fail "$dir was not started by pg_throwaway.sh"; return; }
  db=$(cat "$dir/dbname")
  printf 'PG_URI=%q\n' "postgresql:///$db?host=$dir&port=$port&user=postgres"
  printf 'PG_TCP_URI=%q\n' "postgresql://postgres:gpuperf-throwaway@127.0.0.1:$port/$db"
  printf 'PG_HOST=127.0.0.1\nPG_PORT=%q\nPG_SOCKET_DIR=%q\nPG_BINDIR=%q\n' "$port" "$dir" "$(cat "$dir/bindir")"
}

_pg_tw_start() {
  local dir=$1 db=postgres fsync=off arg bindir port attempt
  shift
  for arg in "$@"; do
    case $arg in
      --fsync) fsync=on ;;
      -*) echo "pg_throwaway: unknown option $arg" >&2; return 2 ;;
      *) db=$arg ;;
    esac
  done
  bindir=$(_pg_tw_bindir) || return 3
  [[ $(id -u) -ne 0 ]] || id postgres >/dev/null 2>&1 ||
    { _pg_tw_fail "running as root, initdb refuses root, and there is no postgres user"; return; }
  mkdir -p "$dir" || { _pg_tw_fail "cannot create $dir"; return; }
  dir=$(cd "$dir" && pwd)
  ((${#dir} <= 90)) || { _pg_tw_fail "$dir is too long for a Unix socket path (90 characters at most)"; return; }
  if [[ ! -f $dir/data/PG_VERSION ]]; then
    [[ -z $(ls -A "$dir") ]] || { _pg_tw_fail "$dir is neither empty nor a pg_throwaway.sh folder"; return; }
    [[ $(id -u) -ne 0 ]] || chown postgres: "$dir"
    chmod 700 "$dir"
    _pg_tw_as test -w "$dir" ||
      { _pg_tw_fail "the server user cannot write $dir (are its parents enterable?)"; return; }
    echo gpuperf-throwaway >"$dir/superuser.pw"
    [[ $(id -u) -ne 0 ]] || chown postgres: "$dir/superuser.pw"
    if ! _pg_tw_as "$bindir/initdb" -D "$dir/data" -U postgres --pwfile="$dir/superuser.pw" --auth-local=trust \
      --auth-host=scram-sha-256 -N -E UTF8 --locale=C --no-instructions >"$dir/initdb.log" 2>&1; then
      rm -f "$dir/superuser.pw"
      _pg_tw_fail "initdb failed:"$'\n'"$(tail -20 "$dir/initdb.log")"
      return
    fi
    rm -f "$dir/superuser.pw"
    printf '%s\n' "listen_addresses = '127.0.0.1'" "unix_socket_directories = '$dir'" "fsync = $fsync" \
      "full_page_writes = $fsync" "shared_buffers = 32MB" >>"$dir/data/postgresql.conf"
    echo "$bindir" >"$dir/bindir"
    echo "$db" >"$dir/dbname"
  fi
  bindir=$(cat "$dir/bindir")
  for attempt in 1 2 3 4 5; do
    # A restart tries its previous port first, so URIs printed before a crash stay valid.
    if ((attempt == 1)) && [[ -f $dir/port ]]; then
      port=$(cat "$dir/port")
    else
      port=$(_pg_tw_free_port) || { _pg_tw_fail "python3 is needed to pick a free port"; return; }
    fi
    if _pg_tw_as "$bindir/pg_ctl" start -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "-p $port" >/dev/null; then
      echo "$port" >"$dir/port"
      break
    fi
    if ! tail -20 "$dir/server.log" | grep -q -e "could not bind" -e "already in use" || ((attempt == 5)); then
      _pg_tw_fail "the server did not start:"$'\n'"$(tail -20 "$dir/server.log")"
      return
    fi
  done
  if [[ $db != postgres ]] && [[ $("$bindir/psql" -XAtq -h "$dir" -p "$port" -U postgres -d postgres \
    -c "SELECT count(*) FROM pg_database WHERE datname = '$db'") == 0 ]]; then
    "$bindir/createdb" -h "$dir" -p "$port" -U postgres "$db" || { _pg_tw_fail "createdb $db failed"; return; }
  fi
  _pg_tw_env "$dir"
}

_pg_tw_stop_server() {
  local dir=$1 mode=$2
  [[ -f $dir/data/postmaster.pid ]] || return 0
  _pg_tw_as "$(cat "$dir/bindir")/pg_ctl" stop -D "$dir/data" -m "$mode" -w -t 60 >/dev/null
}

pg_throwaway() {
  local command=${1:-} dir=${2:-}
  if [[ -z $command || -z $dir ]]; then
    echo "usage: pg_throwaway.sh start|crash|stop|env DIR [DBNAME] [--fsync]" >&2
    return 2
  fi
  shift 2
  case $command in
    start)
      local assignments
      assignments=$(_pg_tw_start "$dir" "$@") || return
      # A command prints them; sourced, the caller's shell gets them.
      if [[ ${BASH_SOURCE[0]} == "$0" ]]; then echo "$assignments"; else eval "$assignments"; fi
      ;;
    crash) _pg_tw_stop_server "$dir" immediate ;;
    stop)
      _pg_tw_stop_server "$dir" fast || _pg_tw_stop_server "$dir" immediate
      rm -rf "$dir"
      ;;
    env) _pg_tw_env "$dir" ;;
    *) echo "pg_throwaway: unknown command $command (start, crash, stop, env)" >&2; return 2 ;;
  esac
}

# For a CI shell test (sourced): a store in the folder WORK that goes away with the test, its --db in
# THROWAWAY_DB. sqlite: WORK/history.db. postgres: a throwaway server in WORK/pg (database gpuperf, over TCP)
# that stops at exit; exit 77 (ctest's skipped) where no server binaries are installed and CI is not set, exit 1
# if it does not start. Either way the EXIT trap removes WORK, unless KEEP is set.
throwaway_store() {
  local mode=$1 work rc=0
  work=$(printf %q "$2")
  chmod 755 "$2"  # the server's user must reach its folder below it
  # shellcheck disable=SC2034 # the caller's
  THROWAWAY_DB=$2/history.db
  # shellcheck disable=SC2064 # WORK is expanded now: the trap runs after this function's locals are gone
  trap "[[ -n \${KEEP:-} ]] || rm -rf $work" EXIT
  [[ $mode == postgres ]] || return 0
  # shellcheck disable=SC2064
  trap "pg_throwaway stop $work/pg >/dev/null 2>&1 || true; [[ -n \${KEEP:-} ]] || rm -rf $work" EXIT
  pg_throwaway start "$2/pg" gpuperf >/dev/null || rc=$?
  if ((rc == 3)) && [[ -z ${CI:-} ]] && [[ -z $(compgen -G '/usr/lib/postgresql/*/bin/initdb') ]]; then
    echo "skipped: no PostgreSQL server binaries (ci/setup.sh --test installs them)"
    exit 77
  fi
  ((rc == 0)) || { echo "FAIL: the throwaway server did not start" >&2; exit 1; }
  # shellcheck disable=SC2034
  THROWAWAY_DB=$PG_TCP_URI
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -uo pipefail
  pg_throwaway "$@"
fi
