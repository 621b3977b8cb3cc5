#!/usr/bin/env python3
"""What refusing a damaged SQLite file costs a writer (not a unit test: prints a table).

Every command that writes an SQLite file first runs `PRAGMA quick_check` on it (db/sqlite/engine.cpp,
refuse_damaged): every page of every table and index is read and each b-tree's structure checked. This
builds the year-old histories of bench/store/year_history.py (--runners x --nights suite runs, --samples
durations each; SQLite only, set-based, minutes) at each --nights size and times, hot in the page cache:
    quick_check        the check alone (Python's sqlite3), median of --repeat
    import (1 run)     `gpuperf import` of tonight's run of one runner: the nightly's store, check included
    runs exclude       `gpuperf runs exclude`: a person's one-line write, check included
and the check's share of each. Then it damages a copy of the largest file as issue 57 did (20 interior pages
overwritten with random bytes) and requires the import to exit 2 and leave the copy byte for byte as it was.

    python3 bench/store/damage_check_cost.py [--runners 16] [--nights 30,365] [--samples 300]
                                            [--gpuperf build/cli/gpuperf] [--keep DIR] [--repeat 3]
Exit 0: the table printed and the damaged copy refused; 1: a check failed. Standard library only.
"""
import argparse
import hashlib
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import year_history as yh  # noqa: E402  (the generator of the year-old history)


def timed(argv, repeat=1):
    times, last = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        last = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), last


def quick_check_seconds(path, repeat):
    times = []
    for _ in range(repeat):
        c = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        t0 = time.perf_counter()
        verdict = c.execute("PRAGMA quick_check(1)").fetchone()[0]
        times.append(time.perf_counter() - t0)
        c.close()
        if verdict != "ok":
            raise SystemExit(f"damage_check_cost: {path} is not sound before the test: {verdict}")
    return statistics.median(times)


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def damage(path, pages=20, seed=57):
    rng = random.Random(seed)
    size = os.path.getsize(path)
    page = 4096
    with open(path, "r+b") as f:
        for _ in range(pages):
            f.seek(rng.randrange(2, size // page - 1) * page)
            f.write(bytes(rng.randrange(256) for _ in range(page)))


def measure(a, nights, work):
    plan = yh.Plan(a, nights)
    path = os.path.join(work, f"year{nights}.db")
    engine = yh.Engine("sqlite", path, a.gpuperf)
    samples = yh.build_history(engine, plan, work)
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    size = os.path.getsize(path)
    check = quick_check_seconds(path, a.repeat)
    # Tonight's run of one runner after another (a new uuid each time: every import stores one run).
    times = []
    for i in range(a.repeat):
        tonight = yh.night_file(plan, os.path.join(work, f"tonight-{nights}-{i}.json"),
                                [(1 + i % a.runners, nights + 1)], a.samples)
        t, p = timed([a.gpuperf, "--quiet", "--db", path, "import", tonight])
        if p.returncode != 0:
            raise SystemExit(f"damage_check_cost: import failed: {p.stderr}")
        times.append(t)
    imp = statistics.median(times)
    exc, p = timed([a.gpuperf, "--quiet", "--db", path, "runs", "exclude", "1", "--reason", "bench"], a.repeat)
    if p.returncode != 0:
        raise SystemExit(f"damage_check_cost: runs exclude failed: {p.stderr}")
    return {"nights": nights, "runs": a.runners * nights, "samples": samples, "bytes": size, "check": check,
            "import": imp, "exclude": exc, "path": path, "plan": plan}


def refused_when_damaged(a, row, work):
    copy = os.path.join(work, "damaged.db")
    shutil.copyfile(row["path"], copy)
    damage(copy)
    before = sha(copy)
    tonight = yh.night_file(row["plan"], os.path.join(work, "tonight-damaged.json"), [(1, row["nights"] + 1)],
                            a.samples)
    t, p = timed([a.gpuperf, "--db", copy, "import", tonight])
    ok = p.returncode == 2 and "is damaged" in p.stderr and sha(copy) == before
    print(f"\ndamaged copy (20 interior pages of random bytes): import exit {p.returncode} in {t:.2f} s, "
          f"file {'unchanged' if sha(copy) == before else 'CHANGED'}: {p.stderr.strip()[:160]}")
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runners", type=int, default=16)
    ap.add_argument("--nights", default="30,365")
    ap.add_argument("--samples", type=int, default=300)
    ap.add_argument("--gpuperf", default=os.path.join(yh.REPO, "build", "cli", "gpuperf"))
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    a.step_runner = a.runners  # year_history's plan reads it
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="gpuperf-damage-")
    os.makedirs(work, exist_ok=True)
    try:
        rows = [measure(a, int(n), work) for n in a.nights.split(",")]
        print(f"\nSQLite history of {a.runners} runners, {a.samples} samples per duration; hot page cache; "
              f"median of {a.repeat}")
        print(f"{'nights':>6} {'runs':>6} {'samples':>12} {'file':>9} {'quick_check':>11} "
              f"{'import 1 run':>12} {'check share':>11} {'runs exclude':>12}")
        for r in rows:
            print(f"{r['nights']:>6} {r['runs']:>6} {r['samples']:>12,} {r['bytes'] / 2**20:>7.0f}MB "
                  f"{r['check']:>10.2f}s {r['import']:>11.2f}s {100 * r['check'] / r['import']:>10.0f}% "
                  f"{r['exclude']:>11.2f}s")
        ok = refused_when_damaged(a, rows[-1], work)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    if not ok:
        print("damage_check_cost: FAIL: the damaged copy was not refused untouched", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
