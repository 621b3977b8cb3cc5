#!/usr/bin/env python3
"""Many runners' nightlies at once, on one PostgreSQL history and on SQLite files (not a unit test: prints a table).

Each of --runners simulated runners is one machine (its own hostname and GPU uuid). Every night all runners
start the real nightly job at the same moment, in imported-data mode (no GPU):
    bash ci/nightly.sh --gpuperf BIN --db DB --import NIGHT_FILE --branch main --night 2026-01-NN --artifacts DIR
with a realistic suite run per runner and night (bench/store/suite_runs.py: 33 instances, --samples durations
each with SM clocks, counters; seeded, so every machine writes the same files; a uuid per runner and night,
a commit per night). One step is planted: from --step-night on, --step-runner's suite/k05 is 30% slower
and its gld_efficiency drops from 100% to 50%.

After each night it reads what each runner's nightly reported as new tonight (its exit code, 1 = a new
regression, and artifacts/new-tonight.json, or bisect-list.tsv from a nightly.sh that writes no
new-tonight.json). Expected: the step reported by the step runner's nightly on the step night, by no other
runner's and on no other night; any other finding is a false alarm and is listed.

Two histories: one database on a throwaway PostgreSQL server (bench/store/pg_throwaway.sh, Unix socket; the
schema made first by `gpuperf db migrate`, as an admin would), and one SQLite file per runner, merged
afterwards with `gpuperf merge FILES --into merged.db` and counted on the merged file. Time to store a
run: the nightly's `store` step (artifacts/steps.tsv), or, from a nightly.sh without steps.tsv, its
`gpuperf import` timed by a wrapper around BIN.

    python3 bench/store/nightly_load.py [--runners 16] [--nights 30] [--step-night 20] [--step-runner 7]
                                  [--gpuperf build/cli/gpuperf] [--only pg|sqlite] [--keep DIR]

Exit 0: every check held (no run lost or stored twice, no job failed, the step reported exactly once by its
runner on its night, no false alarm); 1: a check failed (named on stderr), or the server did not start;
2: bad usage; 77: skipped, no PostgreSQL server binaries (without --only sqlite; 1 instead when CI is set).
Standard library only.
"""
import argparse
import datetime
import hashlib
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

import nightly_load_tally as tally
import suite_runs
from throwaway_pg import ServerUnavailable, ThrowawayServer, server_binaries

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
NIGHTLY = os.path.join(REPO, "ci", "nightly.sh")
STEP_INSTANCE = 5  # suite/k05

# gpuperf as the nightly calls it, its imports timed (seconds, one line each) into $GPUPERF_LOAD_TIMES.
TIMED_WRAPPER = """#!/usr/bin/env bash
for arg in "$@"; do
  if [[ $arg == import ]]; then
    t0=$(date +%s.%N); rc=0; "{gpuperf}" "$@" || rc=$?
    echo "$t0 $(date +%s.%N)" | awk '{{ print $2 - $1 }}' >>"$GPUPERF_LOAD_TIMES"
    exit $rc
  fi
done
exec "{gpuperf}" "$@"
"""


def night_date(night):
    return datetime.date(2026, 1, 1) + datetime.timedelta(days=night - 1)


def runner_host(runner):
    return f"runner-{runner:02d}"


def write_night_files(folder, a):
    """One file per runner and night; returns {(runner, night): path}."""
    files = {}
    for runner in range(1, a.runners + 1):
        for night in range(1, a.nights + 1):
            rng = random.Random(f"nightly_load/{runner}/{night}")
            run = suite_runs.suite_run(f"10ad{runner:04x}-{night:04x}-4000-8000-{runner * 10000 + night:012d}",
                                       night, runner_host(runner), rng, a.samples)
            started = datetime.datetime.combine(night_date(night), datetime.time(2, 0)) + \
                datetime.timedelta(minutes=runner)
            run["started_at"] = started.strftime("%Y-%m-%dT%H:%M:%SZ")
            run["commit"] = hashlib.sha1(f"nightly_load night {night}".encode()).hexdigest()
            run["label"] = "nightly"
            if runner == a.step_runner and night >= a.step_night:
                suite_runs.plant_step(run, STEP_INSTANCE)
            path = os.path.join(folder, f"runner-{runner:02d}", f"night-{night:02d}.json")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            suite_runs.write_runs(path, [run])
            files[runner, night] = path
    return files


def nightly_options():
    """--no-report when this nightly.sh has it (the load test needs no HTML)."""
    with open(NIGHTLY, encoding="utf-8") as f:
        return ["--no-report"] if "--no-report" in f.read() else []


def run_nights(mode, db_of, files, work, wrapper, a, out):
    """All runners' nightlies, night by night, all of a night started together. Fills out["jobs"]."""
    extra = nightly_options()
    for night in range(1, a.nights + 1):
        jobs = []
        for runner in range(1, a.runners + 1):
            art = os.path.join(work, mode, "artifacts", f"runner-{runner:02d}", f"night-{night:02d}")
            os.makedirs(art, exist_ok=True)
            env = dict(os.environ, GPUPERF_LOAD_TIMES=os.path.join(art, "import-seconds.txt"))
            cmd = ["bash", NIGHTLY, "--gpuperf", wrapper, "--db", db_of(runner), "--import", files[runner, night],
                   "--branch", "main", "--night", night_date(night).isoformat(), "--artifacts", art] + extra
            log = open(os.path.join(art, "nightly.log"), "w")
            jobs.append((runner, art, log, time.perf_counter(),
                         subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, cwd=work)))
        for runner, art, log, t0, p in jobs:
            rc = p.wait()
            log.close()
            job = tally.job_result(art, rc, time.perf_counter() - t0)
            job.update(runner=runner, night=night)
            out["jobs"].append(job)
        out["night_walls"].append(time.perf_counter() - jobs[0][3])
        bad = [j for j in out["jobs"] if j["night"] == night and j["rc"] not in (0, 1)]
        print(f"  {mode} night {night:2d}: {a.runners} nightlies, exits "
              f"{sorted(j['rc'] for j in out['jobs'] if j['night'] == night)}", file=sys.stderr)
        for j in bad[:3]:
            print(f"    runner {j['runner']} exited {j['rc']}: {j['log_tail']}", file=sys.stderr)


