#!/usr/bin/env bash
# Which way of profiling a recorded program reads DRAM as a cold L2 would (issue 55): the same elementwise
# kernels (bench/record/programs/l2_state.py: out = x * 2 over 8 MiB, which fits in the L2; the same reading what
# that has just written; and one over 512 MiB)
# under `record --metrics` with a set of one pass (nothing saved or restored), the default set (4 passes on
# GH100, kernel replay saving and restoring memory), a set of several passes with the DRAM counters and the default
# set with --profile-replay one-pass (each launch one of its one-pass groups), against
# Nsight Compute with --cache-control all and none. A cold read of the small tensors is 8 MiB; a warm one is near 0.
# Prints one table: per cell and kernel (name, grid, NVTX range), its launches' DRAM bytes read and written (MiB).
# Exit 1 when a one-pass launch of "small" or "chain" reads less than 7.5 MiB: the L2 was not emptied before it.
#   bench/record/l2_state_gpu.sh GPUPERF_BIN OUT_DIR
set -uo pipefail
gpuperf=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
prog="$here/programs/l2_state.py"
mkdir -p "$out"
# The elementwise kernels' rows, from a database (ours) or an ncu CSV (stored_counters.py reads both).
ours_py='
import sys
from stored_counters import stored_identities
mib = lambda s: " ".join("%.2f" % (v / 2**20) for v in s) or "-"
for benchmark, p, m in stored_identities(sys.argv[2], sys.argv[3]):
    if "elementwise" in benchmark:
        print("| %s | %s %s [%s] | %s | %s |" % (sys.argv[1], benchmark.split("/", 1)[-1][:34], p.get("grid", ""),
              p.get("nvtx", ""), mib(m.get("dram_bytes_read", [])), mib(m.get("dram_bytes_written", []))))'
ncu_py='
import sys
from stored_counters import ncu_rows
rows = {}
for kernel, grid, metric, value in ncu_rows(sys.argv[2]):
    if "elementwise" in kernel:
        rows.setdefault((kernel[:34], grid), {}).setdefault(metric, []).append(value / 2**20)
for (name, grid), ms in rows.items():
    f = lambda n: " ".join("%.2f" % v for v in ms.get(n, [])) or "-"
    print("| %s | %s %s | %s | %s |" % (sys.argv[1], name, grid, f("dram__bytes_read.sum"), f("dram__bytes_write.sum")))'
echo "| cell | kernel | DRAM read MiB, each sample | DRAM written MiB |"
echo "|---|---|---|---|"
cell() { # NAME RECORD-ARGS...
  local name=$1
  shift
  rm -f "$out/$name.db"
  GPUPERF_RECORD_PROFILE_TRACE=1 timeout 120 "$gpuperf" --db "$out/$name.db" record --no-source-lines "$@" \
    -- python3 "$prog" >"$out/$name.log" 2>&1 || echo "| $name | record exited $? | | |"
  PYTHONPATH="$here" python3 -c "$ours_py" "$name" "$gpuperf" "$out/$name.db" | tee -a "$out/ours.md"
}
rm -f "$out/ours.md"
cell onepass --metrics dram_bytes_read,dram_bytes_written
cell default --metrics default
# Every metric in each launch (not split): the DRAM counters replayed beside an 8-pass throughput.
cell multipass --metrics dram_bytes_read,dram_bytes_written,sm_throughput --profile-groups 1
# The default set, one pass a launch: its one-pass groups over an identity's launches.
cell default-one-pass --metrics default --profile-replay one-pass --profile-launches 8
if command -v ncu >/dev/null; then
  for cc in all none; do
    timeout 150 ncu --csv --cache-control "$cc" --metrics dram__bytes_read.sum,dram__bytes_write.sum \
      -k regex:elementwise python3 "$prog" >"$out/ncu-$cc.csv" 2>"$out/ncu-$cc.err" || echo "| ncu-$cc | exited $? | | |"
    PYTHONPATH="$here" python3 -c "$ncu_py" "ncu-$cc" "$out/ncu-$cc.csv"
  done
fi
# The check: every one-pass sample of "small" and "chain" reads their 8 MiB.
python3 - "$out/ours.md" <<'PY'
import sys
bad = []
for line in open(sys.argv[1]):
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) < 3 or cells[0] not in ("onepass", "default-one-pass"):
        continue
    if "[small]" in cells[1] or "[chain]" in cells[1]:
        bad += ["%s %s: %s MiB" % (cells[0], cells[1], v) for v in cells[2].split() if float(v) < 7.5]
print("check: " + ("every one-pass launch of small and chain read its 8 MiB" if not bad else
                   "read less than 7.5 MiB (the L2 was not emptied): " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PY
