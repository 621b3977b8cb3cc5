#!/usr/bin/env python3
"""What refusing a damaged SQLite file costs a writer (not a unit test: prints a table).

Every command that writes an SQLite file first checks it for damage (db/sqlite/engine.cpp,
check_before_write): in full (`PRAGMA quick_check`: every page of every table and index read and each
b-tree's structure checked) unless the stamp that gpuperf left beside the file (PATH-verified,
db/sqlite/verified_stamp.hpp) says the file is as gpuperf last verified it, checked in full within the last
7 days; then only its header and schema are read. This builds the year-old histories of
bench/store/year_history.py (--runners x --nights suite runs, --samples durations each; SQLite only,
set-based, minutes) at each --nights size and times, right after building it (the page cache holds what
of the file fits):
    quick_check        the check alone (Python's sqlite3), median of --repeat
    import (1 run)     `gpuperf import` of tonight's run of one runner: the nightly's store, check included,
                       without a stamp (the stamp removed first: the full check) and with one (the cheap check)
    runs exclude       `gpuperf runs exclude`: a person's one-line write, without and with a stamp
as wall seconds and as the CPU seconds of the gpuperf process (on a shared machine wall times stretch with
the others' load, CPU seconds do not). Then it damages a stamped copy of the largest file as issue 57 did
(20 interior pages overwritten with random bytes) and requires the import to exit 2 and leave the copy byte
for byte as it was.

    python3 bench/store/damage_check_cost.py [--runners 16] [--nights 30,365] [--samples 300]
                                            [--gpuperf build/cli/gpuperf] [--keep DIR] [--repeat 3]
Exit 0: the table printed and the damaged copy refused; 1: a check failed. Standard library only.
"""
import argparse
import hashlib
import os
import random
import resource
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


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(argv, repeat=1, before=None):
    """Median wall and CPU seconds of `argv` over `repeat` runs; `before` (a function of the run's index)
    runs first each time, untimed."""
    walls, cpus, last = [], [], None
    for i in range(repeat):
        if before:
            before(i)
        cpu0, t0 = children_cpu(), time.perf_counter()
        last = subprocess.run(argv(i) if callable(argv) else argv, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        walls.append(time.perf_counter() - t0)
        cpus.append(children_cpu() - cpu0)
        if last.returncode != 0:
            raise SystemExit(f"damage_check_cost: {argv if not callable(argv) else argv(i)} failed: {last.stderr}")
    return statistics.median(walls), statistics.median(cpus), last


def unstamp(path):
    try:
        os.remove(path + "-verified")
    except FileNotFoundError:
        pass


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
    counter = iter(range(1 << 30))

    def tonight(_):
        i = next(counter)
        night = yh.night_file(plan, os.path.join(work, f"tonight-{nights}-{i}.json"),
                              [(1 + i % a.runners, nights + 1)], a.samples)
        return [a.gpuperf, "--quiet", "--db", path, "import", night]

    row = {"nights": nights, "runs": a.runners * nights, "samples": samples, "bytes": size, "check": check,
           "path": path, "plan": plan}
    row["import_full"] = timed(tonight, a.repeat, before=lambda _: unstamp(path))[:2]
    # The last import stamped the file; each stamped import leaves the stamp for the next.
    if not os.path.exists(path + "-verified"):
        raise SystemExit("damage_check_cost: the import left no stamp beside " + path)
    row["import_stamped"] = timed(tonight, a.repeat)[:2]
    exclude = [a.gpuperf, "--quiet", "--db", path, "runs", "exclude", "1", "--reason", "bench"]
    row["exclude_full"] = timed(exclude, a.repeat, before=lambda _: unstamp(path))[:2]
    row["exclude_stamped"] = timed(exclude, a.repeat)[:2]
    return row


def refused_when_damaged(a, row, work):
    """A stamped copy, damaged after the stamp (new mtime and ctime): the import must refuse it untouched."""
    copy = os.path.join(work, "damaged.db")
    shutil.copyfile(row["path"], copy)
    subprocess.run([a.gpuperf, "--quiet", "--db", copy, "runs", "include", "1"], check=True)
    stamped = os.path.exists(copy + "-verified")
    damage(copy)
    before = sha(copy)
    tonight = yh.night_file(row["plan"], os.path.join(work, "tonight-damaged.json"), [(1, row["nights"] + 1)],
                            a.samples)
    t0 = time.perf_counter()
    p = subprocess.run([a.gpuperf, "--db", copy, "import", tonight], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    t = time.perf_counter() - t0
    ok = stamped and p.returncode == 2 and "is damaged" in p.stderr and sha(copy) == before
    print(f"\ndamaged {'stamped ' if stamped else 'UNSTAMPED '}copy (20 interior pages of random bytes): "
          f"import exit {p.returncode} in {t:.2f} s, file {'unchanged' if sha(copy) == before else 'CHANGED'}: "
          f"{p.stderr.strip()[:160]}")
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
        print(f"\nSQLite history of {a.runners} runners, {a.samples} samples per duration; right after building; "
              f"median of {a.repeat}; wall s / CPU s of the gpuperf process")
        print(f"{'nights':>6} {'runs':>6} {'samples':>12} {'file':>8} {'quick_check':>11} "
              f"{'import, full check':>18} {'import, stamped':>15} {'exclude, full':>13} {'exclude, stamped':>16}")

        def pair(wc):
            return f"{wc[0]:.2f}/{wc[1]:.2f}"

        for r in rows:
            print(f"{r['nights']:>6} {r['runs']:>6} {r['samples']:>12,} {r['bytes'] / 2**20:>6.0f}MB "
                  f"{r['check']:>10.2f}s {pair(r['import_full']):>18} {pair(r['import_stamped']):>15} "
                  f"{pair(r['exclude_full']):>13} {pair(r['exclude_stamped']):>16}")
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
