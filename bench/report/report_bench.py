#!/usr/bin/env python3
"""Times `gpuperf report` on a year of nightly history.

For 90, 180 and 365 nightly runs of the full suite (39 instances, 12 metrics, 50 raw duration samples per
instance and night; see report_bench_gen.py), imports the history with `gpuperf import` into a fresh
database, then times `gpuperf report` for the HTML alone, the Markdown alone and both in one invocation (the
CI case): the median of --tries runs each. A second table splits the both-formats time into the stages
`gpuperf report --timings` prints, so a slow stage has a name. Target: both formats under 5 s at 365 runs,
and the time per run not growing with the number of runs.

Usage: bench/report/report_bench.py [--build BUILD_DIR] [--tries N] [--runs 90,180,365]
"""
import argparse
import os
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("report_bench: %s failed (%d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return dt, p.stderr


def stage_times(stderr):
    """{stage: seconds} from `gpuperf report --timings` lines."""
    out = {}
    for line in stderr.splitlines():
        m = re.match(r"gpuperf report:\s+([0-9.]+) s\s+(.*)$", line)
        if m:
            out[m.group(2)] = float(m.group(1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build", help="build directory holding cli/gpuperf")
    ap.add_argument("--tries", type=int, default=3)
    ap.add_argument("--runs", default="90,180,365")
    args = ap.parse_args()
    gpuperf = os.path.abspath(os.path.join(args.build, "cli", "gpuperf"))
    if not os.access(gpuperf, os.X_OK):
        sys.exit("report_bench: no gpuperf executable at %s; build the gpuperf target first" % gpuperf)
    sizes = [int(x) for x in args.runs.split(",")]
    work = tempfile.mkdtemp(prefix="gpuperf-report-bench.")
    rows, stages = [], []
    try:
        for runs in sizes:
            js = os.path.join(work, "history-%d.json" % runs)
            db = os.path.join(work, "history-%d.db" % runs)
            out = os.path.join(work, "out-%d" % runs)
            with open(js, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "report_bench_gen.py"), "--runs", str(runs)],
                               stdout=f, check=True)
            import_s, _ = timed([gpuperf, "--db", db, "--quiet", "import", js])
            base = [gpuperf, "--db", db, "--quiet", "report", "--out", out]
            html = statistics.median(timed(base + ["--format", "html"])[0] for _ in range(args.tries))
            md = statistics.median(timed(base + ["--format", "md"])[0] for _ in range(args.tries))
            both_runs = [timed(base + ["--format", "html,md", "--timings"]) for _ in range(args.tries)]
            both = statistics.median(t for t, _ in both_runs)
            per_stage = {}
            for _, err in both_runs:
                for k, v in stage_times(err).items():
                    per_stage.setdefault(k, []).append(v)
            stages.append((runs, {k: statistics.median(v) for k, v in per_stage.items()}))
            con = sqlite3.connect(db)
            points = con.execute("SELECT COUNT(*) FROM result").fetchone()[0]
            series = con.execute("SELECT COUNT(*) FROM (SELECT DISTINCT benchmark_id, metric_id FROM result)").fetchone()[0]
            samples = con.execute("SELECT COUNT(*) FROM sample").fetchone()[0]
            con.close()
            rows.append((runs, series, points, samples, import_s, html, md, both, os.path.getsize(os.path.join(out, "report.html")),
                         os.path.getsize(os.path.join(out, "report.md"))))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print("gpuperf report on a year of nightly history (median of %d; seconds)" % args.tries)
    print("%5s %7s %8s %9s %9s %7s %7s %7s %10s %9s %7s" % ("runs", "series", "points", "samples", "import_s",
                                                          "html_s", "md_s", "both_s", "ms/run", "html_MiB", "md_KiB"))
    for runs, series, points, samples, imp, html, md, both, hb, mb in rows:
        print("%5d %7d %8d %9d %9.1f %7.2f %7.2f %7.2f %10.2f %9.2f %7.1f" % (
            runs, series, points, samples, imp, html, md, both, both * 1000 / runs, hb / 2**20, mb / 1024))
    names = []
    for _, st in stages:
        for k in st:
            if k not in names:
                names.append(k)
    print()
    print("Stages of the both-formats run (gpuperf report --timings), seconds:")
    # Growth per run from the smallest to the largest history: 1.0 is linear, 2.0 at 4x the runs is quadratic.
    print("%-44s" % "stage" + "".join("%10s" % ("%d runs" % r) for r, _ in stages) + "  per-run growth")
    r0, st0 = stages[0]
    r1, st1 = stages[-1]
    for name in names:
        a, b = st0.get(name, 0), st1.get(name, 0)
        growth = "%.2fx" % ((b / r1) / (a / r0)) if a > 0.005 else "-"
        print("%-44s" % name + "".join("%10.3f" % st.get(name, 0) for _, st in stages) + "%16s" % growth)
    first, last = rows[0], rows[-1]
    growth = (last[7] / last[0]) / (first[7] / first[0])
    print()
    print("both formats at %d runs: %.2f s (target < 5 s); time per run grew %.2fx from %d to %d runs" % (
        last[0], last[7], growth, first[0], last[0]))


if __name__ == "__main__":
    main()