def gp(a, *args):
    return subprocess.run([a.gpuperf, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def run_postgres(files, work, wrapper, a):
    out = {"name": "PostgreSQL", "jobs": [], "night_walls": []}
    # The socket path must stay short (pg_throwaway.sh: 90 characters), so the server is not under --keep.
    server_dir = tempfile.mkdtemp(prefix="gpuperf-load-pg-")
    os.chmod(server_dir, 0o755)
    with ThrowawayServer(os.path.join(server_dir, "pg")) as pg:
        uri = pg.create_database("load")
        p = gp(a, "--db", uri, "--quiet", "db", "migrate")
        if p.returncode != 0:
            sys.exit(f"nightly_load: gpuperf db migrate on the server exited {p.returncode}: {p.stderr}")
        out["server"] = pg.psql(uri, "SHOW server_version").split()[0]
        t0 = time.perf_counter()
        run_nights("postgresql", lambda runner: uri, files, work, wrapper, a, out)
        out["wall"] = time.perf_counter() - t0
        out["listed"] = tally.listed_uuids(a.gpuperf, uri)
        rows, distinct = pg.psql(uri, "SELECT count(*), count(DISTINCT uuid) FROM run").split("|")
        out["server_rows"], out["server_distinct"] = int(rows), int(distinct)
    shutil.rmtree(server_dir, ignore_errors=True)
    return out


def run_sqlite(files, work, wrapper, a):
    out = {"name": "SQLite files, merged", "jobs": [], "night_walls": []}
    folder = os.path.join(work, "sqlite")
    os.makedirs(folder, exist_ok=True)
    db_of = lambda runner: os.path.join(folder, f"runner-{runner:02d}.db")  # noqa: E731
    t0 = time.perf_counter()
    run_nights("sqlite", db_of, files, work, wrapper, a, out)
    out["wall"] = time.perf_counter() - t0
    merged = os.path.join(folder, "merged.db")
    t0 = time.perf_counter()
    p = gp(a, "merge", *[db_of(r) for r in range(1, a.runners + 1)], "--into", merged)
    out["merge_wall"] = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"nightly_load: gpuperf merge exited {p.returncode}: {p.stderr}")
    out["listed"] = tally.listed_uuids(a.gpuperf, merged)
    return out


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runners", type=int, default=16)
    ap.add_argument("--nights", type=int, default=30)
    ap.add_argument("--step-night", type=int, default=20)
    ap.add_argument("--step-runner", type=int, help="runner 1..RUNNERS with the step (default 7, or the last)")
    ap.add_argument("--samples", type=int, default=300, help="duration samples per instance (default 300)")
    ap.add_argument("--gpuperf", default=os.path.join(REPO, "build", "cli", "gpuperf"))
    ap.add_argument("--only", choices=("pg", "sqlite"))
    ap.add_argument("--keep", metavar="DIR", help="write the night files, artifacts and SQLite files here, kept")
    a = ap.parse_args()
    if a.step_runner is None:
        a.step_runner = min(7, a.runners)
    if a.runners < 1 or a.nights < 2 or a.samples < 2:
        ap.error("--runners must be 1 or more, --nights 2 or more, --samples 2 or more")
    if not 1 <= a.step_runner <= a.runners or not 2 <= a.step_night <= a.nights:
        ap.error(f"--step-runner must be in 1..{a.runners} and --step-night in 2..{a.nights}")
    a.gpuperf = os.path.abspath(a.gpuperf)
    if not os.access(a.gpuperf, os.X_OK):
        ap.error(f"{a.gpuperf} is not an executable (build it: cmake --build build --target gpuperf)")
    return a


def main():
    a = parse_args()
    if a.only != "sqlite":
        try:
            server_binaries()
        except ServerUnavailable as e:
            if os.environ.get("CI", "") not in ("", "0", "false"):
                sys.exit(f"nightly_load: FAIL: CI is set and {e}")
            print(f"nightly_load: skipped: {e}", file=sys.stderr)
            return 77
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        if os.listdir(a.keep):
            sys.exit(f"nightly_load: --keep {a.keep} is not empty")
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="gpuperf-load-")
    started = time.perf_counter()
    try:
        files = write_night_files(os.path.join(work, "nights"), a)
        wrapper = os.path.join(work, "gpuperf-timed")
        with open(wrapper, "w", encoding="utf-8") as f:
            f.write(TIMED_WRAPPER.format(gpuperf=a.gpuperf))
        os.chmod(wrapper, 0o755)
        results = []
        if a.only != "sqlite":
            try:
                results.append(run_postgres(files, work, wrapper, a))
            except ServerUnavailable as e:
                sys.exit(f"nightly_load: FAIL: the PostgreSQL server did not start: {e}")
        if a.only != "pg":
            results.append(run_sqlite(files, work, wrapper, a))
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    failures = tally.print_table(results, a, time.perf_counter() - started)
    for failure in failures:
        print(f"nightly_load: FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
