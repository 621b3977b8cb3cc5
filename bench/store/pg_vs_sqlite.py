#!/usr/bin/env python3
"""SQLite against PostgreSQL for the same work, on this machine (not a test: it prints a table).

Starts a throwaway PostgreSQL server (bench/store/pg_throwaway.sh, on a Unix socket: loopback, no network) and
times, on an SQLite file and on a database of that server:
  - storing one suite run (33 instances, ~30k raw samples), the median of 5 imports of fresh runs;
  - importing 365 nights (bench/report/report_bench_gen.py, one file);
  - `report` and `detect --format json` of those 365 nights;
  - 16 concurrent importers of 30 runs each (each importer its own machine, one `gpuperf import` per run, as
    16 runners' nightlies do): runs stored against expected, lost, duplicated (uuids stored twice, or runs
    whose stored samples differ from their file), wall time.
Ratios are PostgreSQL / SQLite measured in this one run; the machine is shared and noisy.

    python3 bench/store/pg_vs_sqlite.py [--gpuperf build/cli/gpuperf] [--nights 365] [--importers 16] [--runs 30]
"""
import argparse
import concurrent.futures
import json
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from suite_runs import suite_run, write_runs
from throwaway_pg import ServerUnavailable, ThrowawayServer

HERE = os.path.dirname(os.path.abspath(__file__))


def timed(cmd, env=None):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"pg_vs_sqlite: {' '.join(map(shlex.quote, cmd))} exited {p.returncode}: {p.stderr[-2000:]}")
    return dt, p


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gpuperf", default=os.path.join(HERE, "..", "..", "build", "cli", "gpuperf"))
    ap.add_argument("--nights", type=int, default=365)
    ap.add_argument("--importers", type=int, default=16)
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    gp = os.path.abspath(a.gpuperf)
    work = tempfile.mkdtemp(prefix="gpuperf-pgbench-")
    os.chmod(work, 0o755)
    pg = ThrowawayServer(os.path.join(work, "pg"))
    try:
        pg.start()
    except ServerUnavailable as e:
        sys.exit(f"pg_vs_sqlite: no PostgreSQL server could be started: {e}")
    env = pg.env

    counter = [0]

    def new_db(kind):
        counter[0] += 1
        if kind == "sqlite":
            return os.path.join(work, f"db{counter[0]}.db")
        return pg.create_database(f"bench{counter[0]}")

    rows = []
    try:
        rng = random.Random(7)
        # One suite run, 5 times, each a fresh run into the same database (the first import creates it).
        suite_files = []
        for i in range(6):
            path = os.path.join(work, f"suite{i}.json")
            write_runs(path, [suite_run(f"5111e000-0000-4000-8000-{i:012d}", i, "bench-host", rng)])
            suite_files.append(path)
        samples = sum(len(r["metrics"]["duration"]["samples"]) for r in json.load(open(suite_files[0]))["runs"][0]["results"])
        nights = os.path.join(work, "nights.json")
        with open(nights, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "..", "report", "report_bench_gen.py"), "--runs", str(a.nights)],
                           stdout=f, check=True)
        per_importer = []
        for imp in range(a.importers):
            files = []
            for n in range(a.runs):
                path = os.path.join(work, f"imp{imp}-{n}.json")
                write_runs(path, [suite_run(f"c0c0{imp:04d}-0000-4000-8000-{n:012d}", n, f"runner-{imp:02d}", rng, 100)])
                files.append(path)
            per_importer.append(files)

        result = {}
        for kind in ("sqlite", "postgresql"):
            r = result.setdefault(kind, {})
            db = new_db(kind)
            subprocess.run([gp, "--db", db, "--quiet", "import", suite_files[5]], check=True)
            r["store"] = statistics.median(timed([gp, "--db", db, "--quiet", "import", f])[0] for f in suite_files[:5])
            db = new_db(kind)
            r["import"] = timed([gp, "--db", db, "--quiet", "import", nights])[0]
            r["report"] = timed([gp, "--db", db, "--quiet", "report", "--out", os.path.join(work, f"site-{kind}")])[0]
            r["detect"], det = timed([gp, "--db", db, "detect", "--format", "json"])
            r["detect_out"] = det.stdout
            # Concurrent importers.
            db = new_db(kind)
            subprocess.run([gp, "--db", db, "--quiet", "import", suite_files[5]], check=True)  # the schema exists

            def importer(files):
                failures = 0
                for f in files:
                    p = subprocess.run([gp, "--db", db, "--quiet", "import", f], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True)
                    failures += p.returncode != 0
                return failures

            t0 = time.perf_counter()
            with concurrent.futures.ThreadPoolExecutor(a.importers) as pool:
                failed = sum(pool.map(importer, per_importer))
            r["concurrent_wall"] = time.perf_counter() - t0
            listed = json.loads(subprocess.run([gp, "--db", db, "runs", "--format", "json"], stdout=subprocess.PIPE,
                                               check=True, text=True).stdout)
            runs = [x for x in listed if x["uuid"].startswith("c0c0")]
            uuids = [x["uuid"] for x in runs]
            expected = a.importers * a.runs
            r["stored"] = len(set(uuids))
            r["lost"] = expected - len(set(uuids))
            r["duplicated"] = len(uuids) - len(set(uuids))
            r["failed_imports"] = failed
            # Whole: a sample of the runs, exported, equals its file.
            whole = 0
            for imp in range(0, a.importers, max(1, a.importers // 4)):
                got = subprocess.run([gp, "--db", db, "export", "--run", f"c0c0{imp:04d}-0000-4000-8000-{0:012d}"],
                                     stdout=subprocess.PIPE, text=True, check=True).stdout
                exported = json.loads(got)["runs"][0]
                source = json.load(open(per_importer[imp][0]))["runs"][0]
                whole += [m["metrics"]["duration"]["samples"] for m in exported["results"]] == \
                    [m["metrics"]["duration"]["samples"] for m in source["results"]]
            r["whole_checked"] = whole
        same_detect = result["sqlite"]["detect_out"] == result["postgresql"]["detect_out"]
    finally:
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)

    s, p = result["sqlite"], result["postgresql"]
    print(f"\nSQLite file against PostgreSQL {os.path.basename(os.path.dirname(env['PG_BINDIR']))} on a Unix socket, "
          f"{os.cpu_count()} cores; one suite run = 33 instances, {samples} raw samples")
    print(f"{'work':<52} {'SQLite':>10} {'PostgreSQL':>11} {'PG/SQLite':>10}")
    for key, label in (("store", "store one suite run (median of 5)"), ("import", f"import {a.nights} nights"),
                       ("report", f"report of {a.nights} nights"), ("detect", f"detect of {a.nights} nights")):
        print(f"{label:<52} {s[key]:>9.3f}s {p[key]:>10.3f}s {p[key] / s[key]:>9.2f}x")
    label = f"{a.importers} concurrent importers x {a.runs} runs: wall"
    print(f"{label:<52} {s['concurrent_wall']:>9.2f}s {p['concurrent_wall']:>10.2f}s "
          f"{p['concurrent_wall'] / s['concurrent_wall']:>9.2f}x")
    for key in ("stored", "lost", "duplicated", "failed_imports", "whole_checked"):
        print(f"{'  runs ' + key.replace('_', ' '):<52} {s[key]:>10} {p[key]:>11}")
    print(f"detect --format json output identical: {'yes' if same_detect else 'NO'}")
    print(f"(expected {a.importers * a.runs} runs from the importers)")


if __name__ == "__main__":
    main()
