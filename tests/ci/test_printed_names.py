#!/usr/bin/env python3
"""Every identifier gpuperf prints is accepted back (issue 62's property test, no GPU).

    test_printed_names.py GPUPERF_BIN REPO

Five histories, each imported into a fresh SQLite file: a team's week (the built-in suite and a recorded
program on one runner, tests/ci/make_team_week.py), its first 3 nights (every series "not enough data"), two
runners of the same nights (tests/ci/make_nights.py
--machine 1 and 2; their uuids share their first 8 characters), README's sample history
(examples/sample-history.json) and the reports' fixture (tests/reports/fixture_history.json). From what `runs`,
`detect`, `compare` and `report --format md` print (text as a terminal shows it, Markdown as it renders), every
run reference (id, "#id", uuid prefix, commit), machine (as printed, its hostname, its GPU prefix) and
benchmark instance (shortened recorded names included) is harvested and fed back to each option that takes
that kind. A name is refused when gpuperf exits 2; every harvested name must be accepted. A detect finding's
benchmark and commit must also name that finding for `ack` (no --no-finding). Prints one line per kind:
how many names were harvested and fed back, and exits 1 listing the refused ones.
"""
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

GPUPERF, REPO = sys.argv[1], sys.argv[2]


def gp(db, *args):
    return subprocess.run([GPUPERF, "--db", db, *args], capture_output=True, text=True, encoding="utf-8")


def md_text(cell):
    """A Markdown cell as it renders: escapes undone, entities decoded, code spans unwrapped."""
    cell = cell.strip().strip("`").replace("**", "")
    cell = re.sub(r"\\(.)", r"\1", cell)
    return html.unescape(cell)


def md_tables(text):
    """Each Markdown table as (header cells, rows of cells)."""
    tables, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-:| ]+\|$", lines[i + 1]):
            header = [md_text(c) for c in split_md_row(line)]
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([md_text(c) for c in split_md_row(row)])
            tables.append((header, rows))
    return tables


def split_md_row(line):
    cells, cur, i = [], "", 1
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            cur += line[i:i + 2]
            i += 2
            continue
        if ch == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += ch
        i += 1
    return cells


