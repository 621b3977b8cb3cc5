#!/usr/bin/env python3
"""Import throughput of `gpuperf import` into a file database (not a test: it prints a table).

Generates gpuperf-results files with known shapes, times `gpuperf import` into a fresh database (and
`gpuperf export` back out), and prints results/s and samples/s. Target: 1 million raw samples imported in
under 10 s on a 2-core machine.

    python3 bench/store/import_throughput.py [--gpuperf build/cli/gpuperf] [--keep DIR]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

METRICS = [  # name, unit, value of a deterministic counter
    ("gld_efficiency", "%", 100.0), ("gst_efficiency", "%", 100.0),
    ("shared_load_transactions", "count", 50331648.0), ("shared_store_transactions", "count", 4718592.0),
    ("shared_bank_conflicts", "count", 0.0), ("achieved_occupancy", "%", 87.5),
    ("theoretical_occupancy", "%", 100.0), ("dram_bytes_read", "bytes", 8388608.0),
    ("dram_bytes_written", "bytes", 4194304.0), ("registers", "count", 32.0), ("static_shared_bytes", "bytes", 2048.0),
]

# scenario name, runs, instances per run, duration samples per instance, hardware metrics per instance
SCENARIOS = [
    ("1M samples (20 runs x 40 inst x 1250)", 20, 40, 1250, len(METRICS)),
    ("a year of nightlies (365 x 40 x 12 metrics)", 365, 40, 25, len(METRICS)),
]


def make_document(runs, instances, samples, metrics, seed):
    rng = random.Random(seed)
    out = []
    for r in range(runs):
        day = 1 + r % 28
        month = 1 + (r // 28) % 12
        year = 2026 + r // (28 * 12)
        results = []
        for i in range(instances):
            base = 1000.0 * (i + 1)
            m = {"duration": {"unit": "ns",
                              "samples": [round(base * rng.uniform(0.98, 1.05), 1) for _ in range(samples)],
                              "sm_clock_mhz": [rng.choice((1980.0, 1965.0)) for _ in range(samples)]}}
            for name, unit, value in METRICS[:metrics]:
                m[name] = {"unit": unit, "value": value}
            results.append({"benchmark": "family%d/variant%d" % (i // 4, i % 4), "params": {"n": 1 << (10 + i % 4)},
                            "status": "ok", "metrics": m})
        out.append({"uuid": "%08x-0000-4000-8000-%012x" % (seed, r),
                    "started_at": "%04d-%02d-%02dT02:00:00Z" % (year, month, day),
                    "commit": "%040x" % rng.getrandbits(160), "branch": "main", "label": "nightly",
                    "machine": {"hostname": "bench-host", "gpu_name": "NVIDIA H200", "gpu_uuid": "GPU-bench",
                                "cc": "9.0", "sm_count": 132, "driver": "580.159.04", "cuda": "13.0"},
                    "results": results})
    return {"format": "gpuperf-results", "version": 1, "runs": out}


def timed(cmd, env):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    return dt, p.stdout


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default=os.path.join(here, "..", "..", "build", "cli", "gpuperf"))
    ap.add_argument("--keep", help="keep the generated files and databases in this directory")
    args = ap.parse_args()
    if not os.access(args.gpuperf, os.X_OK):
        sys.exit("no gpuperf executable at %s (build it, or pass --gpuperf)" % args.gpuperf)

    work = args.keep or tempfile.mkdtemp(prefix="gpuperf-bench-")
    os.makedirs(work, exist_ok=True)
    env = dict(os.environ)
    env.pop("GPUPERF_DB", None)
    rows = []
    try:
        for n, (name, runs, inst, samples, metrics) in enumerate(SCENARIOS):
            doc = make_document(runs, inst, samples, metrics, seed=0x5eed0000 + n)
            path = os.path.join(work, "runs%d.json" % n)
            with open(path, "w") as f:
                json.dump(doc, f)
            db = os.path.join(work, "bench%d.db" % n)
            for suffix in ("", "-wal", "-shm"):
                if os.path.exists(db + suffix):
                    os.remove(db + suffix)
            n_results = runs * inst * (1 + metrics)
            n_samples = runs * inst * (samples + metrics)
            t_import, report = timed([args.gpuperf, "--db", db, "import", path], env)
            t_again, _ = timed([args.gpuperf, "--db", db, "import", path], env)  # all skipped: parse + lookups
            t_export, _ = timed([args.gpuperf, "--db", db, "export", "-o", os.path.join(work, "out%d.json" % n)], env)
            rows.append((name, runs, n_results, n_samples, os.path.getsize(path) / 2**20,
                         os.path.getsize(db) / 2**20, t_import, n_results / t_import, n_samples / t_import,
                         t_again, t_export))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    head = ("scenario", "runs", "results", "samples", "json MiB", "db MiB", "import s", "results/s", "samples/s",
            "re-import s", "export s")
    cells = [head] + [(r[0], str(r[1]), str(r[2]), str(r[3]), "%.1f" % r[4], "%.1f" % r[5], "%.2f" % r[6],
                       "%.0f" % r[7], "%.0f" % r[8], "%.2f" % r[9], "%.2f" % r[10]) for r in rows]
    widths = [max(len(c[i]) for c in cells) for i in range(len(head))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for c in cells[1:]:
        print("| " + " | ".join(x.ljust(w) if i == 0 else x.rjust(w) for i, (x, w) in enumerate(zip(c, widths))) + " |")
    million = [r for r in rows if r[3] >= 1_000_000]
    if million:
        verdict = "met" if million[0][6] < 10 else "NOT met"
        print("\ntarget (1M samples in < 10 s): %s, %.2f s" % (verdict, million[0][6]))


if __name__ == "__main__":
    main()
