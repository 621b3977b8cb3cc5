"""What bench/store/nightly_load.py's nightlies said and stored: read per job, counted, checked and printed as a table.

A job is one runner's nightly of one night: its exit code, its findings (artifacts/new-tonight.json, or
bisect-list.tsv from a nightly.sh that writes no new-tonight.json: instance and metric only, the runner's
own machine) and the seconds it took to store its run (the `store` step of artifacts/steps.tsv, else the
wrapper's timing of `gpuperf import`). Standard library only.
"""
import json
import os
import re
import subprocess

STEP_BENCHMARK = "suite/k05"
STEP_METRICS = ("duration", "gld_efficiency")


def _findings(art):
    path = os.path.join(art, "new-tonight.json")
    if os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as f:
                return list(json.load(f)["findings"]), "new-tonight.json"
        except (OSError, ValueError, KeyError, TypeError) as e:
            return [{"unreadable": f"{path}: {e}"}], "new-tonight.json"
    path = os.path.join(art, "bisect-list.tsv")
    found = []
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = line.rstrip("\n").split("\t")
                if len(fields) >= 2:
                    # "^suite/k05\[n=1048576\]$" -> suite/k05
                    found.append({"benchmark": re.sub(r"\\\[.*$", "", fields[0].lstrip("^")), "metric": fields[1],
                                  "machine": None})
    return found, "bisect-list.tsv"


def _store_seconds(art):
    path = os.path.join(art, "steps.tsv")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = line.split("\t")
                if len(fields) == 2 and fields[0] == "store":
                    return float(fields[1]), "store step (steps.tsv)"
    path = os.path.join(art, "import-seconds.txt")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            times = [float(x) for x in f.read().split()]
        if times:
            return sum(times), "gpuperf import (timed by a wrapper)"
    return None, None


def _steps(art):
    """{step: seconds} from artifacts/steps.tsv, empty without it."""
    steps = {}
    path = os.path.join(art, "steps.tsv")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                fields = line.split("\t")
                if len(fields) == 2:
                    steps[fields[0]] = float(fields[1])
    return steps


def job_result(art, rc, wall):
    findings, source = _findings(art)
    store, store_source = _store_seconds(art)
    tail = ""
    if rc not in (0, 1):
        with open(os.path.join(art, "nightly.log"), encoding="utf-8", errors="replace") as f:
            lines = [x.strip() for x in f if x.strip()]
        tail = " | ".join(lines[-3:])
    return {"rc": rc, "wall": wall, "findings": findings, "findings_from": source, "store": store,
            "store_from": store_source, "steps": _steps(art), "log_tail": tail}


