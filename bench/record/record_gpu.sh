#!/usr/bin/env bash
# `gpuperf record` on a GPU machine, end to end (README.md, "Recording a program"):
#   1. the test program tests/record/record_probe.cu (several kernels, nested NVTX ranges, a child process):
#      the stored launches must be exactly the ones it made, and each kernel's median duration must match
#      the program's own CUDA-event timing within 3% + 3 us;
#   2. how a failing program is stored: a non-zero exit, SIGTERM, a program without CUDA;
#   3. a PyTorch program (matmuls, softmax): its cuBLAS and PyTorch kernels by name (skipped without torch);
#   4. overhead: what `record` costs a PyTorch loop and programs of ~10 us and ~2 us kernels, against a bare
#      CUPTI tracer (record_overhead.py; the tracer, librecord_bare_tracer.so, is built next to record_probe);
#   5. --metrics against ncu on the same launches (skipped without ncu);
#   6. a program using every GPU of the machine: a run per GPU (skipped with fewer than two).
#
#   bench/record/record_gpu.sh --gpuperf BIN --probe BIN --out DIR [--skip-overhead]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
gpuperf="" probe="" out="" overhead=1
while (($#)); do
  case "$1" in
    --gpuperf) gpuperf=$(realpath "$2"); shift 2 ;;
    --probe) probe=$(realpath "$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --skip-overhead) overhead=0; shift ;;
    *) echo "record_gpu.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x $gpuperf && -x $probe && -n $out ]] || { echo "record_gpu.sh: need --gpuperf, --probe and --out" >&2; exit 2; }
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$out" || exit 2
fails=0
verdict() { if [[ $1 == ok ]]; then echo "ok   $2"; else echo "FAIL $2"; fails=$((fails + 1)); fi; }
gp() { "$gpuperf" --db "$out/record.db" "$@"; }
is() { if [[ $1 == "$2" ]]; then verdict ok "$3"; else verdict fail "$3 (got exit $1)"; fi; }

# 1. The test program against its own timing (and, for reference, its timing when not recorded).
"$probe" truth "$out/plain.txt" >/dev/null 2>&1
rc=0
gp record --keep-records "$out/records" -- "$probe" truth "$out/truth.txt" >"$out/record1.txt" 2>&1 || rc=$?
cat "$out/record1.txt"
is "$rc" 0 "record of record_probe exits 0"
gp export --run 1 -o "$out/run1.json" >/dev/null 2>&1
python3 - "$out/run1.json" "$out/truth.txt" "$out/truth.txt.child" "$out/plain.txt" "$out/plain.txt.child" <<'PY' || fails=$((fails + 1))
import json, statistics, sys
run = json.load(open(sys.argv[1]))["runs"][0]
def load(paths):
    singles, batches = {}, {}
    for path in paths:
        for line in open(path):
            f = line.split()
            key = (f[1], "" if f[2] == "-" else f[2], f[3], f[4])
            if f[0] == "T":
                singles.setdefault(key, []).append(float(f[5]) * 1000)
            else:
                batches[key] = (int(f[5]), float(f[6]) * 1000)
    return singles, batches
singles, batches = load(sys.argv[2:4])
plain_singles, plain_batches = load(sys.argv[4:6])
stored = {}
for r in run["results"]:
    p = r.get("params", {})
    kernel = r["benchmark"].split("/", 1)[1].replace("(anonymous namespace)::", "")
    stored[(kernel, p.get("nvtx", ""), p["grid"], p["block"])] = r["metrics"]
# Launches must match exactly. Durations: the program times launches back to back between two events; the
# mean of that span includes one event's cost shared by all and the gaps between launches. The check (3% +
# 3 us) uses the program's own run without gpuperf, because under any CUPTI tracer each launch also carries
# the tracer's per-kernel cost (shown: "recorded"). Single launches each between their own two events read
# ~6 us longer (the events' cost), recorded or not, shown for reference.
print(f"{'kernel':8} {'nvtx':13} {'grid':10} {'made':>4} {'stored':>6} | {'batch events mean':>17} {'(recorded)':>10} "
      f"{'stored mean':>11} {'diff':>8} | {'single events':>13} {'stored':>9}  verdict")
