#!/usr/bin/env python3
"""Whether two ways of profiling a recorded program read the same counters: per metric, over the identities both
runs have, how far apart their values are (relative difference of the medians, |a - b| / max(|a|, |b|)), next to
how far apart two runs of one way are (an A/A). Also, per run, how far an identity's first sample lies from its
second (two profiled launches of it: how much one run's samples of an identity spread).

    bench/record/values_agree.py --gpuperf BIN --run NAME=DB ... --pair A:B ... [--within NAME ...]

Prints one table: a row a metric, for each pair the identities compared, the median and p90 of the relative
difference (%), and how many differ by more than 5%; for each --within run the same of sample 1 against sample 0.
Exit 0 (a measurement, not a gate).
"""
import argparse
import json
import statistics
import subprocess
import sys

from stored_counters import stored_identities


def load(gpuperf, db):
    """identity -> metric -> samples (a deterministic metric: its one value)."""
    return {benchmark + " " + json.dumps(params, sort_keys=True): metrics
            for benchmark, params, metrics in stored_identities(gpuperf, db) if metrics}


def rel(a, b):
    d = max(abs(a), abs(b))
    return 0.0 if d == 0 else abs(a - b) / d * 100.0


def spread(diffs):
    if not diffs:
        return "-"
    diffs = sorted(diffs)
    p90 = diffs[min(len(diffs) - 1, int(0.9 * len(diffs)))]
    over = sum(1 for d in diffs if d > 5.0)
    return f"{len(diffs)}: {statistics.median(diffs):.2f} / {p90:.2f} ({over} > 5%)"


SKIP = {"duration", "launches", "gpu_time_total", "gpu_time_share"}  # timing, not counters


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", required=True)
    ap.add_argument("--run", action="append", default=[], metavar="NAME=DB")
    ap.add_argument("--pair", action="append", default=[], metavar="A:B")
    ap.add_argument("--within", action="append", default=[], metavar="NAME")
    a = ap.parse_args()
    runs = {}
    for r in a.run:
        name, _, db = r.partition("=")
        try:
            runs[name] = load(a.gpuperf, db)
        except (subprocess.CalledProcessError, OSError, ValueError) as e:
            print(f"values_agree: {name}: {db}: {e}", file=sys.stderr)
    metrics = sorted({m for run in runs.values() for ident in run.values() for m in ident} - SKIP)
    head = ["metric"] + [f"{p} (n: median / p90 %)" for p in a.pair] + [f"{w} sample 1 vs 0" for w in a.within]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for metric in metrics:
        cells = [metric]
        for p in a.pair:
            x, _, y = p.partition(":")
            if x not in runs or y not in runs:
                cells.append("-")
                continue
            diffs = []
            for key, ms in runs[x].items():
                other = runs[y].get(key, {})
                if metric in ms and metric in other and ms[metric] and other[metric]:
                    diffs.append(rel(statistics.median(ms[metric]), statistics.median(other[metric])))
            cells.append(spread(diffs))
        for w in a.within:
            diffs = [rel(ms[metric][0], ms[metric][1]) for ms in runs.get(w, {}).values()
                     if len(ms.get(metric, [])) >= 2]
            cells.append(spread(diffs))
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
