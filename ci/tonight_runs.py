#!/usr/bin/env python3
"""Tonight's own runs, per machine, for the nightly job's "new tonight".

    tonight_runs.py RUNS.json [--uuids-from FILE]... [--branch NAME]
    tonight_runs.py RUNS.json --expect-some
    tonight_runs.py --earliest-date FILE...     the UTC date of the files' earliest run ("" if unknown)

RUNS.json is `gpuperf runs --format json` output: the runs the job stored (`runs --run-key`), or every run
when --uuids-from names the gpuperf-results files the job imported (then only the runs with their uuids).
Prints one line per machine, tab-separated: machine id, the id of its first and of its last run tonight,
how many runs it stored tonight, and its hostname (last: it may be empty). nightly.sh then asks `detect --machine ID --before-run FIRST` and `--as-of LAST`: what
the history said before tonight's runs of that machine and what it says with them. Another machine's runs,
stored in between by a runner finishing at the same moment, are in neither answer's series, so each
nightly reports its own machine's findings and no other's. Exit 2 on unreadable input.

A run the job stored and the database does not hold is lost, and the night must not report "nothing new" on
what is left: with --branch, every run of that branch in the --uuids-from files must be in RUNS.json; with
--expect-some (the job measured, and `gpuperf run` succeeded), RUNS.json must hold a run. Else the lost runs
are named on stderr and the exit status is 3. Standard library only.
"""
import datetime
import json
import sys


def fail(message):
    print(f"tonight_runs: {message}", file=sys.stderr)
    sys.exit(2)


def read_json(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path}: not {what} ({e})")


def earliest_date(paths):
    """The UTC date of the earliest run in gpuperf-results files ("" when one has no readable started_at), for
    `gpuperf runs --since`: tonight's runs are then found among that day's and later runs, not among every run
    of the branch (a year of 16 runners is ~6,000 runs; listing them took 5 s of a nightly)."""
    dates = []
    for path in paths:
        doc = read_json(path, "a gpuperf-results file")
        try:
            for r in doc["runs"]:
                t = datetime.datetime.fromisoformat(str(r["started_at"]).replace("Z", "+00:00"))
                if t.tzinfo is None:
                    return ""
                dates.append(t.astimezone(datetime.timezone.utc).date().isoformat())
        except (KeyError, TypeError, ValueError):
            return ""
    return min(dates) if dates else ""


def main(argv):
    if argv[:1] == ["--earliest-date"]:
        print(earliest_date(argv[1:]))
        return 0
    files, uuid_files = [], []
    branch, expect_some = None, False
    i = 0
    while i < len(argv):
        if argv[i] in ("--uuids-from", "--branch"):
            if i + 1 >= len(argv):
                fail(f"{argv[i]} needs a value")
            if argv[i] == "--branch":
                branch = argv[i + 1]
            else:
                uuid_files.append(argv[i + 1])
            i += 2
        elif argv[i] == "--expect-some":
            expect_some = True
            i += 1
        else:
            files.append(argv[i])
            i += 1
    if len(files) != 1:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    runs = read_json(files[0], "`gpuperf runs --format json` output")
    if not isinstance(runs, list):
        fail(f"{files[0]}: not `gpuperf runs --format json` output (a list of runs)")
    if expect_some and not runs:
        print("tonight_runs: the database holds no run of tonight's, though the job stored one: it was lost",
              file=sys.stderr)
        return 3
    if uuid_files:
        wanted, of_branch = set(), {}
        for path in uuid_files:
            doc = read_json(path, "a gpuperf-results file")
            try:
                for r in doc["runs"]:
                    wanted.add(r["uuid"])
                    if branch is not None and r.get("branch", "") == branch:
                        of_branch[r["uuid"]] = path
            except (KeyError, TypeError) as e:
                fail(f"{path}: not a gpuperf-results file ({e})")
        found = {r.get("uuid") for r in runs}
        lost = sorted(u for u in of_branch if u not in found)
        if lost:
            for u in lost:
                print(f"tonight_runs: run {u} of {of_branch[u]} was imported, but the database does not hold it",
                      file=sys.stderr)
            return 3
        runs = [r for r in runs if r.get("uuid") in wanted]
    per_machine = {}
    for r in runs:
        try:
            m = r["machine"]
            first, last, count, host = per_machine.get(m["id"], (r["id"], r["id"], 0, m.get("hostname", "")))
            per_machine[m["id"]] = (min(first, r["id"]), max(last, r["id"]), count + 1, host)
        except (KeyError, TypeError) as e:
            fail(f"{files[0]}: a run without its id or machine ({e})")
    for machine_id in sorted(per_machine):
        first, last, count, host = per_machine[machine_id]
        print(f"{machine_id}\t{first}\t{last}\t{count}\t{host}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
