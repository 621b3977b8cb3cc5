#!/usr/bin/env bash
# The record file's codec on a GPU (issue 63; about 5 minutes on an H100): every line kind the injected library
# writes, read back by the recorder, through `record` of tests/record/record_probe.cu with each profiling mode
# (--metrics default, one-pass groups, --pm-sampling, --source-lines), test_record_lines, and then the record matrix
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
table=$out/table.txt
: >"$table"
row() { printf '%-64s %s\n' "$1" "$2" | tee -a "$table"; }
status=0

rc=0
"$bundle/test_record_lines" >"$out/lines.log" 2>&1 || rc=$?
[[ $rc == 0 ]] || status=1
row "test_record_lines" "exit $rc; $(grep -E '^\[  (PASSED|FAILED) ' "$out/lines.log" | tr '\n' ' ')"

i=0
for args in "--metrics default" "--metrics default --profile-replay one-pass --profile-launches 8" \
  "--pm-sampling --pm-sampling-nvtx sol" "--metrics default --source-lines"; do
  i=$((i + 1))
  rc=0
  # shellcheck disable=SC2086 # each mode's options, split on purpose
  "$bundle/gpuperf" --db "$out/mode-$i.db" record $args -- "$bundle/record_probe" sol 20 >"$out/mode-$i.log" 2>&1 ||
    rc=$?
  [[ $rc == 0 ]] || status=1
  stored=$("$bundle/gpuperf" --db "$out/mode-$i.db" export 2>/dev/null | python3 -c 'import json, sys
names, kernels = set(), 0
for run in json.load(sys.stdin)["runs"]:
    for r in run["results"]:
        kernels += 1
        names |= set(r["metrics"])
shown = sorted(n for n in names if n.startswith(("pm_", "sol_", "dram_bytes")))[:5]
print("%d kernels, %d metrics (%s)" % (kernels, len(names), ", ".join(shown)))')
  row "record $args" "exit $rc; $stored"
done

rc=0
bash "$here/record_gpu.sh" --gpuperf "$bundle/gpuperf" --probe "$bundle/record_probe" --out "$out/matrix" \
  --skip-overhead >"$out/matrix.log" 2>&1 || rc=$?
[[ $rc == 0 ]] || status=1
row "bench/record/record_gpu.sh --skip-overhead" "exit $rc (log: matrix.log)"
echo
cat "$table"
exit $status
