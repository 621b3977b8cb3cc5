#!/usr/bin/env bash
# Issue 65's per-chip facts on a GPU (about 3 minutes on an H100):
#   1. a launch the chip cannot run is `unsupported` with the reason (a block of 2048 threads; a kernel built for
#      sm_75 alone) and the next instance runs (test_kernels_gpu);
#   2. the L2 state each flush leaves, read by Nsight Compute (tests/collector/l2_flush_probe.cu): probe_dirty writes
#      8 MiB, a flush runs, probe_read reads the 8 MiB. A flush that works leaves probe_read reading >= 7.5 MiB of
#      DRAM and writing < 0.5 MiB back; no flush leaves it reading < 1 MiB; the write flush alone is a reference. The probe built from compute_75 PTX runs Turing's code (no discard: the
#      collector's flush reads a second buffer), compiled at load on this GPU; `driver-turing` is record's Turing PTX;
#   3. `record --metrics dram_bytes_read,dram_bytes_written` of record_probe sol 4 with OLD_BUNDLE's and BUNDLE's
#      injected library (the flush is now driver_l2_flush.cpp's): the stored DRAM bytes of each build;
#   4. bench/record/l2_state_gpu.sh with BUNDLE (its own exit status says whether record's flush empties L2).
#
#   bench/gpu/chip_limits_gpu.sh BUNDLE OLD_BUNDLE [OUT]
#
# BUNDLE holds gpuperf, libgpuperf_cupti.so, libgpuperf_inject.so, test_kernels_gpu, l2_flush_probe,
# l2_flush_probe_sm75 and record_probe; OLD_BUNDLE the first three (and record_probe) of the build before.
# Exit 1 when a flush leaves L2 otherwise than above or a step fails. The table is printed last.
set -uo pipefail
new=$(cd "${1:?chip_limits_gpu.sh BUNDLE OLD_BUNDLE [OUT]}" && pwd)
# shellcheck disable=SC2034 # read as ${!build}
old=$(cd "${2:?chip_limits_gpu.sh BUNDLE OLD_BUNDLE [OUT]}" && pwd)
out=${3:-${OUT:?chip_limits_gpu.sh: OUT}}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
# The bundle's libraries (libpq, sqlite) for both builds' gpuperf, whatever the caller's environment.
export LD_LIBRARY_PATH=$new${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
table=$out/table.txt
: >"$table"
row() { printf '%-46s %s\n' "$1" "$2" | tee -a "$table"; }
status=0

rc=0
"$new/test_kernels_gpu" --gtest_filter='OnGpu.ALaunch*' >"$out/limits.log" 2>&1 || rc=$?
[[ $rc == 0 ]] || status=1
row "unsupported launches (test_kernels_gpu)" "exit $rc; $(grep -m1 '\[ limits' "$out/limits.log" | cut -c14-130)"

if command -v ncu >/dev/null; then
  for probe in l2_flush_probe l2_flush_probe_sm75; do
    for mode in none write runtime driver driver-turing; do
      rc=0
      ncu --csv --print-units base --cache-control none -k regex:probe_read \
        --metrics dram__bytes_read.sum,dram__bytes_write.sum "$new/$probe" "$mode" >"$out/$probe-$mode.csv" \
        2>"$out/$probe-$mode.err" || rc=$?
      line=$(python3 - "$out/$probe-$mode.csv" "$mode" <<'PY'
import csv, sys
values, said = {}, ""
with open(sys.argv[1]) as f:
    lines = f.read().splitlines()
said = next((l for l in lines if l.startswith("mode ")), "")
rows = [l for l in lines if l.startswith('"')]
for r in csv.DictReader(rows):
    values[r["Metric Name"]] = float(r["Metric Value"].replace(",", "")) / 2**20
read, written = values.get("dram__bytes_read.sum", -1), values.get("dram__bytes_write.sum", -1)
mode = sys.argv[2]
# none and write are the references (no flush; a write flush alone, as Turing's code did before it read a second
# buffer): printed, not judged, beyond none reading from L2.
ok = read < 1 if mode == "none" else True if mode == "write" else read >= 7.5 and 0 <= written < 0.5
what = {"none": "warm (no flush)", "write": "reference: the write flush alone"}.get(
    mode, "cold, nothing written back" if ok else "L2 NOT EMPTIED")
print("%s read %.2f MiB, written %.2f MiB: %s | %s" % ("ok  " if ok else "FAIL", read, written, what,
      said.split(": ", 1)[-1]))
PY
)
      [[ $rc == 0 && $line == ok* ]] || status=1
      row "$probe $mode" "exit $rc; $line"
    done
  done
else
  row "L2 flush probes" "no ncu on this machine"
fi

for build in old new; do
  dir=${!build}
  rc=0
  rm -f "$out/record-$build.db"
  GPUPERF_INJECT_LIBRARY=$dir/libgpuperf_inject.so GPUPERF_CUPTI_MODULE=$dir/libgpuperf_cupti.so \
    "$dir/gpuperf" --db "$out/record-$build.db" record --metrics dram_bytes_read,dram_bytes_written \
    -- "$new/record_probe" sol 4 >"$out/record-$build.log" 2>&1 || rc=$?
  [[ $rc == 0 ]] || status=1
  dram=$("$new/gpuperf" --db "$out/record-$build.db" export 2>/dev/null | python3 -c 'import json, statistics, sys
cells = []
for run in json.load(sys.stdin)["runs"]:
    for r in run["results"]:
        m = r["metrics"]
        if "dram_bytes_read" in m:
            v = lambda n: (statistics.median(m[n]["samples"]) if "samples" in m.get(n, {})
                           else m.get(n, {}).get("value", float("nan"))) / 2**20
            cells.append("%s %.1f/%.1f" % (r["benchmark"].split("/")[-1][:18], v("dram_bytes_read"), v("dram_bytes_written")))
print("; ".join(cells[:4]) or "no DRAM counters stored")')
  row "record --metrics dram ($build build)" "exit $rc; MiB read/written: $dram"
done

rc=0
PATH=$new:$PATH bash "$here/../record/l2_state_gpu.sh" "$new/gpuperf" "$out/l2_state" >"$out/l2_state.log" 2>&1 || rc=$?
[[ $rc == 0 ]] || status=1
row "bench/record/l2_state_gpu.sh (new build)" "exit $rc (1: a one-pass launch read less than 7.5 MiB)"
echo
cat "$table"
exit $status