def listed_uuids(gpuperf, db):
    """The uuids `gpuperf runs --format json` lists, in order (a uuid stored twice appears twice)."""
    p = subprocess.run([gpuperf, "--db", db, "runs", "--format", "json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"gpuperf runs --format json on {db} exited {p.returncode}: {p.stderr}")
    return [r["uuid"] for r in json.loads(p.stdout)]


def _is_step(finding, job, a):
    machine = finding.get("machine")
    on_step_machine = machine == f"GPU-runner-{a.step_runner:02d}" or (machine is None and job["runner"] == a.step_runner)
    return on_step_machine and finding.get("benchmark") == STEP_BENCHMARK and finding.get("metric") in STEP_METRICS


def _percentile(values, q):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def tally(r, a):
    """Counts and the failed checks of one history (r from nightly_load.run_postgres or run_sqlite)."""
    jobs = r["jobs"]
    expected = {f"10ad{ru:04x}-{n:04x}-4000-8000-{ru * 10000 + n:012d}"
                for ru in range(1, a.runners + 1) for n in range(1, a.nights + 1)}
    listed = r["listed"]
    t = {"expected": len(expected), "stored": len(set(listed) & expected), "duplicates": len(listed) - len(set(listed)),
         "lost": len(expected - set(listed)), "unexpected": len(set(listed) - expected),
         "failed": [j for j in jobs if j["rc"] not in (0, 1)]}
    if "server_rows" in r:  # the server's own count, beside what gpuperf lists
        t["duplicates"] = max(t["duplicates"], r["server_rows"] - r["server_distinct"])
    t["step_reports"] = sorted((j["runner"], j["night"]) for j in jobs if any(_is_step(f, j, a) for f in j["findings"]))
    t["false_alarms"] = [(j["runner"], j["night"], f) for j in jobs for f in j["findings"] if not _is_step(f, j, a)]
    t["false_alarms"] += [(j["runner"], j["night"], {"exit 1 without a finding": True}) for j in jobs
                          if j["rc"] == 1 and not j["findings"]]
    t["silent_exit"] = [(j["runner"], j["night"]) for j in jobs if j["rc"] == 0 and j["findings"]]
    stores = [j["store"] for j in jobs if j["store"] is not None]
    t["store_p50"], t["store_p95"] = _percentile(stores, 0.5), _percentile(stores, 0.95)
    t["store_from"] = sorted({j["store_from"] for j in jobs if j["store_from"]})
    t["job_p50"], t["job_p95"] = _percentile([j["wall"] for j in jobs], 0.5), _percentile([j["wall"] for j in jobs], 0.95)
    t["findings_from"] = sorted({j["findings_from"] for j in jobs})

    fail = []
    name = r["name"]
    if t["lost"] or t["duplicates"] or t["unexpected"]:
        fail.append(f"{name}: {t['lost']} runs lost, {t['duplicates']} stored twice, {t['unexpected']} unexpected")
    if t["failed"]:
        fail.append(f"{name}: {len(t['failed'])} nightlies failed (exit not 0 or 1), e.g. runner "
                    f"{t['failed'][0]['runner']} night {t['failed'][0]['night']}: exit {t['failed'][0]['rc']}: "
                    f"{t['failed'][0]['log_tail']}")
    if t["step_reports"] != [(a.step_runner, a.step_night)]:
        fail.append(f"{name}: the step was reported by (runner, night) {t['step_reports'] or 'nobody'}, expected "
                    f"only ({a.step_runner}, {a.step_night})")
    if t["false_alarms"]:
        fail.append(f"{name}: {len(t['false_alarms'])} false alarms")
    if t["silent_exit"]:
        fail.append(f"{name}: {len(t['silent_exit'])} nightlies reported findings but exited 0, e.g. "
                    f"{t['silent_exit'][0]}")
    return t, fail


def _seconds(x):
    return "-" if x is None else f"{x:.2f}"


def _describe(finding):
    if "benchmark" not in finding:
        return ", ".join(finding)
    return (f"{finding.get('machine') or '(own machine)'} {finding['benchmark']} {finding.get('metric')} "
            f"{finding.get('kind', '')}".rstrip())


def print_table(results, a, wall):
    """Prints one column per history; returns the failed checks."""
    tallies, failures = [], []
    for r in results:
        t, fail = tally(r, a)
        tallies.append(t)
        failures += fail
    rows = [("runs stored / expected", lambda r, t: f"{t['stored']} / {t['expected']}"),
            ("duplicates (uuids stored twice)", lambda r, t: str(t["duplicates"])),
            ("lost", lambda r, t: str(t["lost"])),
            ("nightlies failed (exit not 0/1)", lambda r, t: str(len(t["failed"]))),
            ("store a run p50 / p95 (s)", lambda r, t: f"{_seconds(t['store_p50'])} / {_seconds(t['store_p95'])}"),
            ("one nightly p50 / p95 (s)", lambda r, t: f"{_seconds(t['job_p50'])} / {_seconds(t['job_p95'])}"),
            ("nightly steps p95: detect / tonight (s)", lambda r, t: " / ".join(
                _seconds(_percentile([j["steps"][k] for j in r["jobs"] if k in j["steps"]], 0.95))
                for k in ("detect", "tonight"))),
            ("a night, all runners: p50 / max (s)", lambda r, t: f"{_seconds(_percentile(r['night_walls'], 0.5))} / "
             f"{_seconds(max(r['night_walls']))}"),
            ("planted step reported by (runner/night)",
             lambda r, t: ", ".join(f"r{x}/n{y}" for x, y in t["step_reports"]) or "nobody"),
            ("false alarms elsewhere", lambda r, t: str(len(t["false_alarms"]))),
            ("all nights, wall (s)", lambda r, t: f"{r['wall']:.0f}"
             + (f" + merge {r['merge_wall']:.1f}" if "merge_wall" in r else ""))]
    print(f"\nnightly_load: {a.runners} runners x {a.nights} nights, all runners of a night at once; step planted on "
          f"runner {a.step_runner} from night {a.step_night} ({STEP_BENCHMARK} duration +30%, gld_efficiency 100% -> "
          f"50%); {a.samples} samples per instance; {os.cpu_count()} cores")
    names = [r["name"] + (f" {r['server']}" if "server" in r else "") for r in results]
    width = max(24, *(len(n) + 2 for n in names))
    print(f"{'':<42}" + "".join(f"{n:>{width}}" for n in names))
    for label, cell in rows:
        print(f"{label:<42}" + "".join(f"{cell(r, t):>{width}}" for r, t in zip(results, tallies)))
    print(f"expected: {a.runners * a.nights} runs, the step reported by r{a.step_runner}/n{a.step_night} only, "
          f"0 false alarms; total wall {wall:.0f} s")
    for r, t in zip(results, tallies):
        print(f"{r['name']}: findings read from {', '.join(t['findings_from'])}; store time from "
              f"{', '.join(t['store_from']) or 'nothing'}")
        for runner, night, finding in t["false_alarms"][:20]:
            print(f"  false alarm: runner {runner} night {night}: {_describe(finding)}")
        if len(t["false_alarms"]) > 20:
            print(f"  ... and {len(t['false_alarms']) - 20} more")
    return failures
