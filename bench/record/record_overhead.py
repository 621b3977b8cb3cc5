#!/usr/bin/env python3
"""What `gpuperf record` costs a program's own loop, against what CUPTI's kernel tracing alone costs it.

  bench/record/record_overhead.py --gpuperf BIN --probe BIN --tracer SO --out DIR [--reps N] [--only torch,mid,tiny]
                           [--repeat N] [--cpus LIST] [--deadline S] [--variant NAME:VAR=VALUE]

Five settings, each program timing its own loop (after a warm-up, free of start-up):
  plain             the program alone
  bare tracer       tests/record/bare_tracer.cpp injected: CONCURRENT_KERNEL records counted and dropped, the
                    floor of `record --no-nvtx` (what CUPTI's kernel tracing costs; on Hopper it instruments
                    the kernels)
  bare tracer + launch API
                    the same tracer with BARE_TRACER_API=1: also the launch APIs' activity records, external
                    correlation records and NVTX callbacks pushing an external id, all dropped: what `record`
                    asks of CUPTI, the floor of `record`
  record --no-nvtx  gpuperf record without NVTX paths (kernel records written to the record file); compared
                    with the bare tracer
  record            gpuperf record with its defaults (NVTX paths: launch-API and external-correlation records);
                    compared with the bare tracer + launch API
Programs: torch (bench/record/programs/torch_loop.py: 300 training steps, an NVTX range each, `loop_s`), mid and
tiny (record_probe overhead: 100,000 launches of ~10 us, 200,000 of ~2 us, back to back; host time per
launch). Each rep runs every setting once, in an order rotated from rep to rep (interleaved, so drift hits
all alike); the table gives the median per setting and its change against plain and against the bare tracer,
each the median of the ratios within one rep (so that drift between reps cancels), with its quartiles and a
distribution-free 95% interval of that median (order statistics of the ratios).

Our own work by accounting, free of the noise between processes: the injection library times its own code
(NVTX callbacks, writing buffers, allocating them) and `record` prints the sums ("gpuperf's own time inside the
program: X ms on its threads (...); Y ms on other threads (...)"). For each recorded process that time per
launch (over all its launches) is set against its loop time per launch: the share on the program's threads
is what recording adds to the loop beyond CUPTI (it includes the exit's last flush, outside the loop: an upper
bound); the share on other threads (CUPTI's worker writing records, gpuperf's flush thread) runs beside the
loop, on another core.

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
SETTINGS = ["plain", "bare tracer", "bare tracer + launch API", "record --no-nvtx", "record"]
TRACERS = ("bare tracer", "bare tracer + launch API")
# The floor each recording setting is compared with: what it asks of CUPTI, without gpuperf's work.
FLOOR = {"record --no-nvtx": "bare tracer", "record": "bare tracer + launch API"}
TORCH_WARMUP = 20  # torch_loop.py's default --warmup steps
OWN_RE = re.compile(r"own time inside the program: ([\d.]+) ms on its threads.*?; ([\d.]+) ms on other threads")
EXTERNAL_RE = re.compile(r"CUPTI's push and pop of the NVTX paths' external ids took ([\d.]+) ms")
LAUNCHES_RE = re.compile(r"process\(es\) recorded, (\d+) kernel launches")


def own_work_share(stderr, loop_value, launches_per_loop, loop_seconds):
    """(share on the program's threads, share on other threads, us per launch on the program's, on others,
    share of CUPTI's external-id push/pop inside our NVTX callbacks), shares as fractions of the loop time, from
    `record`'s closing lines; None without the own-time line.
    loop_value: the process's loop time (s, or us per launch when launches_per_loop is None)."""
    own, launches = OWN_RE.search(stderr), LAUNCHES_RE.search(stderr)
    if not own or not launches or int(launches.group(1)) == 0:
        return None
    n = int(launches.group(1))
    program_us, other_us = (float(own.group(i)) * 1000 / n for i in (1, 2))
    external = EXTERNAL_RE.search(stderr)
    external_us = float(external.group(1)) * 1000 / n if external else 0.0
    loop_us_per_launch = loop_value * 1e6 / launches_per_loop if loop_seconds else loop_value
    return (program_us / loop_us_per_launch, other_us / loop_us_per_launch, program_us, other_us,
            external_us / loop_us_per_launch)


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
        if setting in TRACERS:
            env["CUDA_INJECTION64_PATH"] = os.path.abspath(args.tracer)
            env["BARE_TRACER_API"] = "1" if setting == "bare tracer + launch API" else "0"
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
    own = {}  # (program, setting) -> [own_work_share of each recorded process]
    started = time.time()
    log = open(os.path.join(args.out, "overhead-runs.txt"), "w")
    reps_done = 0
    if args.from_log:
        reps_done = read_log(args.from_log, chosen, settings, results, by_rep, inner, own)
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
                if setting in TRACERS and "bare_tracer:" not in p.stderr:
                    sys.exit("record_overhead: the bare tracer was not loaded:\n" + p.stderr[-1500:])
                if setting == "bare tracer + launch API" and "API records" not in p.stderr:
                    sys.exit("record_overhead: the bare tracer did not trace the launch APIs:\n" + p.stderr[-1500:])
                value = statistics.median(loops)
                results.setdefault((name, setting), []).append(value)
                by_rep.setdefault((name, rep), {})[setting] = value
                if len(loops) > 1:
                    inner.setdefault((name, setting), []).append(statistics.pstdev(loops) / statistics.mean(loops))
                log.write(f"rep {rep} {name} {setting!r} {value} loops {' '.join(map(str, loops))}\n")
                if setting.startswith("record"):
                    if name == "torch":
                        per_loop = launches_per_loop(p.stderr, TORCH_WARMUP + args.torch_steps * len(loops),
                                                     args.torch_steps)
                        share = own_work_share(p.stderr, value, per_loop, True)
                    else:
                        share = own_work_share(p.stderr, value, None, False)
                    if share:
                        own.setdefault((name, setting), []).append(share)
                        log.write(f"own {rep} {name} {setting!r} {' '.join(f'{v:.6g}' for v in share)}\n")
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
    print("| program | setting | median (min-max) | vs plain | vs floor | median / floor's (bootstrap 95%) "
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
            floor = FLOOR.get(setting, "bare tracer + launch API" if setting.startswith("record") else "bare tracer")
            vs_floor = "" if setting in ("plain",) + TRACERS[:1] else paired(name, setting, floor)
            fmt = "{:.4f}" if unit == "s" else "{:.3f}"
            cvs = inner.get((name, setting))
            spread = f"{100 * statistics.median(cvs):.1f}%" if cvs else "-"
            vs_floor_unpaired = "" if setting in ("plain",) + TRACERS[:1] else unpaired(name, setting, floor)
            print(f"| {label} | {setting} | {fmt.format(med)} {unit} ({fmt.format(min(values))}-"
                  f"{fmt.format(max(values))}) | {vs_plain} | {vs_floor} | {vs_floor_unpaired} | {spread} | "
                  f"{len(values)} |")
    print("\n(vs floor: record --no-nvtx against the bare tracer, record and its variants against the bare tracer "
          "+ launch API, that tracer against the bare tracer; spread in a process: the median over processes of the "
          "coefficient of variation of its loops; median / floor's: the two settings' medians over all their "
          "processes, unpaired)")
    print(own_work_table(chosen, settings, programs, own))


def launches_per_loop(stderr, loops_and_warmup, steps):
    """The launches of one timed loop of `steps` steps, from a process's launches over all its steps."""
    m = LAUNCHES_RE.search(stderr)
    return int(m.group(1)) * steps / loops_and_warmup if m else 1


def own_work_table(chosen, settings, programs, own):
    """Our own work by accounting: per program and recording setting, the median over its processes."""
    rows = []
    for name in chosen:
        for setting in settings:
            shares = own.get((name, setting))
            if not shares:
                continue
            med = [statistics.median(s[i] if i < len(s) else 0.0 for s in shares) for i in range(5)]
            worst = max(s[0] for s in shares)
            rows.append(f"| {programs[name][0]} | {setting} | {med[2]:.3f} us/launch = {100 * med[0]:.3f}% "
                        f"(max {100 * worst:.3f}%) | {med[3]:.3f} us/launch = {100 * med[1]:.3f}% "
                        f"| {100 * med[4]:.3f}% | {len(shares)} |")
    if not rows:
        return "\n(no own-time lines: the injection library predates them, or no recording setting ran)"
    return ("\ngpuperf's own work inside the program, by its own accounting (median over the recorded processes; "
            "per launch over all of a process's launches, as a share of its loop time per launch):\n\n"
            "| program | setting | on the program's threads (adds to the loop) | on other threads (beside it) "
            "| CUPTI's external-id push/pop in our NVTX callbacks (in the floor) | processes |\n"
            "|---|---|---:|---:|---:|---:|\n" + "\n".join(rows))


def read_log(path, chosen, settings, results, by_rep, inner, own):
    """Fills the tables from an overhead-runs.txt; returns the number of whole reps in it."""
    line_re = re.compile(r"^rep (\d+) (\w+) '([^']+)' ([\d.]+)(?: loops (.*))?$")
    own_re = re.compile(r"^own (\d+) (\w+) '([^']+)' ((?:\S+ ?){4,5})$")
    reps = {}
    for line in open(path):
        o = own_re.match(line.strip())
        if o and o.group(2) in chosen:
            own.setdefault((o.group(2), o.group(3)), []).append(tuple(float(v) for v in o.group(4).split()))
            continue
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
