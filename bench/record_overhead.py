#!/usr/bin/env python3
"""What `gpuperf record` costs a program's own loop, against what CUPTI's kernel tracing alone costs it.

  bench/record_overhead.py --gpuperf BIN --probe BIN --tracer SO --out DIR [--reps N] [--only torch,mid,tiny]

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
each the median of the ratios within one rep (so that drift between reps cancels).
"""
import argparse
import os
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
    for path in (args.gpuperf, args.probe, args.tracer):
        if not os.path.isfile(path):
            sys.exit(f"record_overhead: {path}: no such file")
    os.makedirs(args.out, exist_ok=True)
    db = os.path.join(os.path.abspath(args.out), "overhead.db")
    programs = {  # name: (label, command, regex of its own loop time, unit)
        "torch": (f"PyTorch, {args.torch_steps} steps",
                  [sys.executable, os.path.join(HERE, "programs", "torch_loop.py"), "--steps", str(args.torch_steps)],
                  r"^loop_s ([\d.]+)$", "s"),
        "mid": ("100,000 launches of ~10 us", [args.probe, "overhead", "mid", "100000"],
                r"wall_us_per_launch ([\d.]+)", "us/launch"),
        "tiny": ("200,000 launches of ~2 us", [args.probe, "overhead", "tiny", "200000"],
                 r"wall_us_per_launch ([\d.]+)", "us/launch"),
    }
    chosen = [p for p in args.only.split(",") if p]

    def command(setting, cmd):
        env = dict(os.environ)
        if setting == "bare tracer":
            env["CUDA_INJECTION64_PATH"] = os.path.abspath(args.tracer)
            return cmd, env
        if setting == "plain":
            return cmd, env
        extra = ["--no-nvtx"] if setting == "record --no-nvtx" else []
        if setting in variants:
            env[variants[setting][0]] = variants[setting][1]  # inherited by the program through gpuperf record
        return [args.gpuperf, "--db", db, "record", "--label", "overhead", *extra, "--", *cmd], env

    results = {}  # (program, setting) -> [loop times]
    by_rep = {}  # (program, rep) -> {setting: loop time}: the pairs, for changes measured within one rep
    started = time.time()
    log = open(os.path.join(args.out, "overhead-runs.txt"), "w")
    reps_done = 0
    for rep in range(args.reps):
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
                m = re.search(pattern, p.stdout, re.M)
                if p.returncode != 0 or m is None:
                    sys.exit(f"record_overhead: {' '.join(full)} failed (exit {p.returncode}):\n"
                             f"{p.stdout[-1500:]}{p.stderr[-1500:]}")
                if setting == "bare tracer" and "bare_tracer:" not in p.stderr:
                    sys.exit("record_overhead: the bare tracer was not loaded:\n" + p.stderr[-1500:])
                value = float(m.group(1))
                results.setdefault((name, setting), []).append(value)
                by_rep.setdefault((name, rep), {})[setting] = value
                log.write(f"rep {rep} {name} {setting!r} {value}\n")
                log.flush()
        if late:
            break  # the reps counted in the table are those finished by the deadline
        reps_done += 1

    def paired(name, setting, base):
        """The median over reps of setting / base - 1, each ratio within one rep (drift between reps cancels)."""
        ratios = [r[setting] / r[base] - 1 for (n, _), r in by_rep.items() if n == name and setting in r and base in r]
        return f"{100 * statistics.median(ratios):+.2f}%" if ratios else "-"

    print(f"\nLoop time as each program measures it (median of {reps_done} interleaved reps; the changes are "
          "medians of the ratios within each rep):\n")
    print("| program | setting | median | vs plain | vs bare tracer | runs |")
    print("|---|---|---:|---:|---:|---|")
    for name in chosen:
        label, _, _, unit = programs[name]
        if (name, "plain") not in results:
            continue
        for setting in settings:
            values = results[(name, setting)]
            med = statistics.median(values)
            vs_plain = "" if setting == "plain" else paired(name, setting, "plain")
            vs_floor = "" if setting in ("plain", "bare tracer") else paired(name, setting, "bare tracer")
            fmt = "{:.4f}" if unit == "s" else "{:.3f}"
            runs = " ".join(fmt.format(v) for v in values)
            print(f"| {label} | {setting} | {fmt.format(med)} {unit} | {vs_plain} | {vs_floor} | {runs} |")


if __name__ == "__main__":
    main()
