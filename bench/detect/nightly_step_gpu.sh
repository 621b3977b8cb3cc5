#!/usr/bin/env bash
# Night-one alerts on a GPU: three nights of the landed build, then one night of a build whose
# memory/coalesced kernel lost coalescing (bench/detect/patches/lose_coalescing.patch). The fourth nightly must
# exit 1 and report the duration regression with gld_efficiency in the same finding. Every night runs
# ci/nightly.sh into one database and one artifacts folder; the GPU machine builds nothing.
#
#   bench/detect/nightly_step_gpu.sh --landed BIN --edited BIN --out DIR [--filter REGEX] [--instance NAME]
#                             [--expect METRIC]
#
# BIN is a gpuperf executable with libgpuperf_cupti.so beside it (without it there are no counters to name).
# --filter: the instances measured each night (default: five, the edited one among them, < 1 min a night);
# --instance: the edited instance (default memory/coalesced); --expect: the metric the duration's finding
# must name (default gld_efficiency; achieved_occupancy for bench/detect/patches/lose_occupancy.patch on
# stencil1d/shared). --import-dir DIR (no GPU; the CI test of this
# script) imports DIR/night-01..04.json instead of measuring. Writes DIR/history.db, DIR/artifacts/,
# DIR/summary-NIGHT.md and DIR/logs/; prints a table of the nights and the edited instance's finding last.
# --expect-line TEXT: the edited night's summary must also name a source line containing TEXT under "Source
# lines that moved" (runs that collect source lines; e.g. 'out[j] = in[j]' for lose_coalescing.patch).
# --source DIR --landed-commit C --edited-commit C: before each night, DIR (a git checkout) is checked out at the
# night's commit and given to ci/nightly.sh, as a nightly runs its build beside the tree it was built from (the
# lines' text and the run's commit are the build's own).
# Exit 0 when the landed nights exit 0 and the edited night exits 1 naming METRIC (and the line); else 1.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
landed=""
edited=""
out=""
filter='^(memory/coalesced|memory/strided\[stride=32\]|matmul/tiled\[n=1024,tile=16\]|transpose/padded\[n=4096\]|vector_add/add\[block=256\])$'
instance=memory/coalesced
expect=gld_efficiency
import_dir=""
expect_line=""
source_dir=""
landed_commit=""
edited_commit=""
die() { echo "nightly_step_gpu: $*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --landed) landed=${2:?--landed needs a gpuperf executable}; shift 2 ;;
    --edited) edited=${2:?--edited needs a gpuperf executable}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --filter) filter=${2:?--filter needs a regex}; shift 2 ;;
    --instance) instance=${2:?--instance needs a name}; shift 2 ;;
    --expect) expect=${2:?--expect needs a metric name}; shift 2 ;;
    --expect-line) expect_line=${2:?--expect-line needs the text of a line}; shift 2 ;;
    --import-dir) import_dir=${2:?--import-dir needs a folder}; shift 2 ;;
    --source) source_dir=${2:?--source needs a git checkout}; shift 2 ;;
    --landed-commit) landed_commit=${2:?--landed-commit needs a commit}; shift 2 ;;
    --edited-commit) edited_commit=${2:?--edited-commit needs a commit}; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -n $landed && -n $edited && -n $out ]] || die "need --landed BIN, --edited BIN and --out DIR (see --help)"
for bin in "$landed" "$edited"; do
  [[ -x $bin ]] || die "'$bin' is not an executable"
  [[ -n $import_dir || -f $(dirname "$bin")/libgpuperf_cupti.so ]] ||
    echo "nightly_step_gpu: warning: no libgpuperf_cupti.so beside $bin: no hardware counters" >&2
done
landed=$(realpath "$landed")
edited=$(realpath "$edited")
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
rm -rf "$out/artifacts" "$out/history.db" "$out"/summary-*.md