def text_table(text, first_header):
    """Rows of a column-aligned text table whose header line starts with `first_header`, cut at its header's
    column starts (names may hold single spaces, never two)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(first_header + " "):
            starts = [m.start() for m in re.finditer(r"(?:^|(?<=\s\s))\S", line)]
            names = [line[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
            rows = []
            for row in lines[i + 1:]:
                if not row.strip():
                    break
                if row.startswith("    "):  # a hint line under a row
                    continue
                cells = [row[s:e].strip() for s, e in zip(starts, starts[1:] + [None])]
                rows.append(dict(zip(names, cells)))
            return rows
    return []


MACHINE = re.compile(r"^(?P<host>\S+) \((?P<gpu>[^,]+), (?P<fp>GPU-[0-9a-f]+)\)$")


class Harvest:
    def __init__(self):
        self.runs, self.commits, self.machines, self.benchmarks, self.findings = set(), set(), set(), set(), set()

    def machine(self, printed, where):
        self.machines.add((printed, where))
        m = MACHINE.match(printed)
        if m:
            self.machines.add((m.group("host"), where + " (its host)"))
            self.machines.add((m.group("fp"), where + " (its GPU)"))


def harvest(db):
    h = Harvest()
    runs = gp(db, "runs").stdout
    for row in text_table(runs, "id"):
        h.runs.add((row["id"], "runs id"))
        h.runs.add((row["uuid"], "runs uuid"))
        h.commits.add((row["commit"], "runs commit"))
        h.machine(row["machine"], "runs machine")
    ids = [r["id"] for r in text_table(runs, "id")]

    detect = gp(db, "detect").stdout
    for line in detect.splitlines():
        m = re.match(r"^machine\s{2,}(\S+ \(.*\))$", line)  # a per-machine table's heading
        if m:
            h.machine(m.group(1), "detect machine heading")
        m = re.search(r" at ([0-9a-f]{10}) \(previous ([0-9a-f]{10})\)", line)
        if m:
            h.commits.update({(m.group(1), "detect program line"), (m.group(2), "detect program line")})
    for first in ("benchmark", "machine"):
        for row in text_table(detect, first):
            if "benchmark" not in row:
                continue
            if row.get("machine"):
                h.machine(row["machine"], "detect row")
            h.benchmarks.add((row["benchmark"], "detect row"))
            h.commits.update({(row["commit"], "detect row"), (row["previous"], "detect row")})
            h.findings.add((row["benchmark"], row["commit"], row["metric"], row.get("machine", "")))
    for line in detect.splitlines():  # not enough data: "  NAME METRIC (N runs): next: ..."
        m = re.match(r"^  (\S.*) \S+ \(\d+ runs?\): next: ", line)
        if m:
            h.benchmarks.add((m.group(1), "detect not-enough-data list"))

    if len(ids) >= 2:
        cmp = gp(db, "compare", ids[0], ids[-1], "--all").stdout
        for line in cmp.splitlines():
            m = re.match(r"^(base|candidate)\s+(\S+) \((#\d+)\)\s+\S+ @ ([0-9a-f]+)\s+\[[^]]*\]\s+\S+\s+(.*)$", line)
            if m:
                h.runs.update({(m.group(2), "compare header uuid"), (m.group(3), "compare header id")})
                h.commits.add((m.group(4), "compare header commit"))
                h.machine(m.group(5).strip(), "compare header machine")
        for row in text_table(cmp, "benchmark"):
            h.benchmarks.add((row["benchmark"], "compare row"))

    md = gp(db, "report", "--format", "md").stdout
    for header, rows in md_tables(md):
        for row in rows:
            cells = dict(zip(header, row))
            if "Machine" in cells and cells["Machine"]:
                h.machine(cells["Machine"], "report machine table")
            if cells.get("Commit"):
                h.commits.add((cells["Commit"], "report commit"))
            if cells.get("Commits"):
                for c in re.findall(r"[0-9a-f]{7,}", cells["Commits"]):
                    h.commits.add((c, "report commits"))
            if cells.get("Benchmark"):
                h.benchmarks.add((cells["Benchmark"], "report " + header[0].lower() + " table"))
    return h, ids


def accepted(r):
    return r.returncode != 2


def check(db, work):
    h, ids = harvest(db)
    refused, counts = [], {}

    def feed(kind, name, where, args, scratch=False):
        target = db
        if scratch:  # a write: on a copy, so each name is tried against the same history
            target = os.path.join(work, "scratch.db")
            shutil.copyfile(db, target)
        r = gp(target, *args)
        counts[kind] = counts.get(kind, 0) + 1
        if not accepted(r):
            refused.append(f"{kind} '{name}' (printed by {where}) refused by `gpuperf {' '.join(args)}`: "
                           f"{r.stderr.strip()[:300]}")

    for ref, where in sorted(h.runs):
        feed("run", ref, where, ["runs", "show", ref])
        feed("run", ref, where, ["compare", ref, ref])
        feed("run", ref, where, ["export", "--run", ref, "--output", os.path.join(work, "one.json")])
        feed("run", ref, where, ["detect", "--as-of", ref])
    for c, where in sorted(h.commits):
        feed("commit", c, where, ["compare", c, c])
        feed("commit", c, where, ["export", "--run", c, "--output", os.path.join(work, "one.json")])
        feed("commit", c, where, ["annotate", "--commit", c, "probe"], scratch=True)
    for m, where in sorted(h.machines):
        feed("machine", m, where, ["runs", "--machine", m])
        feed("machine", m, where, ["detect", "--machine", m])
        feed("machine", m, where, ["report", "--format", "md", "--machine", m])
        feed("machine", m, where, ["export", "--machine", m, "--output", os.path.join(work, "one.json")])
    newest = ids[-1] if ids else "1"
    for b, where in sorted(h.benchmarks):
        # Named at a run that has it: a recorded kernel at a recorded run, a suite instance at a suite run.
        run = run_with(db, b) or newest
        feed("benchmark", b, where, ["ack", "--run", run, "--benchmark", b, "--no-finding", "--metric", "duration",
                                     "--reason", "probe"], scratch=True)
    for b, commit, metric, machine in sorted(h.findings):
        args = ["ack", "--run", commit, "--benchmark", b, "--metric", metric, "--reason", "probe"]
        if machine:
            args += ["--machine", machine]
        feed("finding", f"{b} {metric} at {commit}", "detect row", args, scratch=True)
    return h, counts, refused


_RUNS_OF = {}


def run_with(db, benchmark):
    """The id of a run whose export holds the benchmark's family (recorded kernels live in recorded runs)."""
    if db not in _RUNS_OF:
        runs = json.loads(gp(db, "runs", "--format", "json").stdout)
        _RUNS_OF[db] = runs
    recorded = benchmark.split("/")[0] not in ("memory", "matmul", "stencil", "matvec", "vector", "occupancy",
                                                "transpose")
    for r in reversed(_RUNS_OF[db]):
        if bool(r.get("command")) == recorded:
            return str(r["id"])
    return None


