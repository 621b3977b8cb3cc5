#!/usr/bin/env python3
"""A team's history after a year, on PostgreSQL and on SQLite (not a unit test: prints a table).

Builds --runners x --nights nightly suite runs (33 instances, --samples durations each with SM clocks, the
counters of bench/suite_runs.py) in a database of a throwaway PostgreSQL server (bench/pg_throwaway.sh, Unix
socket) and in one SQLite file, at two sizes (--short-nights and --nights), then times on both what a
nightly and a team lead run (the table of issue 42):
    detect --machine M               the nightly's own detect
    detect --machine M --before-run  the nightly's "tonight" read
    report --machine M
    detect                           every machine
    report                           every machine
    export                           the whole history
and last, night --nights + 1: all runners' real nightlies at once (ci/nightly.sh --import, reports on) on the
year-old server and on the year-old file, one batch per --nightly-windows entry (ci/nightly.sh --window; the
default 90 is the nightly's default, '90,all' also times the whole-history nightly; a later batch finds
tonight's runs stored, as a rerun does): each job's wall time (p50, p95; imported runs, so all of it is the
work outside measuring), its steps, and the CPU seconds of the jobs and of the server (on a shared machine
wall times stretch with the others' load, CPU seconds do not); the step planted tonight on --step-runner
(suite/k05 30% slower, gld_efficiency 100% -> 50%) must be reported once, by that runner's nightly only,
nothing else may be reported, and every window must find the same.

The history is generated, seeded, with two planted steps: from night --nights*0.55 every runner's suite/k10 is
10% slower (a code change: on every GPU), from night --nights*0.8 one runner's suite/k20 is 15% slower (a
sick machine: on one GPU). Generation is set-based and fast: one run per runner is imported with gpuperf
(its rows are the template: machine, benchmarks, metrics, outcomes), then every other night's runs, results
and samples are inserted by INSERT ... SELECT from small tables of seeded sample blocks (COPY in on the
server), so 60 million samples take minutes, not hours. Nights end yesterday (tonight is today), so that
`db prune --samples-older-than 180d` has old runs to prune.

--check (the CI size: --runners 4 --nights 60 --samples 30): also logs the plans of every statement on the
server (auto_explain) and fails when a per-machine read's plan scans sample, result or outcome (Seq Scan:
every machine's rows), with ANALYZE's statistics and again with the distinct result and run ids
underestimated 40-fold (the cause of issue 42's cliff); requires identical detect answers of both engines; prunes both histories (dry run
first, then the prune) and requires detect and report to answer as before, and compare of two pruned runs to
say "samples pruned". Every run that timed the commands requires the whole-history exports of both engines to be
byte-identical. --baseline-gpuperf EXE (another build, say main's before a change) also exports the whole
history by that build and by this one on both engines, with each process's peak memory, and prints that
table; every file must be byte-identical to SQLite's. Exit 0: all held; 1: a check failed (named on stderr); 77: no PostgreSQL server
binaries (1 instead when CI is set).

    python3 bench/store/year_history.py [--runners 16] [--nights 365] [--short-nights 30] [--samples 300]
                                  [--gpuperf build/cli/gpuperf] [--check] [--no-concurrent] [--keep DIR]
                                  [--nightly-windows 90[,all]] [--engines postgresql,sqlite] [--no-commands]
                                  [--baseline-gpuperf EXE]
Standard library only.
"""
import argparse
import concurrent.futures
import datetime
import hashlib
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
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
BLOCKS = 64  # seeded blocks of samples each generated result draws one of
STEP_INSTANCE = 5  # tonight's step: suite/k05 (bench/nightly_load.py's)
CODE_CHANGE_INSTANCE, CODE_CHANGE_FACTOR = 10, 1.10  # on every runner
SICK_INSTANCE, SICK_FACTOR, SICK_RUNNER = 20, 1.15, 3  # on one runner


class CheckFailed(Exception):
    pass


def log(msg):
    print(f"year_history: {msg}", file=sys.stderr, flush=True)


# ---- the generated history ------------------------------------------------------------------------------------

def quantile_sorted(s, q):
    """core/stats.cpp's quantile_sorted: linear between the two nearest ranks."""
    if len(s) == 1:
        return s[0]
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def summarize(values):
    """core/stats.cpp's summarize(), so generated summaries are what an import would store."""
    n = len(values)
    mean = sum(values) / n
    stdev = (sum((v - mean) * (v - mean) for v in values) / (n - 1)) ** 0.5 if n > 1 else 0.0
    s = sorted(values)
    return n, quantile_sorted(s, 0.5), mean, s[0], s[-1], quantile_sorted(s, 0.25), quantile_sorted(s, 0.75), stdev


