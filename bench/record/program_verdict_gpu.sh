#!/usr/bin/env bash
# A recorded program's verdict on a GPU (docs/regressions.md, "A recorded program's verdict"): a transformers
# decoder built from its config (programs/transformers_attention.py) recorded 3 times on main with SDPA
# attention, then `check --record --gate program_time` of the unchanged program (A/A, twice: each must exit 0
# with the program's line "same") and of the program switched to eager attention (the planted change: the
# program's line, its family table and the replaced kernels), and `compare` of that change under the default
# gate. Prints a table last; every check's Markdown is kept under OUT.
#
#   bench/record/program_verdict_gpu.sh BUNDLE [OUT]
#
# BUNDLE holds gpuperf, libgpuperf_inject.so and libgpuperf_cupti.so, with the shared libraries the store needs
# where the machine lacks them (libpq.so.5 ...: found through LD_LIBRARY_PATH). Needs python3 with torch and
# transformers. LAYERS, STEPS (defaults 8, 6) size the model's run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bundle=${1:?program_verdict_gpu.sh BUNDLE [OUT]}
out=${2:-${OUT:?program_verdict_gpu.sh: OUT}}
bundle=$(cd "$bundle" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export LD_LIBRARY_PATH=$bundle${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GPUPERF_INJECT_LIBRARY=$bundle/libgpuperf_inject.so GPUPERF_CUPTI_MODULE=$bundle/libgpuperf_cupti.so
G=$bundle/gpuperf
for f in "$G" "$GPUPERF_INJECT_LIBRARY" "$GPUPERF_CUPTI_MODULE"; do
  [[ -e $f ]] || { echo "program_verdict_gpu.sh: $f missing from the bundle" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuperf-program-verdict-XXXXXX")
trap 'rm -rf "$work"' EXIT
db=$work/verdict.db
prog=(python3 "$here/programs/transformers_attention.py" --layers "${LAYERS:-8}" --steps "${STEPS:-6}")
base=aaaa00000000000000000000000000000000000a
cand=bbbb00000000000000000000000000000000000b
summary=$out/program-verdict-summary.txt
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }
rows=()
# seconds_since NS: the seconds since `date +%s%N` said NS, one decimal.
seconds_since() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }

for i in 1 2 3; do
  start=$(date +%s%N)
  GPUPERF_BENCH_ATTN=sdpa "$G" -q --db "$db" record --commit $base --branch main -- "${prog[@]}" \
    >"$out/base$i.txt" 2>&1
  rc=$?
  rows+=("base $i (sdpa, record)|$rc|$(seconds_since "$start") s|-")
done

# check NAME ATTN COMMIT: check --record against main, Markdown kept; adds a row.
check() {
  local name=$1 attn=$2 commit=$3 start rc line
  start=$(date +%s%N)
  GPUPERF_BENCH_ATTN=$attn "$G" -q --db "$db" check --record --baseline main --commit "$commit" --branch feature \
    --gate program_time --format md -- "${prog[@]}" >"$out/$name.md" 2>"$out/$name.err"
  rc=$?
  line=$(grep -m1 '^\*\*program ' "$out/$name.md" | sed 's/^\*\*//; s/\*\*$//')
  rows+=("$name ($attn, check --record)|$rc|$(seconds_since "$start") s|${line:-no program line}")
  say "== $name: exit $rc, $(wc -l <"$out/$name.md") lines of Markdown"
  sed -n '/^\*\*program /,/^GPU time by NVTX/p' "$out/$name.md" | tee -a "$summary"
  sed -n '/^Replaced kernels:/,/^$/p' "$out/$name.md" | tee -a "$summary"
}
check aa1 sdpa $base
check aa2 sdpa $base
check eager eager $cand
# The same eager candidate without --gate program_time: the kernels' own rows decide alone.
"$G" -q --db "$db" compare main "$cand" >"$out/ungated.txt" 2>&1
rows+=("eager, compare (default gate)|$?|-|$(grep -m1 '^program ' "$out/ungated.txt")")
"$G" -q --db "$db" runs >"$out/runs.txt" 2>&1

say ""
say "| step | exit | wall | program line |"
say "| --- | ---: | ---: | --- |"
for r in "${rows[@]}"; do
  IFS='|' read -r a b c d <<<"$r"
  say "| $a | $b | $c | $d |"
done
