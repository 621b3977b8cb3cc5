#!/usr/bin/env python3
"""What gpuperf adds above CUPTI to a program's loop, measured within one process.

  bench/record/record_overhead_ab.py --gpuperf BIN --probe BIN --out DIR [--procs 6] [--pairs 20] [--only torch,tiny]
                              [--pause all|nvtx|write|flush ...] [--cpus LIST] [--torch-steps 300]
                              [--tiny-launches 50000] [--deadline S] [--torch-args=ARGS] [--flush-ms MS]
  bench/record/record_overhead_ab.py --from-log DIR/ab-runs.txt

record_overhead.py compares processes: plain, a bare CUPTI tracer, `record`. Loop times move 8-11% between
processes (and the tracer's level too), so a difference of 1% between two settings would need about 1,700
processes each to show. Here each process runs under `gpuperf record` (its defaults, NVTX paths) with
GPUPERF_RECORD_OVERHEAD_AB=PARTS, and times its loop 2 x --pairs times, those parts of gpuperf's own work on
and off in turn (on, off, off, on, ...; profiler/record/inject/inject.cpp, gpuperf_record_overhead_ours). With
--pause all (the default), off, the injection library does what the bare tracer + launch API does
(tests/record/bare_tracer.cpp): CUPTI is asked the same, NVTX pushes and pops push and pop a plain external
id, records are counted, not written, and nothing is flushed. So "on / off" is what gpuperf's own code adds
to the loop above what `record` asks of CUPTI, each pair from two neighbouring loops of one process.
--pause nvtx, write or flush (repeatable, each its own processes and rows) pauses one part alone: building
the NVTX path, writing the records (on CUPTI's worker thread), the periodic flush.

The table: per program, the median over every pair of (on / off - 1), its quartiles and a distribution-free
95% interval of that median (record_overhead.median_interval), and the median of each process's pairs (the
lowest and highest), so that one odd process shows. Programs: torch (bench/record/programs/torch_loop.py --ab: 300
training steps a loop, an NVTX range each step), tiny (record_probe overhead tiny N 2xPAIRS ab: launches of
~2 us back to back, no NVTX). Exit status 0 when every process ran.

Two measures of the PyTorch loop. `torch` is the loop's wall time; `torch/step` the median host time of one
step in each loop (torch_loop.py's `step_us_median`). The loop time moves 10-13% between loops of one process,
so its pairs resolve a few percent at best; where that noise is a few slow steps, the median step leaves them
out and resolves what every step pays (gpuperf's NVTX callbacks, the records each launch gives) more finely. What
lands on a few steps only (a periodic flush holding CUPTI, a buffer's writing taking a CPU from the program)
is in `torch` alone, and is bounded apart: the line under the table gives CUPTI's part of the periodic
flushes as record accounted it (calls, the median and the longest call), which is at most that share of the
loop if each flush held the program's launches for its whole length.

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
# Further measures of a program's loops, each its own rows labelled PROGRAM[:VARIANT]/MEASURE: name -> (regex,
# unit).
MEASURE_RE = {
    "torch": {"step": (re.compile(r"^step_us_median ([\d.]+) ours (on|off)$", re.M), "us/step (median)")},
}
# record's own-time line: CUPTI's part of the periodic flushes (cli/record_run.cpp, profiler/record/recorder/recorder.cpp).
FLUSH_RE = re.compile(r"CUPTI's part of the periodic flush took ([\d.]+) ms in ([\d,]+) calls .*?\(the longest "
                      r"([\d.]+) ms\)")


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
        unit = unit_of(name, units)
        lines.append(f"| {name} | {pause} | {len(procs)} | {len(ratios)} | {on:.6g} {unit} | {off:.6g} {unit} | "
                     f"{100 * statistics.median(ratios):+.2f}% [{100 * q[0]:+.2f} .. {100 * q[2]:+.2f}] "
                     f"({100 * lo:+.2f} .. {100 * hi:+.2f}) | {100 * per[0]:+.2f}% .. {100 * per[-1]:+.2f}% |")
    return "\n".join(lines)


def base_program(label):
    """'torch' of 'torch:--layer-ranges@flush100ms/step': the program whose loop lines are read."""
    return re.split(r"[:/]", label, maxsplit=1)[0]


def unit_of(label, units):
    """The unit of a row: its measure's ('torch/step': us/step (median)), else its program's."""
    program, _, measure = label.partition("/")
    if measure:
        return MEASURE_RE[base_program(program)][measure][1]
    return units[base_program(program)]


def flush_period_ms(label):
    """The periodic flush's period a row ran with: '@flushNms' in its label, else record's default, 1000 ms."""
    m = re.search(r"@flush(\d+)ms", label)
    return int(m[1]) if m else 1000


def flush_line(flushes):
    """flushes: [(label, total ms, calls, longest ms)] per process, from record's own-time line. One line of text:
    the median call, and the share of the program's time it would be if every call held its launches whole."""
    flushes = [f for f in flushes if f[2] > 0]
    if not flushes:
        return "CUPTI's part of the periodic flush: not reported (a record without the flush's accounting)"
    per_call = sorted(total / calls for _, total, calls, _ in flushes)
    share = statistics.median(total / calls / flush_period_ms(label) for label, total, calls, _ in flushes)
    return (f"CUPTI's part of the periodic flush, as record accounted it ({len(flushes)} processes, "
            f"{sum(c for _, _, c, _ in flushes):,} calls): a median {statistics.median(per_call):.3f} ms a call "
            f"(processes {per_call[0]:.3f} .. {per_call[-1]:.3f}), the longest {max(f[3] for f in flushes):.3f} ms; "
            f"at one call a period, at most {100 * share:.3f}% of the program's time (if each held its launches)")