class Plan:
    """Which night is which date, which runs exist, and what each generated result draws."""

    def __init__(self, a, nights):
        self.a, self.nights = a, nights
        self.today = datetime.datetime.now(datetime.timezone.utc).date()
        self.code_change_night = max(2, int(nights * 0.55))
        self.sick_night = max(3, int(nights * 0.8))
        self.sick_runner = min(SICK_RUNNER, a.runners)
        # Variants: (level of an instance, factor); values of each block in each variant.
        self.factors = [1.0, CODE_CHANGE_FACTOR, SICK_FACTOR]
        rng = random.Random(f"year_history/blocks/{a.samples}")
        self.blocks = [[rng.gauss(1.0, 0.01) for _ in range(a.samples)] for _ in range(BLOCKS)]

    def date(self, night):  # night nights+1 is tonight, today
        return self.today - datetime.timedelta(days=self.nights + 1 - night)

    def started_at(self, runner, night):
        t = datetime.datetime.combine(self.date(night), datetime.time(2, 0)) + datetime.timedelta(minutes=runner)
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    @staticmethod
    def uuid(runner, night):
        return f"7ea2{runner:04x}-{night:04x}-4000-8000-{runner * 100000 + night:012d}"

    @staticmethod
    def commit(night):
        return hashlib.sha1(f"year_history night {night}".encode()).hexdigest()

    def variant(self, level, factor_index):
        return level * len(self.factors) + factor_index

    def factor_index(self, runner, night, instance):
        if instance == CODE_CHANGE_INSTANCE and night >= self.code_change_night:
            return 1
        if instance == SICK_INSTANCE and runner == self.sick_runner and night >= self.sick_night:
            return 2
        return 0

    def block_rows(self):
        """(block, variant, idx, value) of every block in every variant, and each one's summary."""
        rows, summaries = [], []
        for level in range(7):
            for fi, factor in enumerate(self.factors):
                v = self.variant(level, fi)
                scale = 5.0e4 * (1 + level) * factor
                for b, block in enumerate(self.blocks):
                    values = [round(scale * g, 1) for g in block]
                    rows.extend((b, v, i, x) for i, x in enumerate(values))
                    summaries.append((b, v) + summarize(values))
        return rows, summaries

    def run_rows(self, seed_run_of):
        """(id, uuid, seed run id, started_at, commit) of nights 2..nights, ids in store order."""
        rows, next_id = [], max(seed_run_of.values()) + 1
        for night in range(2, self.nights + 1):
            for runner in range(1, self.a.runners + 1):
                rows.append((next_id, self.uuid(runner, night), seed_run_of[runner], self.started_at(runner, night),
                             self.commit(night), runner, night))
                next_id += 1
        return rows

    def result_rows(self, runs, seed_results, first_id):
        """(id, run id, seed result id, block, variant) of every generated result; block and variant NULL
        for a counter (a copy of the seed run's single value)."""
        rng = random.Random(f"year_history/results/{self.a.runners}/{self.nights}")
        out, rid = [], first_id
        for run_id, _, seed_run, _, _, runner, night in runs:
            for seed_id, instance, is_duration in seed_results[seed_run]:
                if is_duration:
                    level = instance % 7
                    out.append((rid, run_id, seed_id, rng.randrange(BLOCKS),
                                self.variant(level, self.factor_index(runner, night, instance))))
                else:
                    out.append((rid, run_id, seed_id, None, None))
                rid += 1
        return out


def night_file(plan, path, runner_nights, samples):
    """Real suite runs (bench/suite_runs.py) for (runner, night) pairs, tonight's step planted."""
    runs = []
    for runner, night in runner_nights:
        rng = random.Random(f"year_history/{runner}/{night}")
        run = suite_runs.suite_run(plan.uuid(runner, night), night, f"runner-{runner:02d}", rng, samples)
        run["started_at"] = plan.started_at(runner, night)
        run["commit"] = plan.commit(night)
        run["label"] = "nightly"
        if runner == plan.a.step_runner and night == plan.nights + 1:
            suite_runs.plant_step(run, STEP_INSTANCE)
        runs.append(run)
    suite_runs.write_runs(path, runs)
    return path


# The set-based inserts, the same on both engines (the helper tables gen_run, gen_result, gen_block,
# gen_summary hold the generated part).
INSERT_RUNS = """
INSERT INTO run(id, uuid, machine_id, started_at, finished_at, commit_sha, branch, label, tool_version, status,
                excluded, exclude_reason, hostname, driver, cuda, command, exit_status)
SELECT g.id, g.uuid, s.machine_id, g.started_at, g.started_at, g.commit_sha, s.branch, s.label, s.tool_version,
       s.status, s.excluded, s.exclude_reason, s.hostname, s.driver, s.cuda, s.command, s.exit_status
FROM gen_run g JOIN run s ON s.id = g.seed_run ORDER BY g.id;
INSERT INTO outcome(run_id, benchmark_id, seq, status, message)
SELECT g.id, o.benchmark_id, o.seq, o.status, o.message FROM gen_run g JOIN outcome o ON o.run_id = g.seed_run
ORDER BY g.id, o.benchmark_id;
INSERT INTO result(id, run_id, benchmark_id, metric_id, seq, status, message, n, median, mean, min, max, q1, q3, stdev)
SELECT g.id, g.run_id, s.benchmark_id, s.metric_id, s.seq, s.status, s.message,
       coalesce(m.n, s.n), coalesce(m.median, s.median), coalesce(m.mean, s.mean), coalesce(m.min, s.min),
       coalesce(m.max, s.max), coalesce(m.q1, s.q1), coalesce(m.q3, s.q3), coalesce(m.stdev, s.stdev)
FROM gen_result g JOIN result s ON s.id = g.seed_result
LEFT JOIN gen_summary m ON m.block = g.block AND m.variant = g.variant ORDER BY g.id;
"""
# The samples, a range of generated runs at a time ({lo}..{hi}): in result order, as a real history's are
# stored (one run after another), without sorting all of them at once.
INSERT_SAMPLES = """
INSERT INTO sample(result_id, idx, value, sm_clock_mhz)
SELECT g.id, b.idx, b.value, 1980.0 FROM gen_result g JOIN gen_block b ON b.block = g.block AND b.variant = g.variant
WHERE g.run_id BETWEEN {lo} AND {hi}
UNION ALL
SELECT g.id, s.idx, s.value, s.sm_clock_mhz FROM gen_result g JOIN sample s ON s.result_id = g.seed_result
WHERE g.block IS NULL AND g.run_id BETWEEN {lo} AND {hi}
ORDER BY 1, 2;
"""
RUNS_PER_CHUNK = 128


