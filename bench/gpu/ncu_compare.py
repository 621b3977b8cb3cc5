#!/usr/bin/env python3
"""Compares `gpuperf profile --format json` with ncu's raw CSV for the same instances (bench/gpu/ncu_compare.sh).

Prints a Markdown table per instance and metric (both values, difference, verdict), the wall times, the
reference-value checks for the canonical kernels, and a summary last. Exit status 0 when everything passes.
Percentages must agree within 0.5 points, counts and bytes within 1% (or 1 unit, for tiny counts).

gpuperf's value is the median over its runs (--gpuperf, repeatable; the first one is the timed one).
References: deterministic metrics against the full ncu run (--ncu). DRAM bytes against the median of ncu's
single-pass DRAM runs (--ncu-dram, repeatable), taken in gpuperf's cache state (ncu --cache-control none
after gpuperf's own L2 flush): bytes written are the write-backs during the kernel and depend on what L2
held before it. Metrics in NOISY against the median of the full run and the --ncu-repeat runs.
DRAM bytes also agree within TRAFFIC_FLOOR of the kernel's DRAM traffic (own verdict).
Not-deterministic metrics (DRAM, NOISY) also pass when gpuperf's median lies within ncu's own range over
its runs (for DRAM: the --ncu-dram and --ncu-dram-cold runs, i.e. both cache controls), widened by the
tolerance: the verdict says so, and the summary counts how often ncu's runs disagree among themselves.
"""
import argparse
import collections
import csv
import json
import sys

PCT_TOLERANCE = 0.5   # points
REL_TOLERANCE = 0.01  # of the larger value
# DRAM bytes also agree within this fraction of the kernel's whole DRAM traffic (read + written, ncu's
# median): a 400 MB matrix-vector product writes back 20-200 kB by chance (ncu against itself), so 1% of
# such a value measures luck, not the tool.
TRAFFIC_FLOOR = 0.001
SPEEDUP_REQUIRED = 8.0
# Verdicts, in the summary's column order.
OK, OK_FLOOR, OK_SPREAD, MISMATCH = "ok", "ok, < 0.1% of its DRAM traffic", "ok, within ncu's spread", "MISMATCH"
DRAM = {"dram_bytes_read", "dram_bytes_written"}
# Not deterministic (DESIGN.md): they move between ncu runs by more than the tolerances.
# Speed of light, issue slots and stall reasons (issue 28) are rates over the kernel's cycles: they move with
# clocks and with what else the memory system is doing.
NOISY = {"achieved_occupancy", "shared_bank_conflicts", "sm_throughput", "memory_throughput", "dram_throughput",
         "issue_active", "stall_long_scoreboard", "stall_math_throttle", "stall_barrier", "stall_not_selected"}

# The canonical kernels (GPU-MACHINE.md, DESIGN.md): instance -> {metric: (expected, tolerance)}.
REFERENCE = {
    "memory/coalesced": {"gld_efficiency": (100.0, 0.01)},
    "memory/strided[stride=32]": {"gld_efficiency": (12.5, 0.01)},
    "matmul/naive[n=1024]": {"gld_efficiency": (56.25, 1.0), "shared_load_transactions": (0.0, 0.0)},
    "matmul/tiled[n=1024,tile=16]": {"gld_efficiency": (100.0, 0.01)},
}


