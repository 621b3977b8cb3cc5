#!/usr/bin/env python3
"""A recorded program's counters against Nsight Compute's on the same program: per kernel (name and grid), the
median of ncu's launches (`ncu --csv --metrics NAMES`, its default --cache-control all: every pass from an emptied
L2) next to the median of each `record --metrics` database's identities of that kernel, and how many kernels each
database has within 10% of ncu (or 64 KiB for bytes, 0.5 for a percentage or a ratio). The metrics compared are
those of METRICS that the CSV holds.

    bench/record/ncu_record_compare.py --gpuperf BIN --ncu-csv FILE --db NAME=DB ... [--rows N]
    (the ncu names: bench/record/ncu_record_compare.py --ncu-metrics)

Kernels are matched by the first 40 characters of the demangled name (without "void ", "native::" and anonymous
namespaces, which ncu leaves out) and the grid. Exit 0
(a measurement, not a gate).
"""
import argparse
import statistics
import sys

from stored_counters import ncu_rows, stored_identities

METRICS = {
    "dram__bytes_read.sum": "dram_bytes_read",
    "dram__bytes_write.sum": "dram_bytes_written",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed": "dram_throughput",
    "smsp__issue_active.avg.pct_of_peak_sustained_active": "issue_active",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": "stall_long_scoreboard",
    "sm__warps_active.avg.pct_of_peak_sustained_active": "achieved_occupancy",
}
BYTES = {"dram_bytes_read", "dram_bytes_written"}


def key(name, grid):
    """Nsight Compute shortens demangled names (no "native::", no anonymous namespaces): both sides alike."""
    name = name[5:] if name.startswith("void ") else name
    for noise in ("native::", "(anonymous namespace)::", "<unnamed>::"):
        name = name.replace(noise, "")
    return (name[:40], grid)


def load_ncu(path):
    out = {}
    for kernel, grid, metric, value in ncu_rows(path):
        ours = METRICS.get(metric)
        if ours is not None:
            out.setdefault(key(kernel, grid), {}).setdefault(ours, []).append(value)
    return out


def load_db(gpuperf, db):
    out = {}
    for benchmark, params, metrics in stored_identities(gpuperf, db):
        k = key(benchmark.split("/", 1)[-1], params.get("grid", ""))
        for name, samples in metrics.items():
            if name in METRICS.values() and samples:
                out.setdefault(k, {}).setdefault(name, []).append(statistics.median(samples))
    return out


def agrees(ours, ncu, metric):
    return abs(ours - ncu) <= max(0.10 * abs(ncu), 65536 if metric in BYTES else 0.5)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf")
    ap.add_argument("--ncu-csv")
    ap.add_argument("--ncu-metrics", action="store_true", help="print the ncu --metrics list and exit")
    ap.add_argument("--db", action="append", default=[], metavar="NAME=DB")
    ap.add_argument("--rows", type=int, default=20, help="kernels listed (all are counted)")
    a = ap.parse_args()
    if a.ncu_metrics:
        print(",".join(METRICS))
        return 0
    if not a.gpuperf or not a.ncu_csv:
        ap.error("--gpuperf and --ncu-csv are needed")
    ncu = load_ncu(a.ncu_csv)
    dbs = []
    for spec in a.db:
        name, _, path = spec.partition("=")
        dbs.append((name, load_db(a.gpuperf, path)))
    present = {m for per in ncu.values() for m in per}
    for metric in [m for m in METRICS.values() if m in present]:
        unit, div = ("MiB", 2**20) if metric in BYTES else ("as stored", 1)
        print(f"\n{metric} ({unit}): ncu's median, then each database's median over its identities of the kernel")
        head = ["kernel", "grid", "ncu"] + [n for n, _ in dbs]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        counts = {n: [0, 0] for n, _ in dbs}
        listed = 0
        for k in sorted(ncu, key=lambda k: -statistics.median(ncu[k].get(metric, [0]))):
            if metric not in ncu[k]:
                continue
            ref = statistics.median(ncu[k][metric])
            cells = []
            for n, d in dbs:
                v = d.get(k, {}).get(metric)
                if not v:
                    cells.append("-")
                    continue
                m = statistics.median(v)
                counts[n][1] += 1
                counts[n][0] += agrees(m, ref, metric)
                cells.append(f"{m / div:.3f}")
            if listed < a.rows and any(c != "-" for c in cells):
                listed += 1
                print(f"| {k[0]} | {k[1]} | {ref / div:.3f} | " + " | ".join(cells) + " |")
        for n, (ok, total) in counts.items():
            print(f"{metric}: {n} within 10% of ncu for {ok} of {total} kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