def chunks(runs):
    ids = [r[0] for r in runs]
    for i in range(0, len(ids), RUNS_PER_CHUNK):
        yield ids[i], ids[min(len(ids), i + RUNS_PER_CHUNK) - 1]


class Engine:
    """One history: its location, and how the generated rows get into it."""

    def __init__(self, kind, location, gpuperf, pg=None):
        self.kind, self.location, self.gpuperf, self.pg = kind, location, gpuperf, pg

    def gp(self, *args, check=True):
        p = subprocess.run([self.gpuperf, "--db", self.location, *args], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if check and p.returncode not in (0, 1):
            raise CheckFailed(f"gpuperf {' '.join(args)} on {self.kind} exited {p.returncode}: {p.stderr[-1500:]}")
        return p

    def query(self, sql):
        if self.kind == "postgresql":
            return [line.split("|") for line in self.pg.psql(self.location, sql).splitlines()]
        with sqlite3.connect(self.location) as c:
            return [[str(x) for x in row] for row in c.execute(sql)]

    def load(self, work, blocks, summaries, runs, results):
        if self.kind == "postgresql":
            self._load_pg(work, blocks, summaries, runs, results)
        else:
            self._load_sqlite(blocks, summaries, runs, results)

    def _load_sqlite(self, blocks, summaries, runs, results):
        c = sqlite3.connect(self.location)
        c.execute("PRAGMA temp_store = MEMORY")
        c.execute("CREATE TEMP TABLE gen_run(id INTEGER PRIMARY KEY, uuid, seed_run, started_at, commit_sha, runner, night)")
        c.execute("CREATE TEMP TABLE gen_result(id INTEGER PRIMARY KEY, run_id, seed_result, block, variant)")
        c.execute("CREATE TEMP TABLE gen_block(block, variant, idx, value, PRIMARY KEY(block, variant, idx))")
        c.execute("CREATE TEMP TABLE gen_summary(block, variant, n, median, mean, min, max, q1, q3, stdev, "
                  "PRIMARY KEY(block, variant))")
        with c:
            c.executemany("INSERT INTO gen_run VALUES(?,?,?,?,?,?,?)", runs)
            c.executemany("INSERT INTO gen_result VALUES(?,?,?,?,?)", results)
            c.executemany("INSERT INTO gen_block VALUES(?,?,?,?)", blocks)
            c.executemany("INSERT INTO gen_summary VALUES(?,?,?,?,?,?,?,?,?,?)", summaries)
        c.executescript("BEGIN;" + INSERT_RUNS + "COMMIT;")
        for lo, hi in chunks(runs):
            c.executescript("BEGIN;" + INSERT_SAMPLES.format(lo=lo, hi=hi) + "COMMIT;")
        c.execute("ANALYZE")
        c.close()

    def _load_pg(self, work, blocks, summaries, runs, results):
        def tsv(name, rows):
            path = os.path.join(work, f"{name}.tsv")
            with open(path, "w", encoding="utf-8") as f:
                for row in rows:
                    f.write("\t".join("\\N" if x is None else repr(x) if isinstance(x, float) else str(x)
                                      for x in row) + "\n")
            os.chmod(path, 0o644)
            return path

        script = f"""
CREATE TEMP TABLE gen_run(id bigint PRIMARY KEY, uuid text, seed_run bigint, started_at text, commit_sha text,
                          runner int, night int);
CREATE TEMP TABLE gen_result(id bigint PRIMARY KEY, run_id bigint, seed_result bigint, block int, variant int);
CREATE TEMP TABLE gen_block(block int, variant int, idx int, value float8, PRIMARY KEY(block, variant, idx));
CREATE TEMP TABLE gen_summary(block int, variant int, n bigint, median float8, mean float8, min float8, max float8,
                              q1 float8, q3 float8, stdev float8, PRIMARY KEY(block, variant));
COPY gen_run FROM '{tsv("gen_run", runs)}';
COPY gen_result FROM '{tsv("gen_result", results)}';
COPY gen_block FROM '{tsv("gen_block", blocks)}';
COPY gen_summary FROM '{tsv("gen_summary", summaries)}';
ANALYZE gen_run; ANALYZE gen_result; ANALYZE gen_block; ANALYZE gen_summary;
BEGIN;
{INSERT_RUNS}
SELECT setval(pg_get_serial_sequence('run', 'id'), (SELECT max(id) FROM run));
SELECT setval(pg_get_serial_sequence('result', 'id'), (SELECT max(id) FROM result));
COMMIT;
""" + "".join(INSERT_SAMPLES.format(lo=lo, hi=hi) for lo, hi in chunks(runs)) + """
VACUUM ANALYZE;
"""
        path = os.path.join(work, "load.sql")
        with open(path, "w", encoding="utf-8") as f:
            f.write(script)
        subprocess.run([os.path.join(self.pg.env["PG_BINDIR"], "psql"), "-XAtq", "-v", "ON_ERROR_STOP=1",
                        self.location, "-f", path], stdout=subprocess.DEVNULL, check=True)


def build_history(engine, plan, work):
    """The schema and one imported run per runner, then the generated nights 2..nights."""
    t0 = time.perf_counter()
    if engine.kind == "postgresql":
        engine.gp("--quiet", "db", "migrate")  # a SQLite file is made by the import (migrate refuses a new path)
    seed = night_file(plan, os.path.join(work, f"seed-{engine.kind}-{plan.nights}.json"),
                      [(r, 1) for r in range(1, plan.a.runners + 1)], plan.a.samples)
    engine.gp("--quiet", "import", seed)
    seed_run_of = {}
    for run_id, uuid in engine.query("SELECT id, uuid FROM run"):
        seed_run_of[int(uuid[4:8], 16)] = int(run_id)
    seed_results = {}
    for rid, run_id, name, metric in engine.query(
            "SELECT res.id, res.run_id, b.name, m.name FROM result res JOIN benchmark b ON b.id = res.benchmark_id "
            "JOIN metric m ON m.id = res.metric_id ORDER BY res.id"):
        seed_results.setdefault(int(run_id), []).append((int(rid), int(name.split("/k")[1]), metric == "duration"))
    first_result = int(engine.query("SELECT max(id) FROM result")[0][0]) + 1
    runs = plan.run_rows(seed_run_of)
    results = plan.result_rows(runs, seed_results, first_result)
    blocks, summaries = plan.block_rows()
    engine.load(work, blocks, summaries, runs, results)
    samples = int(engine.query("SELECT count(*) FROM sample")[0][0])
    log(f"{engine.kind}: {plan.a.runners} runners x {plan.nights} nights, {len(runs) + len(seed_run_of)} runs, "
        f"{samples:,} samples, built in {time.perf_counter() - t0:.0f} s")
    return samples


# ---- what is timed -------------------------------------------------------------------------------------------

COMMANDS = [
    ("detect_machine", "`detect --machine M` (the nightly's own)"),
    ("tonight", "the nightly's \"tonight\" read (`--before-run`)"),
    ("report_machine", "`report --machine M`"),
    ("detect_all", "`detect` over all machines"),
    ("report_all", "`report` of all machines"),
    ("export", "`export` of the whole history"),
]


def command_args(key, machine, newest, out):
    return {
        "detect_machine": ["detect", "--branch", "main", "--machine", machine, "--format", "json"],
        "tonight": ["detect", "--branch", "main", "--machine", machine, "--before-run", newest, "--format", "json"],
        "report_machine": ["--quiet", "report", "--out", out, "--branch", "main", "--machine", machine,
                           "--format", "html,md"],
        "detect_all": ["detect", "--branch", "main", "--format", "json"],
        "report_all": ["--quiet", "report", "--out", out, "--branch", "main", "--format", "html,md"],
        "export": ["export", "--output", out + ".json"],
    }[key]


def time_commands(engine, plan, work, label):
    machine = f"runner-{plan.a.step_runner:02d}"
    newest = engine.query(f"SELECT max(r.id) FROM run r JOIN machine m ON m.id = r.machine_id "
                          f"WHERE m.hostname = '{machine}'")[0][0]
    times, outputs = {}, {}
    for key, _ in COMMANDS:
        out = os.path.join(work, f"{key}-{engine.kind}-{label}")
        t0 = time.perf_counter()
        p = engine.gp(*command_args(key, machine, newest, out))
        times[key] = time.perf_counter() - t0
        outputs[key] = p.stdout
        log(f"  {engine.kind} {label}: {key} {times[key]:.2f} s")
    return times, outputs


def timed_export(gpuperf, engine, out):
    """`gpuperf export` of the whole history into `out`: (wall seconds, peak resident MiB of the process). The
    peak is VmHWM polled every 20 ms: wait4's ru_maxrss would include this script's own memory, which a forked
    child carries until its exec."""
    t0 = time.perf_counter()
    p = subprocess.Popen([gpuperf, "--db", engine.location, "export", "--output", out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak_kib = 0
    while p.poll() is None:
        try:
            with open(f"/proc/{p.pid}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak_kib = max(peak_kib, int(line.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.02)
    seconds = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if p.returncode != 0:
        raise CheckFailed(f"{gpuperf} export on {engine.kind} exited {p.returncode}: {err[-1500:]}")
    return seconds, peak_kib / 1024


def same_bytes(a, b):
    with open(a, "rb") as x, open(b, "rb") as y:
        while True:
            u, v = x.read(1 << 20), y.read(1 << 20)
            if u != v:
                return False
            if not u:
                return True


def compare_exports(engines, a, work, label, failures):
    """--baseline-gpuperf: export of the whole history by this build, then by the baseline, on both engines, on
    the same databases (this build goes first, with the colder caches, unless the table's export ran before).
    Every file must be byte-identical to SQLite's export by this build."""
    rows = {}
    for e in engines:
        for who, exe in (("this build", a.gpuperf), ("baseline", a.baseline_gpuperf)):
            out = os.path.join(work, f"cmp-export-{e.kind}-{who.replace(' ', '-')}-{label}.json")
            rows[(e.kind, who)] = timed_export(exe, e, out) + (out,)
            log(f"  {e.kind} {label}: export by {who} {rows[(e.kind, who)][0]:.2f} s, "
                f"peak RSS {rows[(e.kind, who)][1]:.0f} MiB")
    reference = rows[("sqlite", "this build")][2]
    for key, (_, _, out) in rows.items():
        if not same_bytes(out, reference):
            failures.append(f"{label} nights: the export of {key[0]} by {key[1]} differs from SQLite's by this build")
    size = os.path.getsize(reference)
    for _, _, out in rows.values():
        os.remove(out)
    return rows, size


def print_exports(a, label, rows, size):
    print(f"export of the whole history at {label} nights ({size / 2**20:,.0f} MiB of JSON, every file "
          f"byte-identical to SQLite's): baseline {a.baseline_gpuperf}")
    print("| engine | baseline | this build | peak RSS baseline / this build |")
    print("|---|---|---|---|")
    for kind in ("postgresql", "sqlite"):
        (tb, mb, _), (tn, mn, _) = rows[(kind, "baseline")], rows[(kind, "this build")]
        print(f"| {kind} | {tb:.2f} s | {tn:.2f} s | {mb:.0f} / {mn:.0f} MiB |")
    for who in ("baseline", "this build"):
        print(f"PostgreSQL / SQLite export, {who}: "
              f"{rows[('postgresql', who)][0] / rows[('sqlite', who)][0]:.2f}x (target <= 2)")


# ---- plans (--check) -----------------------------------------------------------------------------------------

PER_MACHINE = ("detect_machine", "tonight", "report_machine")
SCANS = re.compile(r"Seq Scan on (sample|result|outcome)\b")


def enable_plan_log(pg, uri, dbname):
    pg.psql(uri, f"ALTER DATABASE {dbname} SET session_preload_libraries = 'auto_explain'")
    pg.psql(uri, f"ALTER DATABASE {dbname} SET auto_explain.log_min_duration = 0")


def server_log(pg):
    with open(os.path.join(pg.folder, "server.log"), encoding="utf-8", errors="replace") as f:
        return f.read()


def check_plans(engine, plan, work, failures):
    """Runs the per-machine reads with auto_explain on; any Seq Scan of sample/result/outcome fails. Twice:
    with the statistics ANALYZE gathered, and with the distinct result and run ids underestimated 40-fold (what
    turned the flat reads into scans of a year's 59 million samples, issue 42): the shapes must not care."""
    machine = f"runner-{plan.a.step_runner:02d}"
    newest = engine.query(f"SELECT max(r.id) FROM run r JOIN machine m ON m.id = r.machine_id "
                          f"WHERE m.hostname = '{machine}'")[0][0]
    plans = 0
    for stats in ("analyzed", "underestimated"):
        if stats == "underestimated":
            results, runs = (int(x) for x in engine.query("SELECT count(*), count(DISTINCT run_id) FROM result")[0])
            engine.pg.psql(engine.location,
                           f"ALTER TABLE sample ALTER COLUMN result_id SET (n_distinct = {max(1, results // 40)}); "
                           f"ALTER TABLE result ALTER COLUMN run_id SET (n_distinct = {max(1, runs // 40)}); "
                           "ANALYZE sample; ANALYZE result")
            # The check's control: the flat read those shapes replaced is planned as a scan of every sample now.
            # (4,000 result ids a query, as the old load_samples sent them.)
            ids = ",".join(x[0] for x in engine.query("SELECT id FROM result ORDER BY id DESC LIMIT 4000"))
            flat = engine.pg.psql(engine.location, "EXPLAIN SELECT result_id, value FROM sample WHERE result_id = "
                                                   f"ANY('{{{ids}}}'::bigint[]) ORDER BY result_id, idx")
            # Informational: at CI's size the whole table is cheap either way; at a year's it is a scan.
            log("  the old flat read of 4,000 results under these statistics: " +
                ("a Seq Scan of sample" if SCANS.search(flat) else "an index scan (the table is small)"))
        for key in PER_MACHINE + ("export_machine",):
            before = len(server_log(engine.pg))
            args = (["export", "--machine", machine, "--output", os.path.join(work, "plan-export.json")]
                    if key == "export_machine"
                    else command_args(key, machine, newest, os.path.join(work, f"plan-{key}")))
            engine.gp(*args)
            text = server_log(engine.pg)[before:]
            plans += text.count("Query Text:")
            scans = sorted(set(SCANS.findall(text)))
            if text.count("Query Text:") == 0:
                failures.append(f"plans: no plan was logged for {key} (auto_explain not loaded?)")
            if scans:
                failures.append(f"plans ({stats} statistics): {key} scans whole tables {scans} (every machine's rows)")
    engine.pg.psql(engine.location, "ALTER TABLE sample ALTER COLUMN result_id RESET (n_distinct); "
                                    "ALTER TABLE result ALTER COLUMN run_id RESET (n_distinct); ANALYZE sample; ANALYZE result")
    log(f"  plans: {plans} statements of the per-machine reads logged (analyzed and 40x underestimated "
        f"statistics), none scans sample/result/outcome")
    return plans


# ---- prune (--check) -----------------------------------------------------------------------------------------

def without_run_ids(doc):
    """A detect answer without run ids: tonight's concurrent nightlies store their runs in another order on
    each engine, so the ids differ while the runs (uuids) are the same."""
    if isinstance(doc, dict):
        return {k: without_run_ids(v) for k, v in doc.items() if k != "run_id"}
    if isinstance(doc, list):
        return [without_run_ids(x) for x in doc]
    return doc


def check_prune(engines, plan, work, failures):
    """detect and report answer alike before and after `db prune`, on both engines; compare of pruned runs."""
    age = f"{max(30, plan.nights // 2)}d"
    outcome = {}
    for e in engines:
        machine = f"runner-{plan.a.step_runner:02d}"
        before_detect = e.gp("detect", "--branch", "main", "--format", "json").stdout
        e.gp("--quiet", "report", "--out", os.path.join(work, f"prune-before-{e.kind}"), "--branch", "main",
             "--format", "md")
        dry = json.loads(e.gp("db", "prune", "--samples-older-than", age, "--dry-run", "--format", "json").stdout)
        samples_before = int(e.query("SELECT count(*) FROM sample")[0][0])
        if dry["samples"] <= 0 or samples_before != dry["samples"] + dry["samples_left"]:
            failures.append(f"prune {e.kind}: the dry run counted {dry} of {samples_before} samples")
        if int(e.query("SELECT count(*) FROM sample")[0][0]) != samples_before:
            failures.append(f"prune {e.kind}: the dry run changed the samples")
        done = json.loads(e.gp("db", "prune", "--samples-older-than", age, "--format", "json").stdout)
        left = int(e.query("SELECT count(*) FROM sample")[0][0])
        if done["samples"] != dry["samples"] or left != dry["samples_left"]:
            failures.append(f"prune {e.kind}: pruned {done}, {left} samples left; the dry run said {dry}")
        after_detect = e.gp("detect", "--branch", "main", "--format", "json").stdout
        e.gp("--quiet", "report", "--out", os.path.join(work, f"prune-after-{e.kind}"), "--branch", "main",
             "--format", "md")
        if after_detect != before_detect:
            failures.append(f"prune {e.kind}: detect answers differently after the prune")
        md = [open(os.path.join(work, f"prune-{w}-{e.kind}", "report.md"), encoding="utf-8").read()
              for w in ("before", "after")]
        if [re.sub(r"(?m)^.*[Gg]enerated.*$", "", x) for x in md][0] != \
                [re.sub(r"(?m)^.*[Gg]enerated.*$", "", x) for x in md][1]:
            failures.append(f"prune {e.kind}: report.md differs after the prune")
        old = e.query(f"SELECT r.id FROM run r JOIN machine m ON m.id = r.machine_id WHERE m.hostname = '{machine}' "
                      f"ORDER BY r.started_at LIMIT 2")
        cmp = e.gp("compare", old[0][0], old[1][0], "--format", "json")
        if "samples pruned" not in cmp.stdout:
            failures.append(f"prune {e.kind}: compare of two pruned runs does not say their samples are pruned")
        outcome[e.kind] = (dry, left, without_run_ids(json.loads(after_detect)))
        log(f"  prune {e.kind} --samples-older-than {age}: {dry['samples']:,} samples of {dry['runs']} runs, "
            f"{left:,} left; detect and report.md unchanged")
    if len(outcome) == 2 and outcome["sqlite"][2] != outcome["postgresql"][2]:
        failures.append("prune: detect answers differ between the engines after the prune")


# ---- 16 nightlies at once ------------------------------------------------------------------------------------

def concurrent_nightlies(engine, plan, work, window):
    """All runners' nightlies of night --nights + 1 at once, each analysing `window` ("all" or a number of
    runs: ci/nightly.sh --window). A second batch finds tonight's runs stored (the import skips them) and
    reports the same findings, as a rerun does; its store step then costs less."""
    night = plan.nights + 1
    wrapper = os.path.join(work, "gpuperf-timed")
    with open(wrapper, "w", encoding="utf-8") as f:
        f.write(f'#!/usr/bin/env bash\nexec "{engine.gpuperf}" "$@"\n')
    os.chmod(wrapper, 0o755)
    jobs = []
    for runner in range(1, plan.a.runners + 1):
        art = os.path.join(work, f"nightly-{engine.kind}-window-{window}", f"runner-{runner:02d}")
        os.makedirs(art, exist_ok=True)
        f = night_file(plan, os.path.join(art, "tonight.json"), [(runner, night)], plan.a.samples)
        cmd = ["bash", NIGHTLY, "--gpuperf", wrapper, "--db", engine.location, "--import", f, "--branch", "main",
               "--night", plan.date(night).isoformat(), "--artifacts", art, "--window", str(window)]
        jobs.append((runner, art, cmd))

    def one(job):
        runner, art, cmd = job
        t0 = time.perf_counter()
        with open(os.path.join(art, "nightly.log"), "w") as logf:
            p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT, cwd=work)
            # wait4: the job's CPU seconds, with every process it waited for (gpuperf, python, awk, ...).
            _, status, usage = os.wait4(p.pid, 0)
            p.returncode = os.waitstatus_to_exitcode(status)
        r = tally.job_result(art, p.returncode, time.perf_counter() - t0)
        r["runner"] = runner
        r["cpu"] = usage.ru_utime + usage.ru_stime
        return r

    server_cpu = engine.pg.cpu_seconds() if engine.pg else 0.0
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        results = list(pool.map(one, jobs))
    server_cpu = (engine.pg.cpu_seconds() - server_cpu) if engine.pg else 0.0
    return results, server_cpu


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q / 100 * (len(s) - 1)))))]


