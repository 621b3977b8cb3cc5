#!/usr/bin/env bash
# The sample history shipped in share/gpuperf/examples/: nightly runs of the whole default suite on one GPU,
# the landed build for the first nights, then a build with bench/detect/patches/lose_coalescing.patch applied
# (memory/coalesced copies even then odd elements: gld/gst_efficiency 50%, slower) for the last ones.
# Every night is a real `gpuperf run` (verify, time, default metrics) into one database; the export of
# that database is the sample. The GPU machine builds nothing.
#
#   bench/detect/sample_history_gpu.sh --landed BIN --edited BIN --out DIR [--landed-commit SHA] [--edited-commit SHA]
#                               [--landed-nights 8] [--edited-nights 4] [--budget SECONDS]
#
# BIN: a gpuperf executable with libgpuperf_cupti.so beside it. --budget (default 330 s): fewer landed nights
# when the first night shows that all of them would not fit (never fewer than 4: detect's minimum segment).
# Writes DIR/sample.db, DIR/history-raw.json (the export as measured), DIR/logs/; then
# bench/detect/sample_history.py turns history-raw.json into the shipped file (nightly dates, see there).
set -uo pipefail
landed="" edited="" out="" landed_commit=landed edited_commit=edited landed_nights=8 edited_nights=4 budget=330
die() { echo "sample_history_gpu: $*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --landed) landed=${2:?}; shift 2 ;;
    --edited) edited=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --landed-commit) landed_commit=${2:?}; shift 2 ;;
    --edited-commit) edited_commit=${2:?}; shift 2 ;;
    --landed-nights) landed_nights=${2:?}; shift 2 ;;
    --edited-nights) edited_nights=${2:?}; shift 2 ;;
    --budget) budget=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -x $landed && -x $edited && -n $out ]] || die "need --landed BIN, --edited BIN and --out DIR"
mkdir -p "$out/logs"
db=$out/sample.db
rm -f "$db"
begin=$(date +%s)
rows=()
night=0
measure() {  # build commit
  local bin=$1 commit=$2 start rc=0
  night=$((night + 1))
  start=$(date +%s)
  "$bin" --db "$db" run --commit "$commit" --branch main --label nightly \
    >"$out/logs/night-$(printf %02d "$night").log" 2>&1 || rc=$?
  rows+=("$(printf '%5d  %-7s  %4d  %6d' "$night" "$(basename "$(dirname "$bin")")" "$rc" "$(($(date +%s) - start))")")
  echo "${rows[-1]}" >&2
}
measure "$landed" "$landed_commit"
first=$(($(date +%s) - begin))
# Nights that fit the budget, at the first night's pace.
fit=$(((budget - first) / (first > 0 ? first : 1)))
if ((fit < landed_nights - 1 + edited_nights)); then
  landed_nights=$((fit - edited_nights + 1))
  ((landed_nights < 4)) && landed_nights=4
  echo "sample_history_gpu: ${first}s a night: $landed_nights landed nights" >&2
fi
for ((i = 2; i <= landed_nights; i++)); do measure "$landed" "$landed_commit"; done
for ((i = 1; i <= edited_nights; i++)); do measure "$edited" "$edited_commit"; done
"$landed" --db "$db" export -o "$out/history-raw.json" >"$out/logs/export.log" 2>&1
"$landed" --db "$db" detect >"$out/detect.txt" 2>&1
echo "detect exit $?" >>"$out/detect.txt"
"$landed" --db "$db" runs >"$out/runs.txt" 2>&1
echo "night  build    exit  wall s"
printf '%s\n' "${rows[@]}"
tail -25 "$out/detect.txt"