def variant_label(name, torch_args, flush_ms):
    """The program as the log and the table name it: the variant's options without spaces."""
    variant = "".join(torch_args.split()) if name == "torch" else ""
    if flush_ms:
        variant += f"@flush{flush_ms}ms"
    return f"{name}:{variant}" if variant else name


def read_log(path):
    """ab-runs.txt: 'proc <program[:variant][/measure]> <paused parts> <i> <value>:<on|off> ...' per process and
    measure, and 'flush <program[:variant]> <paused parts> <i> <total ms> <calls> <longest ms>' where record
    reported its flushes. Returns ({(label, paused): [loops of each process]}, [(label, total, calls, longest)])."""
    by_program, flushes = {}, []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 7 and fields[0] == "flush":
                flushes.append((fields[1], float(fields[4]), int(fields[5]), float(fields[6])))
                continue
            if len(fields) < 4 or fields[0] != "proc":
                continue
            loops = [(float(v), t) for v, t in (x.split(":") for x in fields[4:])]
            by_program.setdefault((fields[1], fields[2]), []).append(loops)
    return by_program, flushes


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
        by_program, flushes = read_log(args.from_log)
        print(table({k: p for k, p in by_program.items() if base_program(k[0]) in chosen}, units))
        print("\n" + flush_line(flushes))
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
    measures = {(label + "/" + m, pause): [] for label in labels for m in MEASURE_RE.get(labels[label], {})
                for pause in pauses}
    flushes = []
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
                for measure, (pattern, _) in MEASURE_RE.get(name, {}).items():
                    values = [(float(v), t) for v, t in pattern.findall(p.stdout)]
                    if len(values) != len(found):
                        sys.exit(f"record_overhead_ab: {' '.join(full)}: {len(values)} {measure} lines for "
                                 f"{len(found)} loops:\n{p.stdout[-1500:]}")
                    measures[(f"{label}/{measure}", pause)].append(values)
                    log.write(f"proc {label}/{measure} {pause} {i} {' '.join(f'{v}:{t}' for v, t in values)}\n")
                flush = FLUSH_RE.search(p.stderr)
                if flush:
                    total, calls, longest = float(flush[1]), int(flush[2].replace(",", "")), float(flush[3])
                    flushes.append((label, total, calls, longest))
                    log.write(f"flush {label} {pause} {i} {total} {calls} {longest}\n")
                log.flush()
    print(f"gpuperf's own work on against off, in one process ({args.pairs} pairs of loops a process"
          f"{'; pinned to CPUs ' + args.cpus if args.cpus else ''}; {time.time() - started:.0f} s):\n")
    rows = {}  # each program's loop-time row, then its measures' rows, per paused parts
    for (label, pause), procs in by_program.items():
        rows[(label, pause)] = procs
        rows.update({key: v for key, v in measures.items() if key[1] == pause and key[0].startswith(label + "/")})
    print(table(rows, units))
    print("\n" + flush_line(flushes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
