#!/usr/bin/env python3
"""Turns the export of bench/detect/sample_history_gpu.sh (history-raw.json) into examples/sample-history.json, the
sample history installed in share/gpuperf/examples/.

The runs were measured minutes apart on one GPU lease; the sample presents them as the nightly runs they
stand for: run k (in measured order) starts at 02:00 UTC on night k (from --first-night), keeping its measured
duration (finished_at - started_at). Nothing else changes: every sample, clock reading, counter, machine
field, commit and uuid is as measured and exported.

    sample_history.py RAW.json OUT.json [--first-night 2026-11-01]
"""
import argparse
import datetime as dt
import json


def parse(t):
    return dt.datetime.strptime(t.replace("Z", "+00:00"), "%Y-%m-%dT%H:%M:%S%z")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--first-night", default="2026-11-01")
    a = ap.parse_args()
    with open(a.raw, encoding="utf-8") as f:
        doc = json.load(f)
    runs = sorted(doc["runs"], key=lambda r: r["started_at"])
    first = dt.datetime.strptime(a.first_night, "%Y-%m-%d").replace(hour=2, tzinfo=dt.timezone.utc)
    for k, run in enumerate(runs):
        start = first + dt.timedelta(days=k)
        took = parse(run["finished_at"]) - parse(run["started_at"]) if run.get("finished_at") else dt.timedelta(0)
        run["started_at"] = start.strftime("%Y-%m-%dT%H:%M:%SZ")
        if run.get("finished_at"):
            run["finished_at"] = (start + took).strftime("%Y-%m-%dT%H:%M:%SZ")
    doc["runs"] = runs
    with open(a.out, "w", encoding="utf-8") as f:
        # One run per line, as `gpuperf export` writes it: a diff of the sample stays readable.
        f.write('{"format": "gpuperf-results", "version": 1, "runs": [\n')
        f.write(",\n".join(json.dumps(r, separators=(",", ":")) for r in runs))
        f.write("\n]}\n")
    print(f"{len(runs)} runs, nights {runs[0]['started_at'][:10]} to {runs[-1]['started_at'][:10]} -> {a.out}")


if __name__ == "__main__":
    main()
