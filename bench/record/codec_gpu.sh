#!/usr/bin/env bash
# The record file's codec on a GPU (issue 63; about 5 minutes on an H100): every line kind the injected library
# writes, read back by the recorder, through `record` of tests/record/record_probe.cu with each profiling mode
# (--metrics default with its source lines, one-pass groups, --pm-sampling, --no-source-lines), test_record_lines, and then the record matrix
# (bench/record/record_gpu.sh --skip-overhead). A recorder that cannot read a line fails the record (exit 2 naming
# the line), so each row's exit status and what it stored say whether both sides agree.
#
#   bench/record/codec_gpu.sh BUNDLE [OUT]
#
# BUNDLE holds gpuperf, libgpuperf_cupti.so, libgpuperf_inject.so, record_probe, lines_probe, test_record_lines and
# librecord_bare_tracer.so of one build (and libpq and what it needs). The table is printed last.
set -uo pipefail
bundle=$(cd "${1:?codec_gpu.sh BUNDLE [OUT]}" && pwd)
out=${2:-${OUT:?codec_gpu.sh: OUT}}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
export LD_LIBRARY_PATH=$bundle${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GPUPERF_INJECT_LIBRARY=$bundle/libgpuperf_inject.so GPUPERF_CUPTI_MODULE=$bundle/libgpuperf_cupti.so
export GPUPERF_TEST_EXE=$bundle/gpuperf # test_record_lines runs the bundle's gpuperf, not the build tree's
table=$out/table.txt
: >"$table"
row() { printf '%-64s %s\n' "$1" "$2" | tee -a "$table"; }
status=0

rc=0
"$bundle/test_record_lines" >"$out/lines.log" 2>&1 || rc=$?
[[ $rc == 0 ]] || status=1
row "test_record_lines" "exit $rc; $(grep -E '^\[  (PASSED|FAILED) ' "$out/lines.log" | tr '\n' ' ')"

i=0
# Each mode: the program and its arguments, then record's options. Source lines come with --metrics unless
# --no-source-lines; lines_probe's kernels are built with -lineinfo, so its lines carry file and line.
for mode in "record_probe sol 20|--metrics default" \
  "record_probe sol 20|--metrics default --profile-replay one-pass --profile-launches 8" \
  "record_probe sol 20|--pm-sampling --pm-sampling-nvtx sol" \
  "record_probe sol 20|--metrics default --no-source-lines" "lines_probe 32|--metrics default"; do
  i=$((i + 1))
  program=${mode%%|*} args=${mode#*|}
  rc=0
  # shellcheck disable=SC2086 # each mode's options and program arguments, split on purpose
  "$bundle/gpuperf" --db "$out/mode-$i.db" record $args -- "$bundle"/$program >"$out/mode-$i.log" 2>&1 || rc=$?
  [[ $rc == 0 ]] || status=1
  stored=$("$bundle/gpuperf" --db "$out/mode-$i.db" export 2>/dev/null | python3 -c 'import json, sys
names, kernels, lines = set(), 0, 0
for run in json.load(sys.stdin)["runs"]:
    for r in run["results"]:
        kernels += 1
        names |= set(r["metrics"])
        lines += len((r.get("source") or {}).get("lines") or [])
shown = sorted(n for n in names if n.startswith(("pm_", "sol_", "dram_bytes")))[:5]
print("%d kernels, %d metrics (%s), %d source lines" % (kernels, len(names), ", ".join(shown), lines))')
  row "record $args -- $program" "exit $rc; $stored"
done

rc=0
bash "$here/record_gpu.sh" --gpuperf "$bundle/gpuperf" --probe "$bundle/record_probe" --out "$out/matrix" \
  --skip-overhead >"$out/matrix.log" 2>&1 || rc=$?
[[ $rc == 0 ]] || status=1
row "bench/record/record_gpu.sh --skip-overhead" "exit $rc (log: matrix.log)"
echo
cat "$table"
exit $status
