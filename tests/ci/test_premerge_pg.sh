#!/usr/bin/env bash
# ci/premerge.sh on a central history: the database URI, password included, comes from $GPUPERF_DB (as the CI
# recipes pass their secret) or --db, reaches gpuperf unchanged, finds the merge base's nightly run on the
# server, and the password appears nowhere in what the job prints or writes, also when the login fails. The
# recipes never trace or print the variable. Against a real throwaway server (bench/store/pg_throwaway.sh); the
# measuring `check` needs a GPU, so a stand-in bench executable imports the branch's run and compares it, and
# hands every other command to the real gpuperf. Skips (77) without server binaries, fails when CI is set.
#   test_premerge_pg.sh GPUPERF_BIN
set -uo pipefail
gpuperf=$(realpath "$1")
repo=$(cd "$(dirname "$0")/../.." && pwd)
tw=$repo/bench/store/pg_throwaway.sh
if ! why=$(bash -c ". '$tw'; _pg_tw_bindir" 2>&1); then
  if [[ -n ${CI:-} && ${CI:-} != 0 && ${CI:-} != false ]]; then echo "CI is set and $why"; exit 1; fi
  echo "skipped: $why"
  exit 77
fi
work=$(mktemp -d /tmp/gpuperf-premerge-pg-XXXXXX)
chmod 755 "$work"
trap 'bash "$tw" stop "$work/pg" >/dev/null 2>&1; rm -rf "$work"' EXIT
fail=0
failed() { echo "FAIL: $*"; fail=1; }