bad = 0
for key in sorted(set(singles) | set(batches)):
    made = len(singles.get(key, [])) + batches.get(key, (0, 0))[0]
    m = stored.get(key)
    if m is None:
        print(f"{key[0]:8} {key[1]:13} {key[2]:10} {made:4}  MISSING"); bad += 1; continue
    launches = int(m["launches"]["value"])
    samples = m["duration"]["samples"]
    count, batch_ns = batches[key]
    plain_count, plain_ns = plain_batches.get(key, (count, batch_ns))
    ev_mean = plain_ns / plain_count
    st_mean = statistics.mean(samples[-count:])  # the batch came last, in launch order
    ok = launches == made and abs(st_mean - ev_mean) <= 0.03 * ev_mean + 3000
    bad += not ok
    print(f"{key[0]:8} {key[1]:13} {key[2]:10} {made:4} {launches:6} | {ev_mean/1000:14.2f} us {batch_ns/count/1000:7.2f} us "
          f"{st_mean/1000:8.2f} us {100*(st_mean-ev_mean)/ev_mean:+7.2f}% | {statistics.median(singles[key])/1000:10.2f} us "
          f"{statistics.median(samples[:-count])/1000:6.2f} us  {'ok' if ok else 'MISMATCH'}")
for key in set(stored) - set(singles) - set(batches):
    print(f"unexpected identity stored: {key}"); bad += 1
print(f"command: {run.get('command')}  exit_status: {run.get('exit_status')}")
sys.exit(1 if bad else 0)
PY
echo

# 2. Failures.
rc=0; gp record -- "$probe" truth "$out/t2.txt" --exit 7 >"$out/record2.txt" 2>&1 || rc=$?
is "$rc" 5 "a program exiting 7: record exits 5"
rc=0; gp record -- "$probe" truth "$out/t3.txt" --sigterm >"$out/record3.txt" 2>&1 || rc=$?
is "$rc" 5 "a program killed by SIGTERM: record exits 5"
gp runs --format json >"$out/runs.json" 2>/dev/null
python3 - "$out/runs.json" <<'PY' || fails=$((fails + 1))
import json, sys
runs = json.load(open(sys.argv[1]))
runs = runs["runs"] if isinstance(runs, dict) else runs
print("stored runs:", [(r.get("id"), r.get("status"), r.get("exit_status"), r.get("instances", r.get("results"))) for r in runs])
PY
gp export -o "$out/all.json" >/dev/null 2>&1
python3 - "$out/all.json" <<'PY' || fails=$((fails + 1))
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
want = {1: 0, 2: 7, 3: -15}
bad = 0
for i, r in enumerate(runs, 1):
    launches = sum(int(x["metrics"]["launches"]["value"]) for x in r["results"])
    ok = r.get("exit_status") == want.get(i) and launches == 52
    bad += not ok
    print(f"run {i}: status {r['status']}, exit_status {r.get('exit_status')}, {len(r['results'])} kernels, "
          f"{launches} launches (52 made)  {'ok' if ok else 'MISMATCH'}")
sys.exit(1 if bad or len(runs) != 3 else 0)
PY
rc=0; gp record -- "$probe" nocuda >"$out/record4.txt" 2>&1 || rc=$?
grep -q "nothing recorded" "$out/record4.txt" || rc="$rc, no message"
is "$rc" 2 "a program without CUDA: exit 2 with a message, nothing stored"
# No GPU visible to CUDA: exit 3, nothing stored. With every GPU hidden, CUDA says so before the program
# runs; with a GPU that does not exist, NVML's count let it start and CUDA's check, made while it ran, fails.
before=$(gp runs 2>/dev/null | wc -l)
for visible in "" 7; do
  rc=0; CUDA_VISIBLE_DEVICES=$visible gp record -- "$probe" truth "$out/t7.txt" >"$out/record7.txt" 2>&1 || rc=$?
  grep -q "no CUDA GPU is available" "$out/record7.txt" || rc="$rc, no message"
  [[ $(gp runs 2>/dev/null | wc -l) == "$before" ]] || rc="$rc, a run was stored"
  is "$rc" 3 "CUDA_VISIBLE_DEVICES='$visible': exit 3 naming the cause, nothing stored"
done
echo

# 3. PyTorch.
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  cat >"$out/torch_probe.py" <<'PY'
import torch
x = torch.randn(2048, 2048, device="cuda")
w = torch.randn(2048, 2048, device="cuda")
for step in range(5):
    torch.cuda.nvtx.range_push(f"step")
    y = x @ w
    z = torch.softmax(y, dim=-1)
    torch.cuda.nvtx.range_pop()