def number(text):
    text = (text or "").strip().replace(",", "")
    if text in ("", "n/a", "N/A", "nan"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def read_ncu(path, order_path, failures):
    """{instance: {metric: text}} from ncu's `--page raw --csv` output and the launch order it profiled."""
    with open(path, newline="") as f:
        lines = [line for line in f if not line.startswith("==")]
    rows = list(csv.reader(lines))
    header_at = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    header = rows[header_at]
    kernels = []
    for r in rows[header_at + 1:]:
        if not r or not r[0].strip().isdigit():
            continue  # the units row, blank lines
        kernels.append((int(r[0]), dict(zip(header, r))))
    kernels.sort(key=lambda k: k[0])
    order = [line.strip() for line in open(order_path) if line.strip()]
    if len(kernels) != len(order):
        failures.append(f"{path}: ncu profiled {len(kernels)} kernels for {len(order)} instances")
    return {name: kernels[i][1] for i, name in enumerate(order) if i < len(kernels)}


def ncu_value(row, perfworks):
    parts = [number(row.get(p)) if row else None for p in perfworks]
    return None if any(p is None for p in parts) else sum(parts)


def median(values):
    v = sorted(values)
    n = len(v)
    return None if n == 0 else (v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2)


def agree(unit, ours, theirs):
    diff = ours - theirs
    if unit == "%":
        return abs(diff) <= PCT_TOLERANCE
    return abs(diff) <= max(REL_TOLERANCE * max(abs(ours), abs(theirs)), 1.0)


def fmt(v, unit):
    if v is None:
        return "-"
    if unit == "%":
        return f"{v:.2f}"
    return f"{v:.0f}" if abs(v) >= 1 or v == 0 else f"{v:.4g}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuperf", required=True, action="append",
                    help="`gpuperf profile --format json` output; repeat for more runs (the first is the timed one)")
    ap.add_argument("--ncu", nargs=2, required=True, metavar=("CSV", "ORDER"),
                    help="ncu's raw CSV and the instances in the order ncu profiled them")
    ap.add_argument("--ncu-dram", nargs=2, action="append", default=[], metavar=("CSV", "ORDER"),
                    help="single-pass ncu runs of the DRAM counters in gpuperf's cache state")
    ap.add_argument("--ncu-dram-cold", nargs=2, action="append", default=[], metavar=("CSV", "ORDER"),
                    help="single-pass ncu runs of the DRAM counters under ncu's own cache control")
    ap.add_argument("--ncu-repeat", nargs=2, action="append", default=[], metavar=("CSV", "ORDER"),
                    help="more ncu runs of the noisy metrics")
    ap.add_argument("--times", nargs=5, type=float, required=True,
                    help="timestamps: before launch-only, before gpuperf, after gpuperf, before ncu, after ncu")
    a = ap.parse_args()

    runs_ours = [json.load(open(path)) for path in a.gpuperf]
    ours = runs_ours[0]
    failures = []
    theirs = read_ncu(*a.ncu, failures)
    drams = [read_ncu(*d, failures) for d in a.ncu_dram]
    colds = [read_ncu(*d, failures) for d in a.ncu_dram_cold]
    repeats = [read_ncu(*r, failures) for r in a.ncu_repeat]

    ours_by_name = [{r["instance"]: r for r in run["results"] if r["status"] == "ok"} for run in runs_ours]

    def our_values(name, metric):
        found = (run[name]["metrics"].get(metric, {}).get("value") for run in ours_by_name if name in run)
        return [v for v in found if v is not None]

    def ncu_values(tables, name, perfworks):
        return [v for v in (ncu_value(t.get(name), perfworks) for t in tables) if v is not None]

    print(f"gpuperf: median of {len(runs_ours)} run(s). ncu: all metrics once; DRAM {len(drams)} run(s) in "
          f"gpuperf's cache state + {len(colds)} under ncu's cache control; occupancy and bank conflicts "
          f"{1 + len(repeats)} run(s).")
    print()
    print("| instance | metric | gpuperf | ncu | difference | gpuperf's runs | ncu's runs | |")
    print("|---|---|---:|---:|---:|---|---|---|")
    compared = 0
    tally = {}          # metric -> Counter of verdicts
    ncu_disagrees = {}  # metric -> instances whose ncu runs are further apart than the tolerance
    for r in ours["results"]:
        name = r["instance"]
        if r["status"] != "ok":
            failures.append(f"{name}: gpuperf status {r['status']}: {r.get('message', '')}")
            continue
        for metric, m in r["metrics"].items():
            if not m.get("perfworks"):
                continue  # static attributes: no ncu counterpart in this comparison
            unit = m["unit"]
            mine_runs = our_values(name, metric)
            mine = median(mine_runs)
            full = ncu_value(theirs.get(name), m["perfworks"])
            floor = None
            note = ""
            if metric in DRAM and drams:
                same_state = ncu_values(drams, name, m["perfworks"])
                runs = same_state + ncu_values(colds, name, m["perfworks"])
                other = median(same_state)
                spread = True
                traffic = [median(ncu_values(drams, name, [p])) for p in ("dram__bytes_read.sum", "dram__bytes_write.sum")]
                if None not in traffic:
                    floor = TRAFFIC_FLOOR * sum(traffic)
                note = f" (all-metrics run: {fmt(full, unit)})"
            elif metric in NOISY:
                runs = ([full] if full is not None else []) + ncu_values(repeats, name, m["perfworks"])
                other = median(runs)
                spread = True
            else:
                runs = [full] if full is not None else []
                other = full
                spread = False
            if len(runs) > 1 and not agree(unit, min(runs), max(runs)):
                ncu_disagrees.setdefault(metric, []).append(name)
            if mine is None or other is None:
                verdict = "missing"
                failures.append(f"{name} {metric}: gpuperf {mine} ({m.get('message', '')}), ncu {other}")
            else:
                compared += 1
                if agree(unit, mine, other):
                    verdict = OK
                elif floor is not None and abs(mine - other) <= floor:
                    verdict = OK_FLOOR
                elif spread and len(runs) > 1 and (agree(unit, mine, min(runs)) or agree(unit, mine, max(runs))
                                                   or min(runs) <= mine <= max(runs)):
                    verdict = OK_SPREAD
                else:
                    verdict = MISMATCH
                    failures.append(f"{name} {metric}: gpuperf {mine:.6g}, ncu {other:.6g}" +
                                    (f" (ncu's runs {min(runs):.6g} .. {max(runs):.6g})" if len(runs) > 1 else ""))
                tally.setdefault(metric, collections.Counter())[verdict] += 1
            diff = "-" if mine is None or other is None else fmt(mine - other, unit)
            mine_range = f"{fmt(min(mine_runs), unit)} .. {fmt(max(mine_runs), unit)}" if len(mine_runs) > 1 else ""
            ncu_range = (f"{fmt(min(runs), unit)} .. {fmt(max(runs), unit)}" if spread and len(runs) > 1 else "") + note
            print(f"| {name} | {metric} | {fmt(mine, unit)} | {fmt(other, unit)} | {diff} | {mine_range} | "
                  f"{ncu_range} | {verdict} |")

    print()
    print("| metric | agree (0.5 points / 1%) | < 0.1% of DRAM traffic | within ncu's own spread | outside | "
          "ncu's runs disagree among themselves |")
    print("|---|---:|---:|---:|---:|---:|")
    for metric, n in sorted(tally.items()):
        print(f"| {metric} | {n[OK]} | {n[OK_FLOOR]} | {n[OK_SPREAD]} | {n[MISMATCH]} | "
              f"{len(ncu_disagrees.get(metric, []))} |")

    t0, t1, t2, t3, t4 = a.times
    launch, gp, ncu = t1 - t0, t2 - t1, t4 - t3
    # gpuperf's collection is timed in the process (starting CUPTI + every session), free of the setup
    # work's run-to-run noise (about +-0.5 s over the suite); ncu's can only be its process minus the
    # launch-only one. CUPTI starts beside the verification: only the part waited for (init_wait_seconds,
    # absent in older outputs) adds to the wall time.
    init_added = float(ours.get("init_wait_seconds", ours.get("init_seconds", 0)))
    gp_in_process = init_added + float(ours.get("collect_seconds", 0))
    gp_collect = gp_in_process
    ncu_collect = ncu - launch
    ratio = ncu_collect / gp_collect if gp_collect > 0 else float("inf")
    print()
    print("| wall time (s) | process | collection (process - launch-only) |")
    print("|---|---:|---:|")
    print(f"| launch only, no profiler | {launch:.2f} | |")
    print(f"| gpuperf profile | {gp:.2f} | {gp_collect:.2f} in the process (starting CUPTI "
          f"{ours.get('init_seconds', 0):.2f}, waited for {init_added:.2f}, sessions {ours.get('collect_seconds', 0):.2f}: "
          f"{ours.get('passes')} passes, {ours.get('sessions')} session(s)); process - launch-only: {gp - launch:.2f} |")
    print(f"| ncu | {ncu:.2f} | {ncu_collect:.2f} |")
    print(f"| ncu / gpuperf | {ncu / gp:.1f}x | {ratio:.1f}x (required: {SPEEDUP_REQUIRED:.0f}x) |")
    if ratio < SPEEDUP_REQUIRED:
        failures.append(f"gpuperf's collection is only {ratio:.1f}x faster than ncu's")

    print()
    print("| reference check | expected | gpuperf | |")
    print("|---|---:|---:|---|")
    by_name = {r["instance"]: r for r in ours["results"]}
    for inst, checks in REFERENCE.items():
        for metric, (want, tol) in checks.items():
            if inst not in by_name:  # a PATTERN that leaves it out
                print(f"| {inst} {metric} | {want:g} | not profiled | - |")
                continue
            got = by_name[inst].get("metrics", {}).get(metric, {}).get("value")
            ok = got is not None and abs(got - want) <= tol
            print(f"| {inst} {metric} | {want:g} | {fmt(got, '%' if 'efficiency' in metric else '')} | "
                  f"{'ok' if ok else 'FAIL'} |")
            if not ok:
                failures.append(f"reference {inst} {metric}: expected {want}, got {got}")
    if "matmul/tiled[n=1024,tile=16]" in by_name:
        tiled = by_name["matmul/tiled[n=1024,tile=16]"].get("metrics", {})
        shared = tiled.get("shared_load_transactions", {}).get("value")
        ok = shared is not None and shared > 0
        print(f"| matmul/tiled[n=1024,tile=16] shared_load_transactions | > 0 | {fmt(shared, '')} | "
              f"{'ok' if ok else 'FAIL'} |")
        if not ok:
            failures.append("tiled matmul has no shared-memory load transactions")

    print()
    print(f"{compared} values compared over {len(ours['results'])} instances; {len(failures)} problem(s)")
    for f in failures:
        print(f"  - {f}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