def main():
    work = tempfile.mkdtemp(prefix="printed-names-")
    histories = []
    try:
        team = os.path.join(work, "team")
        subprocess.run([sys.executable, f"{REPO}/tests/ci/make_team_week.py", team, "12", "9"], check=True)
        histories.append(("team's week (suite + recorded program)", sorted(
            os.path.join(team, f) for f in os.listdir(team))))
        short = os.path.join(work, "short")  # 3 nights: every series listed as "not enough data"
        subprocess.run([sys.executable, f"{REPO}/tests/ci/make_team_week.py", short, "3", "9"], check=True)
        histories.append(("a team's first 3 nights", sorted(os.path.join(short, f) for f in os.listdir(short))))
        for m in ("1", "2"):
            subprocess.run([sys.executable, f"{REPO}/tests/ci/make_nights.py", os.path.join(work, f"nights-{m}"),
                            "12", "9", "strided", "--machine", m], check=True)
        histories.append(("two runners", sorted(os.path.join(work, f"nights-{m}", f) for m in ("1", "2")
                                                for f in os.listdir(os.path.join(work, f"nights-{m}")))))
        histories.append(("README's sample history", [f"{REPO}/examples/sample-history.json"]))
        histories.append(("the reports' fixture", [f"{REPO}/tests/reports/fixture_history.json"]))
        failed = False
        print(f"{'history':42} {'kind':10} {'names':>6} {'fed':>5} {'refused':>8}")
        for i, (name, files) in enumerate(histories):
            db = os.path.join(work, f"h{i}.db")
            r = gp(db, "import", *files)
            if r.returncode != 0:
                print(r.stderr)
                return 1
            h, counts, refused = check(db, work)
            sizes = {"run": len(h.runs), "commit": len(h.commits), "machine": len(h.machines),
                     "benchmark": len(h.benchmarks), "finding": len(h.findings)}
            for kind, n in sizes.items():
                bad = sum(1 for x in refused if x.startswith(kind + " "))
                print(f"{name:42} {kind:10} {n:>6} {counts.get(kind, 0):>5} {bad:>8}")
                if n == 0 and kind != "finding" and not (kind == "commit" and "first 3" in name):
                    print(f"FAIL: nothing of kind {kind} harvested from the {name}")
                    failed = True
            if not h.findings and "first 3 nights" not in name:
                print(f"FAIL: no detect finding harvested from the {name}")
                failed = True
            for line in refused:
                print("REFUSED: " + line)
            failed = failed or bool(refused)
        return 1 if failed else 0
    finally:
        if not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("work:", work)


if __name__ == "__main__":
    sys.exit(main())