torch.cuda.synchronize()
print("sum", float(z.sum()))
PY
  rc=0; gp record --name torch_probe -- python3 "$out/torch_probe.py" >"$out/torch.txt" 2>&1 || rc=$?
  head -20 "$out/torch.txt"
  if [[ $rc == 0 ]] && grep -qiE "gemm|sm90|cutlass|cublas" "$out/torch.txt" && grep -qi "softmax" "$out/torch.txt"; then
    verdict ok "PyTorch: cuBLAS and softmax kernels recorded by name"
  else
    verdict fail "PyTorch (exit $rc)"
  fi
else
  echo "skip PyTorch: no torch with CUDA here"
fi
echo

# 5. Hardware metrics (--metrics default): the first 2 launches of each kernel, against ncu on the same
#    program (ncu profiles every launch; its first launch of each kernel is compared). gld_efficiency must
#    agree to 0.01 and the shared-memory wavefront counts within 2%, except stage's, which its code does not fix:
#    65,536 conflict-free accesses each way, and both tools read 1-10% more, varying with memory timing (gpuperf
#    read 0.2-0.7% above ncu on an H100 and 1.2-1.7% on an H200 once; on 2026-12-07 an H100 with driver 580.159.04
#    gave 68,358-68,505 in six records, the pre-codec and the codec build alike, against ncu's 70,363-70,720),
#    so stage's counts must lie in 65,536..72,090, the code's count and its 10%. DRAM bytes and occupancy are shown
#    but not checked: under kernel replay CUPTI saves the kernel's memory before the first pass, which refills the
#    L2 that gpuperf emptied.
rc=0
gp record --metrics default --profile-launches 2 --label metrics -- "$probe" truth "$out/t5.txt" >"$out/record5.txt" 2>&1 || rc=$?
is "$rc" 0 "record --metrics default exits 0"
grep -E "^gpuperf: (warning|note)" "$out/record5.txt" | head -5
gp export --run "$(gp runs --format json | python3 -c 'import json,sys; print(max(r["id"] for r in json.load(sys.stdin)))')" \
  -o "$out/run5.json" >/dev/null 2>&1
metrics="smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"
metrics+=",l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
metrics+=",dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
if command -v ncu >/dev/null; then
  ncu --csv --clock-control none --target-processes all --metrics "$metrics" "$probe" truth "$out/t6.txt" \
    >"$out/ncu5.csv" 2>"$out/ncu5.err" || true
  python3 - "$out/run5.json" "$out/ncu5.csv" <<'PY' || fails=$((fails + 1))
import csv, json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
names = {"gld_efficiency": "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
         "gst_efficiency": "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct",
         "shared_load_transactions": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
         "shared_store_transactions": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
         "dram_bytes_read": "dram__bytes_read.sum", "achieved_occupancy": "sm__warps_active.avg.pct_of_peak_sustained_active"}
ncu = {}  # (kernel base name, grid, block) -> {metric: [value of each launch, in launch order]}
lines = [l for l in open(sys.argv[2]) if l.startswith('"')]
for row in csv.DictReader(lines):
    name = row.get("Kernel Name", "").replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
    if name.startswith("void "):
        name = name[5:]
    base = name.split("(")[0].split("<")[0].split("::")[-1].strip()
    dims = lambda v: v.replace("(", "").replace(")", "").replace(", ", "x").replace(",", "x")
    key = (base, dims(row.get("Grid Size", "")), dims(row.get("Block Size", "")))
    value = row.get("Metric Value", "").replace(",", "")
    try:
        ncu.setdefault(key, {}).setdefault(row["Metric Name"], []).append(float(value))
    except ValueError:
        pass