# The recipes: no shell tracing anywhere, and the secret's variable is never echoed or printed.
for f in "$repo"/ci/*.sh "$repo"/ci/*.sbatch "$repo"/ci/*.yml; do
  if grep -nE '(^|[;&|[:space:]])set +(-[a-zA-Z]*x|-o +xtrace)' "$f"; then failed "$f traces its commands (set -x)"; fi
  if grep -nE '(echo|printf|cat)[^#]*\$\{?GPUPERF_DB([^_A-Za-z0-9]|$)' "$f"; then failed "$f prints \$GPUPERF_DB"; fi
done

out=$(bash "$tw" start "$work/pg" gpuperf) || { echo "FAIL: the throwaway server did not start: $out"; exit 1; }
eval "$out"
secret='Pre-merge-S3cret'
"$PG_BINDIR/psql" -XAtq "$PG_URI" -c "CREATE ROLE runner LOGIN PASSWORD '$secret'; GRANT CREATE, USAGE ON SCHEMA public TO runner" ||
  { echo "FAIL: creating the role"; exit 1; }
uri="postgresql://runner:$secret@127.0.0.1:$PG_PORT/gpuperf"

# A checkout: main with two commits, a feature branch off it. The nightly measured main's head, the merge base.
src=$work/src
make_checkout() {
  git init -q -b main "$src" && git -C "$src" -c user.name=t -c user.email=t@t commit -q --allow-empty -m one &&
    git -C "$src" -c user.name=t -c user.email=t@t commit -q --allow-empty -m two &&
    git -C "$src" checkout -q -b feature/pg &&
    git -C "$src" -c user.name=t -c user.email=t@t commit -q --allow-empty -m three
}
make_checkout || { echo "FAIL: git"; exit 1; }
base=$(git -C "$src" rev-parse main)
head=$(git -C "$src" rev-parse HEAD)
# The fixture's nightlies, the last of them at the merge base; the branch's run is that night re-labelled.
sed "s/b181f3489d72ae4e37f2e98e07a67cc7fec594a0/$base/" "$repo/tests/reports/fixture_history.json" >"$work/nights.json"
"$gpuperf" --db "$uri" --quiet import "$work/nights.json" >"$work/import.log" 2>&1 || { cat "$work/import.log"; exit 1; }
"$gpuperf" --db "$uri" export --run 00000001-0000-4000-8000-00000000000b |
  sed -e 's/00000001-0000-4000-8000-00000000000b/0000000f-0000-4000-8000-0000000000bb/' \
      -e 's/"branch":"main"/"branch":"feature\/pg"/' -e 's/"label":"nightly"/"label":"pre-merge"/' \
      -e "s/$base/$head/" >"$work/candidate.json"
grep -q '0000000f-' "$work/candidate.json" || { echo "FAIL: the branch's run was not made"; exit 1; }

# The stand-in bench executable: `check` = import the branch's run + compare; the rest is gpuperf's. It keeps
# the --db it was given, to compare with the URI (written to a file of the test, never printed).
cat >"$work/bench" <<EOF
#!/usr/bin/env bash
set -euo pipefail
[[ \$1 == --db ]] || exit 2
printf '%s\n' "\$2" >>"$work/db-args"
if [[ \$3 != check ]]; then exec "$gpuperf" "\$@"; fi
db=\$2 baseline="" junit="" format=text
shift 3
while ((\$#)); do
  case \$1 in
    --baseline) baseline=\$2; shift 2 ;;
    --junit) junit=\$2; shift 2 ;;
    --format) format=\$2; shift 2 ;;
    --label|--commit|--branch|--filter) shift 2 ;;
    *) shift ;;
  esac
done
"$gpuperf" --db "\$db" --quiet import "$work/candidate.json" >&2
exec "$gpuperf" --db "\$db" compare "\$baseline" 0000000f-0000-4000-8000-0000000000bb --format "\$format" --junit "\$junit" --all
EOF
chmod +x "$work/bench"

premerge() {  # premerge NAME [ARGS...]: runs the job in $src, output to $work/NAME.log, prints its exit code
  local name=$1 rc=0
  shift
  (cd "$src" && bash "$repo/ci/premerge.sh" --bench "$work/bench" --source "$src" --artifacts "$work/art-$name" \
    "$@" >"$work/$name.log" 2>&1) || rc=$?
  echo "$rc"
}
no_secret() {  # no_secret NAME: the password is in no output and no artifact of the job
  if grep -rl -- "$secret" "$work/$1.log" "$work/art-$1" 2>/dev/null; then failed "$1: the password was printed"; fi
}

# The URI from the environment, as the recipes pass the CI system's secret.
rc=$(GPUPERF_DB=$uri premerge env)
[[ $rc == 0 || $rc == 1 ]] || { cat "$work/env.log"; failed "env: premerge exited $rc"; }
grep -q "comparing against $base" "$work/env.log" || { cat "$work/env.log"; failed "env: the merge base's run was not the baseline"; }
grep -q "matmul/naive" "$work/art-env/check.md" || failed "env: check.md lacks the verdicts"
[[ -s $work/art-env/junit.xml ]] || failed "env: no junit.xml"
[[ $(sort -u "$work/db-args") == "$uri" ]] || failed "env: gpuperf was given another --db than the URI"
no_secret env
[[ $("$PG_BINDIR/psql" -XAtq "$PG_URI" -c "SELECT count(*) FROM run WHERE branch = 'feature/pg'" 2>&1) == 1 ]] ||
  failed "env: the branch's run is not stored on the server once"

# The same with --db.
rc=$(premerge arg --db "$uri")
[[ $rc == 0 || $rc == 1 ]] || { cat "$work/arg.log"; failed "arg: premerge exited $rc"; }
grep -q "comparing against $base" "$work/arg.log" || failed "arg: the merge base's run was not the baseline"
no_secret arg

# A refused login: exit 3, naming the user and the server, not the (wrong) password.
rc=$(GPUPERF_DB="postgresql://runner:Wrong-$secret@127.0.0.1:$PG_PORT/gpuperf" premerge wrong)
[[ $rc == 3 ]] || { cat "$work/wrong.log"; failed "wrong password: premerge exited $rc, expected 3"; }
grep -q 'password authentication failed for user "runner"' "$work/wrong.log" || failed "wrong password: not said"
no_secret wrong
if grep -q "Wrong-" "$work/wrong.log"; then failed "wrong password: it was printed"; fi

((fail)) || echo "premerge on PostgreSQL: ok"
exit $fail
