#!/usr/bin/env bash
# docs/gpus.md's tables are what `gpuperf metrics --chip all --format md` prints (CUPTI's host API, no GPU):
# the page cannot drift from what gpuperf measures on each chip. On a difference: regenerate the block with
#   gpuperf metrics --chip all --format md
# and paste it between the page's two markers.
#   test_gpus_doc.sh GPUPERF_BIN
set -euo pipefail
gpuperf=$1
repo=$(cd "$(dirname "$0")/../.." && pwd)
doc=$repo/docs/gpus.md
begin='<!-- gpuperf metrics --chip all --format md: begin -->'
end='<!-- gpuperf metrics --chip all --format md: end -->'
if ! grep -qF -- "$begin" "$doc" || ! grep -qF -- "$end" "$doc"; then
  echo "FAIL: $doc lacks its markers" >&2
  exit 1
fi
want=$(mktemp)
got=$(mktemp)
trap 'rm -f "$want" "$got"' EXIT
awk -v b="$begin" -v e="$end" '$0 == e {on = 0} on {print} $0 == b {on = 1}' "$doc" >"$want"
"$gpuperf" metrics --chip all --format md >"$got"
diff -u "$want" "$got" >&2 || { echo "FAIL: docs/gpus.md differs from gpuperf metrics --chip all --format md" >&2; exit 1; }
echo "docs/gpus.md: the tables match gpuperf metrics --chip all"
