#!/usr/bin/env bash
# ci/slurm-nightly.sbatch picks where the night goes: a configured server location ($GPUPERF_DB, or the first
# line of a file only its user may read) goes straight to nightly.sh's --db, nothing node-local, nothing
# printed; a location file others may read is refused (exit 2) before anything runs; without a location the
# node keeps its own file, copied back for a merge. cmake and nightly.sh are stand-ins that record their
# arguments (the real nightly.sh on a server has its own tests).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
failed() { echo "FAIL: $*"; fail=1; }

mkdir -p "$work/bin" "$work/prefix/share/gpuperf/ci" "$work/home" "$work/tmp"
printf '#!/bin/sh\nexit 0\n' >"$work/bin/cmake"
cat >"$work/prefix/share/gpuperf/ci/nightly.sh" <<EOF
#!/usr/bin/env bash
printf '%s\n' "\$@" >"$work/nightly-args"
while ((\$#)); do if [[ \$1 == --db && \$2 != *://* && \$2 != *=* ]]; then echo night >"\$2"; fi; shift; done
EOF
chmod +x "$work/bin/cmake"
secret='Slurm-S3cret'
recipe() {  # recipe NAME [VAR=VALUE...]: runs the recipe; its output goes to $work/NAME.log; prints the exit code
  local name=$1 rc=0
  shift
  rm -f "$work/nightly-args"
  env -u GPUPERF_DB HOME="$work/home" GPUPERF_PREFIX="$work/prefix" TMPDIR="$work/tmp" PATH="$work/bin:$PATH" \
    SLURM_SUBMIT_DIR="$work" "$@" bash "$repo/ci/slurm-nightly.sbatch" >"$work/$name.log" 2>&1 || rc=$?
  echo "$rc"
}
node=$(hostname -s)

# The location in a file of the user's own: straight to the server.
uri="postgresql://gpuperf_writer:$secret@perf-db/gpuperf"
mkdir -p "$work/home/.config/gpuperf"
printf '%s\n' "$uri" >"$work/home/.config/gpuperf/db-uri"
chmod 600 "$work/home/.config/gpuperf/db-uri"
[[ $(recipe file) == 0 ]] || { cat "$work/file.log"; failed "a 0600 location file: the recipe failed"; }
grep -qxF -- "$uri" "$work/nightly-args" || failed "a 0600 location file: nightly.sh was not given it as --db"
[[ ! -e $work/home/gpuperf/nodes ]] || failed "a server location still made node-local files"
if grep -q "$secret" "$work/file.log"; then failed "the recipe printed the password"; fi

# The same file readable by others: refused before anything runs.
chmod 644 "$work/home/.config/gpuperf/db-uri"
[[ $(recipe open) == 2 ]] || failed "a location file others may read was not refused with exit 2"
grep -q "chmod 600" "$work/open.log" || failed "the refusal does not say what to do"
[[ ! -e $work/nightly-args ]] || failed "nightly.sh ran despite the refusal"
if grep -q "$secret" "$work/open.log"; then failed "the refusal printed the password"; fi

# $GPUPERF_DB wins over the file, e.g. a libpq service with its password in ~/.pgpass.
[[ $(recipe env GPUPERF_DB=service=gpuperf) == 0 ]] || failed "GPUPERF_DB=service=gpuperf: the recipe failed"
grep -qx -- "service=gpuperf" "$work/nightly-args" || failed "GPUPERF_DB was not passed as --db"

# No location: the node's own file, copied back for a merge.
rm "$work/home/.config/gpuperf/db-uri"
[[ $(recipe none) == 0 ]] || { cat "$work/none.log"; failed "no location: the recipe failed"; }
grep -qx -- "$work/tmp/gpuperf-$node.db" "$work/nightly-args" || failed "no location: not the node-local file"
[[ -f $work/home/gpuperf/nodes/$node.db ]] || failed "no location: the node's file was not copied back"

((fail)) || echo "slurm recipe: ok"
exit $fail