def tally_nightlies(batch, plan):
    results, server_cpu = batch
    step_name = suite_runs.instance_name(STEP_INSTANCE)
    found = []
    for r in results:
        for f in r["findings"]:
            found.append((r["runner"], f.get("benchmark", "?"), f.get("metric", "?")))
    steps = {}
    for r in results:
        for k, v in r["steps"].items():
            steps.setdefault(k, []).append(v)
    walls = [r["wall"] for r in results]
    runners_with_step = sorted({runner for runner, bench, _ in found if bench.startswith(step_name)})
    others = [x for x in found if not x[1].startswith(step_name) or x[0] != plan.a.step_runner]
    cpus = [r["cpu"] for r in results]
    return {"p50": percentile(walls, 50), "p95": percentile(walls, 95), "steps": steps,
            "cpu_p50": percentile(cpus, 50), "cpu_sum": sum(cpus), "server_cpu": server_cpu,
            "failed": [r for r in results if r["rc"] not in (0, 1)], "step_runners": runners_with_step,
            "other_findings": others, "findings": found}


# ---- the table -----------------------------------------------------------------------------------------------

def print_table(a, sizes, times, nightly, samples):
    print()
    print(f"{a.runners} runners, 33 instances a run, {a.samples} duration samples an instance; "
          f"{samples:,} samples at {a.nights} nights; PostgreSQL on a Unix socket and one SQLite file, "
          f"{os.cpu_count()} cores (shared machine: absolute times are rough)")
    if a.no_commands:
        sizes = []
    head = " | ".join(f"{n} nights: PostgreSQL / SQLite (ratio)" for n in sizes)
    if sizes:
        print(f"| command | {head} |")
        print("|---|" + "---|" * len(sizes))
    worst = 0.0
    for key, label in (COMMANDS if sizes else []):
        cells = []
        for n in sizes:
            pg, lite = times[n]["postgresql"][key], times[n]["sqlite"][key]
            cells.append(f"{pg:.2f} s / {lite:.2f} s ({pg / lite:.2f}x)")
            if n == sizes[-1]:
                worst = max(worst, pg / lite)
        print(f"| {label} | " + " | ".join(cells) + " |")
    if sizes:
        print(f"worst PostgreSQL/SQLite ratio at {sizes[-1]} nights: {worst:.2f}x (target <= 2)")
    for (kind, window), t in nightly.items():
        steps = ", ".join(f"{k} p50 {statistics.median(v):.1f} s / p95 {percentile(v, 95):.1f} s"
                          for k, v in t["steps"].items())
        print(f"{a.runners} concurrent nightlies at night {a.nights + 1} on {kind}, --window {window}: job p50 "
              f"{t['p50']:.1f} s, p95 {t['p95']:.1f} s (target p95 <= 15 s); {steps}")
        # What the cores were asked for: on a machine shared with others, wall times stretch, CPU seconds do not.
        # All of it spread over the cores with nothing else running is the wall a batch would need at least.
        total = t["cpu_sum"] + t["server_cpu"]
        print(f"  CPU: {t['cpu_p50']:.2f} s a job (p50; gpuperf, scripts), {t['cpu_sum']:.1f} s all jobs, "
              f"{t['server_cpu']:.1f} s the server's; {total:.1f} s over {os.cpu_count()} cores = "
              f"{total / os.cpu_count():.1f} s at least for the batch on an otherwise idle machine")
        print(f"  planted step ({suite_runs.instance_name(STEP_INSTANCE)} on runner {a.step_runner}) reported by "
              f"runners {t['step_runners']}; other findings: {len(t['other_findings'])}; failed jobs: "
              f"{len(t['failed'])}")
    return worst


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runners", type=int, default=16)
    ap.add_argument("--nights", type=int, default=365)
    ap.add_argument("--short-nights", type=int, default=30, help="the smaller size timed too (0: none)")
    ap.add_argument("--samples", type=int, default=300, help="duration samples per instance (default 300)")
    ap.add_argument("--step-runner", type=int, help="runner with tonight's step (default 7, or the last)")
    ap.add_argument("--gpuperf", default=os.path.join(REPO, "build", "cli", "gpuperf"))
    ap.add_argument("--check", action="store_true", help="plan, answer and prune checks (CI)")
    ap.add_argument("--no-concurrent", action="store_true", help="skip the concurrent nightlies")
    ap.add_argument("--nightly-windows", default="90", metavar="W[,W...]",
                    help="ci/nightly.sh --window of each batch of concurrent nightlies, in order (a number of runs "
                         "or all; default 90, the nightly's default; '90,all' also times the whole-history nightly)")
    ap.add_argument("--engines", default="postgresql,sqlite",
                    help="the concurrent nightlies' engines (default postgresql,sqlite)")
    ap.add_argument("--no-commands", action="store_true",
                    help="skip timing the commands of the table (build the history, then the nightlies)")
    ap.add_argument("--baseline-gpuperf", metavar="EXE",
                    help="also time the whole-history export by this other build (before a change) on both engines, "
                         "with peak memory, and require every export byte-identical")
    ap.add_argument("--keep", metavar="DIR", help="keep the work folder (SQLite files, artifacts) here")
    a = ap.parse_args()
    if a.step_runner is None:
        a.step_runner = min(7, a.runners)
    if a.runners < 1 or a.nights < 10 or a.samples < 2 or not 1 <= a.step_runner <= a.runners:
        ap.error("need --runners >= 1, --nights >= 10, --samples >= 2, --step-runner in 1..RUNNERS")
    if a.short_nights and not 2 <= a.short_nights < a.nights:
        ap.error("--short-nights must be 0, or 2 or more and below --nights")
    a.nightly_windows = [w.strip() for w in a.nightly_windows.split(",") if w.strip()]
    if not a.nightly_windows or any(w != "all" and not (w.isdigit() and int(w) >= 16) for w in a.nightly_windows):
        ap.error("--nightly-windows: each window is all or a number of runs of 16 or more")
    a.engines = [e.strip() for e in a.engines.split(",") if e.strip()]
    if not a.engines or any(e not in ("postgresql", "sqlite") for e in a.engines):
        ap.error("--engines: postgresql, sqlite or both")
    if a.check and a.no_commands:
        ap.error("--check needs the commands (their answers and plans are checked)")
    a.gpuperf = os.path.abspath(a.gpuperf)
    if a.baseline_gpuperf:
        a.baseline_gpuperf = os.path.abspath(a.baseline_gpuperf)
        if not os.access(a.baseline_gpuperf, os.X_OK):
            ap.error(f"{a.baseline_gpuperf} is not an executable")
    if not os.access(a.gpuperf, os.X_OK):
        ap.error(f"{a.gpuperf} is not an executable (build it: cmake --build build --target gpuperf)")
    return a


