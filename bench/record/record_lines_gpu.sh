#!/usr/bin/env bash
# Source lines of `gpuperf record --metrics` on a GPU machine, in one go (docs/source-lines.md, "Recorded
# programs"):
#   0. the probe under each way of reading an instrumented launch's counters (GPUPERF_RECORD_LINES_FLUSH);
#   1. tests/record/lines_probe (a coalesced and a strided copy built with -lineinfo, one kernel without it)
#      recorded with stride 1, then 32, then 32 again with --no-source-lines (wall time without lines);
#   2. `gpuperf compare` of the first two runs: the strided load's line named, 4 -> 32 sectors per request;
#   3. bench/record/programs/triton_add.py recorded: add_kernel's lines in the .py file;
#   4. a table: per identity its source status, its heaviest lines, the lines' warp instructions against the
#      kernel's `instructions`, and the instrumented launches' cost as `record` states it.
#
#   bash bench/record/record_lines_gpu.sh --gpuperf build/cli/gpuperf --probe build/tests/record/lines_probe --out DIR
# Logs and the JSON of each recording under DIR; the table last on stdout. Exit 0 when every step ran.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gpuperf="" probe="" out=""
while (($#)); do
  case $1 in
    --gpuperf) gpuperf=$2; shift ;;
    --probe) probe=$2; shift ;;
    --out) out=$2; shift ;;
    *) echo "usage: $0 --gpuperf PATH --probe PATH --out DIR" >&2; exit 2 ;;
  esac
  shift
done
if [[ -z $gpuperf || -z $probe || -z $out ]]; then
  echo "usage: $0 --gpuperf PATH --probe PATH --out DIR" >&2
  exit 2
fi
mkdir -p "$out"
db="$out/lines.db"
rm -f "$db"
status=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt" 2>&1 || true

record() {  # NAME ARGS...: one recording, its stderr and JSON kept, its wall time in NAME.time
  local name=$1
  shift
  local start end
  start=$(date +%s%N)
  timeout -s INT -k 10 45 "$gpuperf" --db "$db" record --format json "$@" > "$out/$name.json" 2> "$out/$name.log"
  local rc=$?
  end=$(date +%s%N)
  echo "$rc $(((end - start) / 1000000))" > "$out/$name.time"  # ms
  [[ $rc == 0 ]] || { echo "step $name: exit $rc (see $name.log)"; status=1; }
}

# When the instrumented launch's counters are read (GPUPERF_RECORD_LINES_FLUSH, inject_lines.cpp): each way
# on the strided probe until one gives every identity its lines, then the rest with it.
best=""
for mode in next next-quiet next-thread next-thread-quiet exit exit-thread; do
  export GPUPERF_RECORD_LINES_FLUSH=$mode
  record "mode-$mode" --metrics default --name "lines_mode_$mode" \
    --keep-records "$out/records-mode-$mode" -- "$probe" 32
  if grep -q 'source lines: lines for 3 of 3' "$out/mode-$mode.log"; then
    best=$mode
    break  # the later ways (a thread of ours, reading inside the exit callback) are riskier
  fi
done
echo "read mode: ${best:-none gave lines (next used)}" > "$out/mode.txt"
export GPUPERF_RECORD_LINES_FLUSH=${best:-next}

record probe1 --metrics default --name lines_probe --commit 1111111111111111111111111111111111111111 \
  --keep-records "$out/records-probe1" -- "$probe" 1
record probe32 --metrics default --name lines_probe --commit 3232323232323232323232323232323232323232 \
  --keep-records "$out/records-probe32" -- "$probe" 32
record probe32-nolines --metrics default --no-source-lines --name lines_probe_nolines -- "$probe" 32
record triton --metrics default --keep-records "$out/records-triton" -- python3 "$here/programs/triton_add.py" --launches 8

"$gpuperf" --db "$db" compare 1 2 > "$out/compare.txt" 2>&1
echo "compare exit $?" >> "$out/compare.txt"
"$gpuperf" --db "$db" compare 1 2 --format json > "$out/compare.json" 2>> "$out/compare.txt"
"$gpuperf" --db "$db" export > "$out/export.json" 2> "$out/export.log" || status=1
# The library's own lines: per process "S 0 ...", per instrumented launch its status and cost.
for d in "$out"/records-*; do
  [[ -d $d ]] && grep -H '^[SIX] ' "$d"/process-*.txt
done > "$out/source-records.txt" 2>&1

python3 - "$out" <<'EOF'
import json, os, sys
out = sys.argv[1]
def load(name):
    try:
        text = open(os.path.join(out, name + ".json")).read()
        return json.loads(text[text.index('{"format"'):])  # after what the program printed
    except Exception as e:
        print(f"{name}: no JSON ({e})")
        return None
print("GPU:", open(os.path.join(out, "gpu.txt")).read().strip())
if os.path.exists(os.path.join(out, "mode.txt")):
    print(open(os.path.join(out, "mode.txt")).read().strip())
modes = ["next", "next-quiet", "next-thread", "next-thread-quiet", "exit", "exit-thread"]
for name in ["mode-" + m for m in modes] + ["probe1", "probe32", "probe32-nolines", "triton"]:
    if not os.path.exists(os.path.join(out, name + ".time")):
        continue
    rc, wall = open(os.path.join(out, name + ".time")).read().split()
    print(f"\n== {name}: exit {rc}, wall {int(wall) / 1000:.2f} s")
    for line in open(os.path.join(out, name + ".log")):
        if line.startswith("gpuperf: source lines:") or line.startswith("gpuperf: metrics:") or "warning" in line:
            print("  " + line.rstrip()[:600])
    j = load(name)
    if not j:
        continue
    for run in j["runs"]:
        for r in run["results"]:
            name_ = r["benchmark"]
            if name == "triton" and "add_kernel" not in name_:
                continue
            src = r.get("source", {})
            m = r.get("metrics", {})
            def med(k):
                x = m.get(k)
                if not x: return None
                # the interchange format: "value" for one value, else a summary or samples
                if x.get("value") is not None: return x["value"]
                s = x.get("summary", {}).get("median")
                return s if s is not None else (x.get("samples") or [None])[0]
            lines = src.get("lines", [])
            inst = sum(l.get("inst_executed", 0) for l in lines)
            print(f"  {name_} {r.get('params', {})}: source {src.get('status')} launches {src.get('launches')} "
                  f"lines {len(lines)}/{src.get('lines_total')}  {src.get('message', '')[:200]}")
            print(f"    lines' warp instructions {inst:,.0f}  kernel instructions {med('instructions')}")
            for l in sorted(lines, key=lambda l: -l.get("inst_executed", 0))[:4]:
                req = l.get("global_ld_requests", 0)
                per = f"{l.get('global_ld_sectors', 0) / req:.1f}/{l.get('global_ld_sectors_ideal', 0) / req:.1f}" if req else "-"
                where = f"{l.get('file')}:{l.get('line')}" if l.get("file") else f"{l.get('function', '')[:40]}+{l.get('sass_offset')}"
                print(f"    {where}  {l.get('text', '')[:60]!r}  inst {l.get('inst_executed', 0):,.0f}  "
                      f"ld sectors/req (ideal) {per}  st sectors {l.get('global_st_sectors', 0):,.0f}")
print("\n== S, I and X lines of the kept records")
print("".join(open(os.path.join(out, "source-records.txt")).readlines()[:60]))
print("\n== compare 1 2 (stride 1 -> 32)")
print(open(os.path.join(out, "compare.txt")).read()[-3000:])
EOF
exit $status
