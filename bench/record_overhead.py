#!/usr/bin/env python3
"""What `gpuperf record` costs a program, on a GPU machine: tests/record/record_probe's back-to-back launches
of ~50 us, ~10 us and ~2 us kernels, run plain, with the injection library alone (what the program itself
pays), and under the whole `gpuperf record` command (which also checks the GPU first, then reads the
records and stores the run).

  bench/record_overhead.py --gpuperf BIN --probe BIN --out DIR [--inject SO] [--reps N]

--inject defaults to libgpuperf_inject.so next to BIN, then $GPUPERF_INJECT_LIBRARY. Each setting runs
`--reps` times, interleaved so drift hits all alike; the tables show medians. The probe times its own
launches (CUDA events on the GPU, the clock on the host, after a warm-up): the cost per launch, free of
start-up. The second table is the whole wall time of those programs and of one of 100 launches, whose
added time is the fixed cost (loading CUPTI into the program; for the command also checking the GPU
before and storing after, which `gpuperf record` reports as its own time).
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

KINDS = {  # kind: (label, launches): about 1 s of kernels each
    "long": ("~50 us", 20000),
    "mid": ("~10 us", 100000),
    "tiny": ("~2 us", 200000),
}
START_UP = 100  # launches of the program that shows the fixed cost
PROBE_LINE = re.compile(r"overhead (\w+) (\d+) gpu_us_per_launch ([\d.]+) wall_us_per_launch ([\d.]+)")
OWN_LINE = re.compile(r"gpuperf's own time: ([\d.]+) s before the program, ([\d.]+) s after it")


def run(cmd, env=None):
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    m = PROBE_LINE.search(proc.stdout)
    if proc.returncode != 0 or m is None:
        sys.exit(f"record_overhead: {' '.join(cmd)} failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}")
    own = OWN_LINE.search(proc.stdout)
    return {"wall": wall, "gpu": float(m.group(3)), "loop": float(m.group(4)),
            "before": float(own.group(1)) if own else 0.0, "after": float(own.group(2)) if own else 0.0}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--inject", help="libgpuperf_inject.so")
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    if args.inject is None:
        args.inject = os.path.join(os.path.dirname(os.path.abspath(args.gpuperf)), "libgpuperf_inject.so")
        if not os.path.isfile(args.inject):
            args.inject = os.environ.get("GPUPERF_INJECT_LIBRARY", args.inject)
    for path in (args.gpuperf, args.probe, args.inject):
        if not os.path.isfile(path):
            sys.exit(f"record_overhead: {path}: no such file")
    os.makedirs(args.out, exist_ok=True)
    db = os.path.join(os.path.abspath(args.out), "overhead.db")
    scratch = tempfile.mkdtemp(prefix="record-overhead-")

    def injected(kind, n, nvtx):
        folder = tempfile.mkdtemp(dir=scratch)
        env = dict(os.environ, CUDA_INJECTION64_PATH=os.path.abspath(args.inject), GPUPERF_RECORD_DIR=folder)
        if not nvtx:
            env["GPUPERF_RECORD_NO_NVTX"] = "1"
        r = run([args.probe, "overhead", kind, str(n)], env)
        with open(next(os.path.join(folder, f) for f in os.listdir(folder))) as f:
            kernels = sum(1 for line in f if line.startswith("K "))
        if kernels != n + 50:  # the probe's warm-up launches too
            sys.exit(f"record_overhead: {kind} {n}: {kernels} launches recorded, expected {n + 50}")
        shutil.rmtree(folder)
        return r

    settings = {
        "plain": lambda kind, n: run([args.probe, "overhead", kind, str(n)]),
        "injected": lambda kind, n: injected(kind, n, True),
        "injected, --no-nvtx": lambda kind, n: injected(kind, n, False),
        "gpuperf record": lambda kind, n: run(
            [args.gpuperf, "--db", db, "record", "--label", "overhead", "--", args.probe, "overhead",
             kind, str(n)]),
    }
    results = {}  # (kind, n, setting) -> [runs]
    plan = [(kind, n) for kind, (_, n) in KINDS.items()] + [("long", START_UP)]
    with open(os.path.join(args.out, "runs.txt"), "w") as log:
        for rep in range(args.reps):
            for kind, n in plan:
                for name, fn in settings.items():
                    r = fn(kind, n)
                    results.setdefault((kind, n, name), []).append(r)
                    log.write(f"{kind} {n} {name!r} rep {rep} wall {r['wall']:.4f} gpu_us {r['gpu']:.3f} "
                              f"loop_us {r['loop']:.3f}\n")
    shutil.rmtree(scratch)

    med = lambda kind, n, name, key: statistics.median(r[key] for r in results[(kind, n, name)])
    print(f"Per launch, timed by the program itself (median of {args.reps} runs):\n")
    print("| kernels | launches | setting | GPU us/launch | added on the GPU | host us/launch | added on the host |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for kind, (label, n) in KINDS.items():
        g0, l0 = med(kind, n, "plain", "gpu"), med(kind, n, "plain", "loop")
        for name in settings:
            g, l = med(kind, n, name, "gpu"), med(kind, n, name, "loop")
            added = "" if name == "plain" else f"{g - g0:+.3f} ({100 * (g - g0) / g0:+.1f}%)"
            added_l = "" if name == "plain" else f"{l - l0:+.3f} ({100 * (l - l0) / l0:+.1f}%)"
            print(f"| {label} | {n} | {name} | {g:.3f} | {added} | {l:.3f} | {added_l} |")
    print(f"\nWhole wall time of the programs above (median of {args.reps} runs), and what `gpuperf record` says")
    print("it spent itself before the program started and after it ended:\n")
    print("| kernels | launches | setting | wall (s) | added | gpuperf before (s) | gpuperf after (s) |")
    print("|---|---:|---|---:|---:|---:|---:|")
    for kind, n in [(kind, n) for kind, (_, n) in KINDS.items()] + [("long", START_UP)]:
        label = KINDS[kind][0]
        w0 = med(kind, n, "plain", "wall")
        for name in settings:
            w = med(kind, n, name, "wall")
            added = "" if name == "plain" else f"{w - w0:+.3f} s ({100 * (w - w0) / w0:+.1f}%)"
            own = (f"{med(kind, n, name, 'before'):.3f} | {med(kind, n, name, 'after'):.3f}"
                   if name == "gpuperf record" else " | ")
            print(f"| {label} | {n} | {name} | {w:.3f} | {added} | {own} |")


if __name__ == "__main__":
    main()