def main():
    a = parse_args()
    try:
        server_binaries()
    except ServerUnavailable as e:
        if os.environ.get("CI", "") not in ("", "0", "false"):
            sys.exit(f"year_history: FAIL: CI is set and {e}")
        log(f"skipped: {e}")
        return 77
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="gpuperf-year-")
    os.makedirs(work, exist_ok=True)
    os.chmod(work, 0o755)
    server_dir = tempfile.mkdtemp(prefix="gpuperf-year-pg-")  # short socket path
    os.chmod(server_dir, 0o755)
    pg = ThrowawayServer(os.path.join(server_dir, "pg"))
    failures = []
    sizes = ([a.short_nights] if a.short_nights else []) + [a.nights]
    times, nightly, samples, exports = {}, {}, 0, {}
    try:
        pg.start()
        for n in sizes:
            plan = Plan(a, n)
            dbname = f"year{n}"
            engines = [Engine("postgresql", pg.create_database(dbname), a.gpuperf, pg),
                       Engine("sqlite", os.path.join(work, f"year{n}.db"), a.gpuperf)]
            for e in engines:
                samples = build_history(e, plan, work)
            if a.check:
                enable_plan_log(pg, engines[0].location, dbname)
            if not a.no_commands:
                times[n] = {}
                outputs = {}
                for e in engines:
                    times[n][e.kind], outputs[e.kind] = time_commands(e, plan, work, f"{n}")
                for key in ("detect_machine", "tonight", "detect_all"):
                    if outputs["postgresql"][key] != outputs["sqlite"][key]:
                        failures.append(f"{n} nights: {key} answers differ between PostgreSQL and SQLite")
                exported = [os.path.join(work, f"export-{e.kind}-{n}.json") for e in engines]
                if not same_bytes(*exported):
                    failures.append(f"{n} nights: the exports of PostgreSQL and SQLite differ")
                for f in exported:
                    os.remove(f)
            if a.baseline_gpuperf:
                exports[n] = compare_exports(engines, a, work, n, failures)
            if a.check and n == a.nights:
                check_plans(engines[0], plan, work, failures)
            if n == a.nights and not a.no_concurrent:
                for e in (e for e in engines if e.kind in a.engines):
                    for window in a.nightly_windows:
                        log(f"{a.runners} nightlies at once on {e.kind}, night {n + 1}, --window {window}")
                        t = tally_nightlies(concurrent_nightlies(e, plan, work, window), plan)
                        nightly[(e.kind, window)] = t
                        what = f"{e.kind} --window {window}"
                        if t["failed"]:
                            failures.append(f"{what}: {len(t['failed'])} nightlies failed: "
                                            f"{t['failed'][0]['log_tail']}")
                        if t["step_runners"] != [a.step_runner] or \
                                sum(1 for x in t["findings"] if x[0] == a.step_runner
                                    and x[1].startswith(suite_runs.instance_name(STEP_INSTANCE))) < 1:
                            failures.append(f"{what}: the planted step was reported by runners "
                                            f"{t['step_runners']}, expected [{a.step_runner}] only")
                        if t["other_findings"]:
                            failures.append(f"{what}: findings other than the planted step: "
                                            f"{t['other_findings'][:3]}")
                    # Every window must give each runner the same verdict (the findings of new-tonight.json).
                    verdicts = {w: sorted(nightly[(e.kind, w)]["findings"]) for w in a.nightly_windows}
                    if len({json.dumps(v) for v in verdicts.values()}) > 1:
                        failures.append(f"{e.kind}: the windows' nightlies found different things: {verdicts}")
            if a.check and n == a.nights:
                check_prune(engines, plan, work, failures)
    except ServerUnavailable as e:
        failures.append(f"the PostgreSQL server did not start: {e}")
    except (CheckFailed, subprocess.CalledProcessError) as e:
        failures.append(str(e))
    finally:
        pg.stop()
        shutil.rmtree(server_dir, ignore_errors=True)
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    if len(times) == len(sizes) or a.no_commands:
        print_table(a, sizes, times, nightly, samples)
        for n, (rows, size) in exports.items():
            print_exports(a, n, rows, size)
    for f in failures:
        print(f"year_history: FAIL: {f}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
