#!/usr/bin/env python3
"""What `gpuperf record` costs a program's own loop, against what CUPTI's kernel tracing alone costs it.

  bench/record_overhead.py --gpuperf BIN --probe BIN --tracer SO --out DIR [--reps N] [--only torch,mid,tiny]
                           [--repeat N] [--cpus LIST] [--deadline S] [--variant NAME:VAR=VALUE]

Four settings, each program timing its own loop (after a warm-up, free of start-up):
  plain             the program alone
  bare tracer       tests/record/bare_tracer.cpp injected: CONCURRENT_KERNEL records counted and dropped, the
                    floor (what CUPTI's kernel tracing costs; on Hopper it instruments the kernels)
  record --no-nvtx  gpuperf record without NVTX paths (kernel records written to the record file)
  record            gpuperf record with its defaults (NVTX paths: launch-API and external-correlation records)
Programs: torch (bench/programs/torch_loop.py: 300 training steps, an NVTX range each, `loop_s`), mid and
tiny (record_probe overhead: 100,000 launches of ~10 us, 200,000 of ~2 us, back to back; host time per
launch). Each rep runs every setting once, in an order rotated from rep to rep (interleaved, so drift hits
all alike); the table gives the median per setting and its change against plain and against the bare tracer,
each the median of the ratios within one rep (so that drift between reps cancels), with its quartiles and a
distribution-free 95% interval of that median (order statistics of the ratios).

Quiet measurement: each process times its loop --repeat times after its warm-up and contributes the median of
them (loop times vary more between processes than within one); --cpus pins every process (and gpuperf with
it) to the same CPU cores with taskset, so that no run is moved to another core or socket halfway.
"""
import argparse
import math
import os
import random
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SETTINGS = ["plain", "bare tracer", "record --no-nvtx", "record"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", required=True)
    ap.add_argument("--probe", required=True)
    ap.add_argument("--tracer", required=True, help="librecord_bare_tracer.so")
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", default="torch,mid,tiny")
    ap.add_argument("--torch-steps", type=int, default=300, help="steps of the PyTorch loop")
    ap.add_argument("--deadline", type=float, default=0, help="seconds: stop starting reps after this")
    ap.add_argument("--repeat", type=int, default=5,
                    help="the loop timed this many times in each process (after its warm-up); the process's value "
                         "is their median")
    ap.add_argument("--cpus", default="", help="taskset CPU list every process is pinned to, e.g. 2-5")
    ap.add_argument("--tiny-launches", type=int, default=100000, help="launches per timed loop of the tiny program")
    ap.add_argument("--mid-launches", type=int, default=50000, help="launches per timed loop of the mid program")
    ap.add_argument("--from-log", default="", metavar="RUNS_TXT",
                    help="print the table from an earlier overhead-runs.txt instead of running (same --only)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME:VAR=VALUE",
                    help="add a setting: `gpuperf record` with VAR=VALUE in its environment (the program inherits "
                         "it), e.g. 'flush off:GPUPERF_RECORD_FLUSH_MS=0'; repeatable")
    args = ap.parse_args()
    variants = {}
    for v in args.variant:
        name, _, assignment = v.partition(":")
        var, _, value = assignment.partition("=")
        if not name or not var:
            sys.exit(f"record_overhead: --variant {v!r}: expected NAME:VAR=VALUE")
        variants["record, " + name] = (var, value)
    settings = SETTINGS + list(variants)
    for path in (args.gpuperf, args.probe, args.tracer) if not args.from_log else ():
        if not os.path.isfile(path):
            sys.exit(f"record_overhead: {path}: no such file")
    os.makedirs(args.out, exist_ok=True)
    db = os.path.join(os.path.abspath(args.out), "overhead.db")
    repeat = str(max(1, args.repeat))
    programs = {  # name: (label, command, regex of its own loop time (every repeat), unit)
        "torch": (f"PyTorch, {args.torch_steps} steps",
                  [sys.executable, os.path.join(HERE, "programs", "torch_loop.py"), "--steps", str(args.torch_steps),
                   "--repeat", repeat],
                  r"^loop_s ([\d.]+)$", "s"),
        "mid": (f"{args.mid_launches:,} launches of ~10 us",
                [args.probe, "overhead", "mid", str(args.mid_launches), repeat],
                r"wall_us_per_launch ([\d.]+)", "us/launch"),
        "tiny": (f"{args.tiny_launches:,} launches of ~2 us",
                 [args.probe, "overhead", "tiny", str(args.tiny_launches), repeat],
                 r"wall_us_per_launch ([\d.]+)", "us/launch"),
    }
    chosen = [p for p in args.only.split(",") if p]

    pin = ["taskset", "-c", args.cpus] if args.cpus else []

    def command(setting, cmd):
        env = dict(os.environ)
        if setting == "bare tracer":
            env["CUDA_INJECTION64_PATH"] = os.path.abspath(args.tracer)
            return pin + cmd, env
        if setting == "plain":
            return pin + cmd, env
        extra = ["--no-nvtx"] if setting == "record --no-nvtx" else []
        if setting in variants:
            env[variants[setting][0]] = variants[setting][1]  # inherited by the program through gpuperf record
        return pin + [args.gpuperf, "--db", db, "record", "--label", "overhead", *extra, "--", *cmd], env

    results = {}  # (program, setting) -> [loop times]
    by_rep = {}  # (program, rep) -> {setting: loop time}: the pairs, for changes measured within one rep
    inner = {}  # (program, setting) -> [coefficient of variation of the loops within one process]
    started = time.time()
    log = open(os.path.join(args.out, "overhead-runs.txt"), "w")
    reps_done = 0
    if args.from_log:
        reps_done = read_log(args.from_log, chosen, settings, results, by_rep, inner)
    for rep in range(args.reps if not args.from_log else 0):
        late = False
        for name in chosen:
            if args.deadline and time.time() - started > args.deadline:
                late = True
                break
            label, cmd, pattern, _ = programs[name]
            order = settings[rep % len(settings):] + settings[:rep % len(settings)]
            for setting in order:
                full, env = command(setting, cmd)
                p = subprocess.run(full, env=env, capture_output=True, text=True)
                loops = [float(v) for v in re.findall(pattern, p.stdout, re.M)]
                if p.returncode != 0 or not loops:
                    sys.exit(f"record_overhead: {' '.join(full)} failed (exit {p.returncode}):\n"
                             f"{p.stdout[-1500:]}{p.stderr[-1500:]}")
                if setting == "bare tracer" and "bare_tracer:" not in p.stderr:
                    sys.exit("record_overhead: the bare tracer was not loaded:\n" + p.stderr[-1500:])
                value = statistics.median(loops)
                results.setdefault((name, setting), []).append(value)
                by_rep.setdefault((name, rep), {})[setting] = value
                if len(loops) > 1:
                    inner.setdefault((name, setting), []).append(statistics.pstdev(loops) / statistics.mean(loops))
                log.write(f"rep {rep} {name} {setting!r} {value} loops {' '.join(map(str, loops))}\n")
                log.flush()
        if late:
            break  # the reps counted in the table are those finished by the deadline
        reps_done += 1

    def paired(name, setting, base):
        """setting / base - 1 within each rep (drift between reps cancels): median [quartiles] (95% interval)."""
        ratios = sorted(r[setting] / r[base] - 1 for (n, _), r in by_rep.items()
                        if n == name and setting in r and base in r)
        if not ratios:
            return "-"
        q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
        lo, hi = median_interval(ratios)
        return (f"{100 * statistics.median(ratios):+.2f}% [{100 * q[0]:+.1f} .. {100 * q[2]:+.1f}] "
                f"({100 * lo:+.1f} .. {100 * hi:+.1f})")

    def unpaired(name, setting, base):
        """median(setting) / median(base) - 1 over all processes, with a bootstrap 95% interval: for noise that
        comes with each process (its level stays within a few % over its loops but moves 20-50% between
        processes), the pairing within a rep removes nothing and the process is the unit."""
        a, b = results.get((name, setting)), results.get((name, base))
        if not a or not b:
            return "-"
        rnd = random.Random(0)
        boots = sorted(statistics.median(rnd.choices(a, k=len(a))) / statistics.median(rnd.choices(b, k=len(b))) - 1
                       for _ in range(4000))
        return (f"{100 * (statistics.median(a) / statistics.median(b) - 1):+.2f}% "
                f"({100 * boots[100]:+.1f} .. {100 * boots[3899]:+.1f})")

    print(f"\nLoop time as each program measures it ({reps_done} interleaved reps; each process times its loop "
          f"{repeat} times and gives the median{'; pinned to CPUs ' + args.cpus if args.cpus else ''}). Changes: "
          "median of the ratios within each rep [quartiles] (distribution-free 95% interval of the median):\n")
    print("| program | setting | median (min-max) | vs plain | vs bare tracer | median / tracer's (bootstrap 95%) "
          "| spread in a process | reps |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name in chosen:
        label, _, _, unit = programs[name]
        if (name, "plain") not in results:
            continue
        for setting in settings:
            values = results.get((name, setting), [])
            if not values:
                continue
            med = statistics.median(values)
            vs_plain = "" if setting == "plain" else paired(name, setting, "plain")
            vs_floor = "" if setting in ("plain", "bare tracer") else paired(name, setting, "bare tracer")
            fmt = "{:.4f}" if unit == "s" else "{:.3f}"
            cvs = inner.get((name, setting))
            spread = f"{100 * statistics.median(cvs):.1f}%" if cvs else "-"
            vs_floor_unpaired = "" if setting in ("plain", "bare tracer") else unpaired(name, setting, "bare tracer")
            print(f"| {label} | {setting} | {fmt.format(med)} {unit} ({fmt.format(min(values))}-"
                  f"{fmt.format(max(values))}) | {vs_plain} | {vs_floor} | {vs_floor_unpaired} | {spread} | "
                  f"{len(values)} |")
    print("\n(spread in a process: the median over processes of the coefficient of variation of its loops; "
          "median / tracer's: the two settings' medians over all their processes, unpaired)")


def read_log(path, chosen, settings, results, by_rep, inner):
    """Fills the tables from an overhead-runs.txt; returns the number of whole reps in it."""
    line_re = re.compile(r"^rep (\d+) (\w+) '([^']+)' ([\d.]+)(?: loops (.*))?$")
    reps = {}
    for line in open(path):
        m = line_re.match(line.strip())
        if not m or m.group(2) not in chosen:
            continue
        rep, name, setting, value = int(m.group(1)), m.group(2), m.group(3), float(m.group(4))
        if setting not in settings:
            settings.append(setting)
        results.setdefault((name, setting), []).append(value)
        by_rep.setdefault((name, rep), {})[setting] = value
        loops = [float(v) for v in (m.group(5) or "").split()]
        if len(loops) > 1:
            inner.setdefault((name, setting), []).append(statistics.pstdev(loops) / statistics.mean(loops))
        reps.setdefault(rep, set()).add(setting)
    return sum(1 for done in reps.values() if len(done) == len(settings))


def median_interval(sorted_values, confidence=0.95):
    """A distribution-free interval for the median: order statistics k and n+1-k, k the largest with
    P(Binomial(n, 1/2) < k) <= (1 - confidence) / 2. With fewer than 6 values, the whole range."""
    n = len(sorted_values)
    k, below = 0, 0.0
    while True:
        p_next = below + math.comb(n, k) / 2 ** n  # P(X <= k)
        if p_next > (1 - confidence) / 2:
            break
        below, k = p_next, k + 1
    k = max(k, 1)
    return sorted_values[k - 1], sorted_values[n - k]

if __name__ == "__main__":
    main()