bad = 0
print(f"{'kernel':10} {'grid':10} {'metric':26} {'gpuperf':>14} {'ncu (first)':>14} {'ncu (all launches)':>24}  verdict")
for r in run["results"]:
    kernel = r["benchmark"].split("/", 1)[1].replace("(anonymous namespace)::", "").split("<")[0]
    grid = r["params"]["grid"]
    got = ncu.get((kernel, grid, r["params"]["block"]))
    for metric in ("gld_efficiency", "shared_load_transactions", "shared_store_transactions", "dram_bytes_read",
                   "achieved_occupancy"):
        m = r["metrics"].get(metric)
        if m is None or got is None or names[metric] not in got:
            continue
        ours = m.get("value", m.get("summary", {}).get("median"))
        if ours is None:
            continue
        every = got[names[metric]]
        theirs = every[0]
        if metric == "gld_efficiency":
            ok = abs(ours - theirs) <= 0.01
        elif metric == "achieved_occupancy":
            ok = abs(ours - theirs) <= 2.0
        elif metric == "dram_bytes_read":
            ok = abs(ours - theirs) <= 0.05 * max(theirs, 1) + 65536
        elif kernel == "stage":
            ok = 65536 <= ours <= 1.10 * 65536 and 65536 <= theirs <= 1.10 * 65536
        else:
            ok = abs(ours - theirs) <= 0.02 * max(theirs, 1)
        bad += not ok and metric in ("gld_efficiency", "shared_load_transactions", "shared_store_transactions")
        spread = f"{min(every):.6g}..{max(every):.6g} ({len(every)})"
        print(f"{kernel:10} {grid:10} {metric:26} {ours:14.6g} {theirs:14.6g} {spread:>24}  {'ok' if ok else 'MISMATCH'}")
sys.exit(1 if bad else 0)
PY
else
  echo "skip ncu comparison: no ncu here"
fi
echo

# 6. Several GPUs in one process (only where the machine has them): one run per GPU, each with exactly the
#    launches made on that GPU, and that GPU's UUID. CUDA_DEVICE_ORDER=PCI_BUS_ID numbers the GPUs as
#    nvidia-smi does.
gpus=$(nvidia-smi --query-gpu=index,uuid --format=csv,noheader 2>/dev/null | wc -l)
if ((gpus >= 2)); then
  nvidia-smi --query-gpu=index,uuid --format=csv,noheader >"$out/gpus.csv"
  rc=0
  CUDA_DEVICE_ORDER=PCI_BUS_ID gp record --label multigpu -- "$probe" multigpu "$out/multigpu.txt" \
    >"$out/record6.txt" 2>&1 || rc=$?
  cat "$out/record6.txt"
  is "$rc" 0 "record of a program using $gpus GPUs exits 0"
  gp export -o "$out/all6.json" >/dev/null 2>&1
  python3 - "$out/all6.json" "$out/gpus.csv" "$out/multigpu.txt" <<'PY' || fails=$((fails + 1))
import json, sys
runs = [r for r in json.load(open(sys.argv[1]))["runs"] if r["label"] == "multigpu"]
uuid_of = {int(l.split(",")[0]): l.split(",")[1].strip() for l in open(sys.argv[2]) if l.strip()}
made = {int(f[1]): (int(f[3]), int(f[4])) for f in (l.split() for l in open(sys.argv[3]))}
by_uuid = {r["machine"]["gpu_uuid"]: r for r in runs}
bad = len(runs) != len(made)
print(f"{len(runs)} runs stored for {len(made)} GPUs")
for d, (spin, add) in sorted(made.items()):
    r = by_uuid.get(uuid_of[d])
    if r is None:
        print(f"GPU {d} {uuid_of[d]}: no run"); bad = True; continue
    got = {x["benchmark"].split("/", 1)[1].replace("(anonymous namespace)::", ""): int(x["metrics"]["launches"]["value"])
           for x in r["results"]}
    ok = got == {"spin<1>": spin, "add_one": add}
    bad |= not ok
    print(f"GPU {d} {uuid_of[d]}: made spin<1> x{spin}, add_one x{add}; stored {got}  {'ok' if ok else 'MISMATCH'}")
sys.exit(1 if bad else 0)
PY
  echo
else
  echo "skip several GPUs: this machine has $gpus"
fi

# 4. Overhead: what recording costs the program, per launch and fixed (bench/record/record_overhead.py).
if ((overhead)); then
  python3 "$here/record_overhead.py" --gpuperf "$gpuperf" --probe "$probe" \
    --tracer "$(dirname "$probe")/librecord_bare_tracer.so" --out "$out/overhead" ||
    verdict fail "record_overhead.py"
else
  echo "skip overhead: --skip-overhead"
fi
echo
echo "record_gpu: $fails failure(s)"
exit $((fails > 0))