nights=(2026-01-01 2026-01-02 2026-01-03 2026-01-04)
builds=(landed landed landed edited)
rows=()
codes=()
for i in 0 1 2 3; do
  night=${nights[$i]}
  bin=$landed
  [[ ${builds[$i]} == edited ]] && bin=$edited
  args=(--gpuperf "$bin" --db "$out/history.db" --artifacts "$out/artifacts" --branch main --night "$night"
        --filter "$filter")
  [[ -n $import_dir ]] && args+=(--import "$import_dir/night-0$((i + 1)).json")
  if [[ -n $source_dir ]]; then
    # As a real nightly: the night's build runs beside the checkout it was built from (its commit, its text).
    commit=$landed_commit
    [[ ${builds[$i]} == edited ]] && commit=$edited_commit
    git -C "$source_dir" checkout -q --detach "$commit" || die "cannot check out $commit in $source_dir"
    args+=(--source "$source_dir")
  fi
  start=$(date +%s)
  rc=0
  bash "$repo/ci/nightly.sh" "${args[@]}" >"$out/logs/nightly-$night.log" 2>&1 || rc=$?
  seconds=$(($(date +%s) - start))
  codes+=("$rc")
  new=0
  if [[ -f $out/artifacts/summary.md ]]; then
    cp "$out/artifacts/summary.md" "$out/summary-$night.md"
    new=$(sed -nE 's/^\*\*([0-9]+) new regressions? tonight\*\*$/\1/p' "$out/summary-$night.md")
  fi
  rows+=("$(printf '%-10s  %-6s  %4s  %15s  %5s' "$night" "${builds[$i]}" "$rc" "${new:-0}" "$seconds")")
done

last=$out/summary-${nights[3]}.md
# The instance's rows of the new-tonight table and of the report's Regressions table (where Markdown
# escapes brackets).
escaped=${instance//[/\\[}
escaped=${escaped//]/\\]}
finding=$(PLAIN="| $instance" ESCAPED="| $escaped" awk '
  /^\*\*[0-9]+ new regressions? tonight/ || /^### Regressions/ { keep = 1; next }
  /^## / || /^### / { keep = 0 }
  keep && (index($0, ENVIRON["PLAIN"]) == 1 || index($0, ENVIRON["ESCAPED"]) == 1)' "$last" 2>/dev/null)
ok=1
for i in 0 1 2; do [[ ${codes[$i]} == 0 ]] || ok=0; done
[[ ${codes[3]} == 1 ]] || ok=0
# Markdown may escape the metric's underscores.
# shellcheck disable=SC2001  # a regex per underscore is clearer in sed
expect_re=$(sed 's/_/\\\\?_/g' <<<"$expect")
grep -E '\| duration \|' <<<"$finding" | grep -Eq "$expect_re" || ok=0
# The source lines the summary names for the instance (new_regressions.py lists them under its table).
lines_named=$(awk '/^Source lines that moved:/ { keep = 1; next } keep && /^- / { print } keep && /^$/ && n++ { keep = 0 }' \
  "$last" 2>/dev/null | grep -F -- "$instance" || true)
if [[ -n $expect_line ]]; then grep -Fq -- "$expect_line" <<<"$lines_named" || ok=0; fi

echo
echo "night       build   exit  new regressions  wall s"
printf '%s\n' "${rows[@]}"
echo
echo "The edited night's findings for $instance (new tonight, then the report's table), from $last:"
echo "${finding:-  (none)}"
echo "Source lines named for $instance:"
echo "${lines_named:-  (none)}"
echo
line_said=""
[[ -n $expect_line ]] && line_said=" and the line \"$expect_line\""
if ((ok)); then
  echo "nightly_step_gpu: OK: landed nights exit 0; the edited night exits 1 and names $expect in the duration's finding$line_said"
  exit 0
fi
echo "nightly_step_gpu: FAILED: expected exits 0 0 0 1 (got ${codes[*]}) and $expect in the duration's finding$line_said (logs: $out/logs)"
exit 1
