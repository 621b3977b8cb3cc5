#!/usr/bin/env python3
"""What gpuperf adds above CUPTI to a program's loop, measured within one process.

  bench/record_overhead_ab.py --gpuperf BIN --probe BIN --out DIR [--procs 6] [--pairs 20] [--only torch,tiny]
                              [--pause all|nvtx|write|flush ...] [--cpus LIST] [--torch-steps 300]
                              [--tiny-launches 50000] [--deadline S] [--torch-args=ARGS] [--flush-ms MS]
  bench/record_overhead_ab.py --from-log DIR/ab-runs.txt

record_overhead.py compares processes: plain, a bare CUPTI tracer, `record`. Loop times move 8-11% between
processes (and the tracer's level too), so a difference of 1% between two settings would need about 1,700
processes each to show. Here each process runs under `gpuperf record` (its defaults, NVTX paths) with
GPUPERF_RECORD_OVERHEAD_AB=PARTS, and times its loop 2 x --pairs times, those parts of gpuperf's own work on
and off in turn (on, off, off, on, ...; profiler/record/inject.cpp, gpuperf_record_overhead_ours). With
--pause all (the default), off, the injection library does what the bare tracer + launch API does
(tests/record/bare_tracer.cpp): CUPTI is asked the same, NVTX pushes and pops push and pop a plain external
id, records are counted, not written, and nothing is flushed. So "on / off" is what gpuperf's own code adds
to the loop above what `record` asks of CUPTI, each pair from two neighbouring loops of one process.
--pause nvtx, write or flush (repeatable, each its own processes and rows) pauses one part alone: building
the NVTX path, writing the records (on CUPTI's worker thread), the periodic flush.

The table: per program, the median over every pair of (on / off - 1), its quartiles and a distribution-free
95% interval of that median (record_overhead.median_interval), and the median of each process's pairs (the
lowest and highest), so that one odd process shows. Programs: torch (bench/programs/torch_loop.py --ab: 300
training steps a loop, an NVTX range each step), tiny (record_probe overhead tiny N 2xPAIRS ab: launches of
~2 us back to back, no NVTX). Exit status 0 when every process ran.

Magnified: a part whose cost is too small to resolve can be made to happen more often, and its share read off
the magnified one. --torch-args passes options to torch_loop.py (--layer-ranges: 8 NVTX ranges a step in
place of 1; --emit-nvtx: one for every operator); --flush-ms sets the periodic flush's period
(GPUPERF_RECORD_FLUSH_MS; 100 flushes ten times as often as the default 1000). Their rows are labelled
program:variant, e.g. torch:--layer-ranges@flush100ms.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from record_overhead import median_interval  # noqa: E402

LOOP_RE = {
    "torch": re.compile(r"^loop_s ([\d.]+) ours (on|off)$", re.M),
    "tiny": re.compile(r"wall_us_per_launch ([\d.]+) ours (on|off)$", re.M),
}


def pair_ratios(loops):
    """loops: [(value, 'on'|'off')] in the order run (on, off, off, on, ...). Each neighbouring two (0-1, 2-3,
    ...) is one pair: on / off - 1. A pair that is not one on and one off (a process cut short) is left out."""
    out = []
    for i in range(0, len(loops) - 1, 2):
        (a, ta), (b, tb) = loops[i], loops[i + 1]
        if {ta, tb} != {"on", "off"}:
            continue
        on, off = (a, b) if ta == "on" else (b, a)
        out.append(on / off - 1)
    return out


def table(by_program, units):
    """by_program: {(program, paused parts): [each process's loops]}"""
    lines = ["| program | paused | processes | pairs | ours on (median) | ours off (median) | on / off - 1: median "
             "of pairs [quartiles] (95% interval) | per process (lowest .. highest median) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for (name, pause), procs in by_program.items():
        ratios = sorted(r for p in procs for r in pair_ratios(p))
        if not ratios:
            lines.append(f"| {name} | {pause} | {len(procs)} | 0 | - | - | - | - |")
            continue
        on = statistics.median(v for p in procs for v, t in p if t == "on")
        off = statistics.median(v for p in procs for v, t in p if t == "off")
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
        lo, hi = median_interval(ratios)
        per = sorted(statistics.median(pair_ratios(p)) for p in procs if pair_ratios(p))
        lines.append(f"| {name} | {pause} | {len(procs)} | {len(ratios)} | {on:.6g} {units[base_program(name)]} | "
                     f"{off:.6g} {units[base_program(name)]} | "
                     f"{100 * statistics.median(ratios):+.2f}% [{100 * q[0]:+.2f} .. {100 * q[2]:+.2f}] "
                     f"({100 * lo:+.2f} .. {100 * hi:+.2f}) | {100 * per[0]:+.2f}% .. {100 * per[-1]:+.2f}% |")
    return "\n".join(lines)


def base_program(label):
    """'torch' of 'torch:--layer-ranges@flush100ms': the program whose loop lines are read."""
    return label.split(":", 1)[0]


def variant_label(name, torch_args, flush_ms):
    """The program as the log and the table name it: the variant's options without spaces."""
    variant = "".join(torch_args.split()) if name == "torch" else ""
    if flush_ms:
        variant += f"@flush{flush_ms}ms"
    return f"{name}:{variant}" if variant else name


def read_log(path):
    """ab-runs.txt: 'proc <program[:variant]> <paused parts> <i> <value>:<on|off> ...' per process."""
    by_program = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 4 or fields[0] != "proc":
                continue
            loops = [(float(v), t) for v, t in (x.split(":") for x in fields[4:])]
            by_program.setdefault((fields[1], fields[2]), []).append(loops)
    return by_program


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf")
    ap.add_argument("--probe")
    ap.add_argument("--out")
    ap.add_argument("--procs", type=int, default=6, help="processes per program")
    ap.add_argument("--pairs", type=int, default=20, help="on/off pairs per process (2 x PAIRS timed loops)")
    ap.add_argument("--only", default="torch,tiny")
    ap.add_argument("--pause", action="append", default=[], metavar="PARTS",
                    help="what 'off' pauses: all (default), nvtx, write, flush, or a comma list; repeatable")
    ap.add_argument("--cpus", default="", help="taskset CPU list every process is pinned to, e.g. 2-5")
    ap.add_argument("--torch-steps", type=int, default=300)
    ap.add_argument("--tiny-launches", type=int, default=50000)
    ap.add_argument("--deadline", type=float, default=0, help="seconds: start no process after this")
    ap.add_argument("--from-log", default="", metavar="AB_RUNS_TXT", help="print the table of an earlier run")
    ap.add_argument("--torch-args", default="", help="options for torch_loop.py, given as --torch-args=--layer-ranges")
    ap.add_argument("--flush-ms", type=int, default=0, help="the periodic flush's period (GPUPERF_RECORD_FLUSH_MS)")
    args = ap.parse_args()
    units = {"torch": "s", "tiny": "us/launch"}
    chosen = [p for p in args.only.split(",") if p]
    for name in chosen:
        if name not in LOOP_RE:
            sys.exit(f"record_overhead_ab: --only: unknown program {name!r} (torch, tiny)")
    pauses = args.pause or ["all"]
    for pause in pauses:
        if pause != "all" and not set(pause.split(",")) <= {"nvtx", "write", "flush"}:
            sys.exit(f"record_overhead_ab: --pause {pause!r}: expected all, or a comma list of nvtx, write, flush")
    if args.from_log:
        by_program = read_log(args.from_log)
        print(table({k: p for k, p in by_program.items() if base_program(k[0]) in chosen}, units))
        return 0
    if args.flush_ms < 0:
        sys.exit("record_overhead_ab: --flush-ms must be 0 (the default period) or more")
    for word in args.torch_args.split():
        if word not in ("--layer-ranges", "--emit-nvtx"):
            sys.exit(f"record_overhead_ab: --torch-args: {word!r} is not one of --layer-ranges, --emit-nvtx")
    if not (args.gpuperf and args.probe and args.out):
        sys.exit("record_overhead_ab: need --gpuperf, --probe and --out (or --from-log)")
    if args.pairs < 1 or args.procs < 1:
        sys.exit("record_overhead_ab: --pairs and --procs must be at least 1")
    for path in (args.gpuperf, args.probe):
        if not os.path.isfile(path):
            sys.exit(f"record_overhead_ab: {path}: no such file")
    os.makedirs(args.out, exist_ok=True)
    db = os.path.join(os.path.abspath(args.out), "ab.db")
    loops = str(2 * args.pairs)
    commands = {
        "torch": [sys.executable, os.path.join(HERE, "programs", "torch_loop.py"), "--steps", str(args.torch_steps),
                  "--repeat", loops, "--ab", *args.torch_args.split()],
        "tiny": [os.path.abspath(args.probe), "overhead", "tiny", str(args.tiny_launches), loops, "ab"],
    }
    pin = ["taskset", "-c", args.cpus] if args.cpus else []
    labels = {variant_label(name, args.torch_args, args.flush_ms): name for name in chosen}
    by_program = {(label, pause): [] for label in labels for pause in pauses}
    started = time.time()
    with open(os.path.join(args.out, "ab-runs.txt"), "w") as log:
        for i in range(args.procs):
            if args.deadline and time.time() - started > args.deadline:
                break
            for label, pause in by_program:  # programs and pauses interleaved, process by process
                name = labels[label]
                full = pin + [args.gpuperf, "--db", db, "record", "--label", "overhead-ab", "--", *commands[name]]
                env = dict(os.environ, GPUPERF_RECORD_OVERHEAD_AB=pause)
                if args.flush_ms:
                    env["GPUPERF_RECORD_FLUSH_MS"] = str(args.flush_ms)
                p = subprocess.run(full, env=env, capture_output=True, text=True)
                found = [(float(v), t) for v, t in LOOP_RE[name].findall(p.stdout)]
                if p.returncode != 0 or len(found) != 2 * args.pairs:
                    sys.exit(f"record_overhead_ab: {' '.join(full)} failed (exit {p.returncode}, "
                             f"{len(found)} of {2 * args.pairs} loops):\n{p.stdout[-1500:]}{p.stderr[-1500:]}")
                by_program[(label, pause)].append(found)
                log.write(f"proc {label} {pause} {i} {' '.join(f'{v}:{t}' for v, t in found)}\n")
                log.flush()
    print(f"gpuperf's own work on against off, in one process ({args.pairs} pairs of loops a process"
          f"{'; pinned to CPUs ' + args.cpus if args.cpus else ''}; {time.time() - started:.0f} s):\n")
    print(table(by_program, units))
    return 0


if __name__ == "__main__":
    sys.exit(main())
