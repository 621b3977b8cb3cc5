#!/usr/bin/env python3
"""Night one and night two of `gpuperf detect` on nightly histories (`detect_eval.py nightly`).

Each seed makes one synthetic machine with NIGHTS nightly runs of main; every benchmark instance
"night/series[id=N]" is one duration series, 100 raw samples per run, of one of four kinds:
  - step: a single step of 3% to 15% (uniform), up or down, that is 4 to 10 run-to-run sigmas (uniform; the
    series' cv is the step over the sigmas), landing on a night between FIRST_STEP and LAST_STEP;
  - flat: no change, normal run-to-run noise of cv 0.5%, 1% or 2%;
  - one-night outlier: flat (cv 0.5%..2%) with a single night +30% (a throttled GPU, a noisy neighbour);
  - two-mode: no change, but each night the kernel lands in one of two modes 2% to 5% apart (the gap drawn
    per series; the mode drawn each night, 50/50), with 0.2% to 0.5% jitter within a mode.
The history is imported once; `gpuperf detect --as-of RUN --format json` then answers as each night's nightly
job would have, for every night from EVAL_FROM on. Scored:
  - night-one recall: steps flagged (a change placed within one run of the step) on the night they land;
  - night-two recall: steps flagged on the next night;
  - newest-run false alarms: on flat and two-mode series, nights on which a change starting at the newest run
    is reported, per series-night;
  - outlier nights: flagged on their night, and withdrawn the next night (no change within one run of the
    outlier then);
  - full history (the last night): precision and recall of every reported change against the steps.
Targets: night one >= 92%, night two >= 97%, newest-run false alarms <= 0.15% per series-night on flat and on
two-mode series, full-history precision >= 0.98. --history-nights N (> 60) puts the same series' steps and
evaluated nights after N - 60 more nights of their own level, so that `--detect-arg=--last
--detect-arg=90` (the nightly's window, ci/nightly.sh --window) can be set against the whole history.
Python 3.11, standard library only.
"""
import json
import os
import random
import subprocess
import tempfile
import time

NIGHTS = 60
FIRST_STEP, LAST_STEP = 25, 55
EVAL_FROM = 20
SAMPLES = 100
KINDS = (("step", 200), ("flat", 100), ("outlier", 50), ("two-mode", 100))


def make_series(rng, kind):
    p = {"kind": kind, "level": rng.choice([2.0e4, 5.4e4, 2.77e5, 1.2e6]), "within": rng.choice([0.002, 0.005])}
    if kind == "step":
        p["step"] = rng.uniform(0.03, 0.15)
        p["sigmas"] = rng.uniform(4, 10)
        p["cv"] = p["step"] / p["sigmas"]
        p["up"] = rng.random() < 0.5
        p["at"] = rng.randint(FIRST_STEP, LAST_STEP)
    elif kind in ("flat", "outlier"):
        p["cv"] = rng.choice([0.005, 0.01, 0.02])
        if kind == "outlier":
            p["at"] = rng.randint(FIRST_STEP, LAST_STEP)
    else:
        p["cv"] = rng.uniform(0.002, 0.005)
        p["gap"] = rng.uniform(0.02, 0.05)
    return p


def night_level(rng, p, night):
    level = p["level"] * (1 + rng.gauss(0, p["cv"]))
    if p["kind"] == "step" and night >= p["at"]:
        level *= (1 + p["step"]) if p["up"] else 1 / (1 + p["step"])
    elif p["kind"] == "outlier" and night == p["at"]:
        level *= 1.30
    elif p["kind"] == "two-mode" and rng.random() < 0.5:
        level *= 1 + p["gap"]
    return level


def samples(rng, level, within):
    out = []
    for _ in range(SAMPLES):
        tail = 3 if rng.random() < 0.05 else 1
        out.append(round(level * (1 + abs(rng.gauss(0, within)) * tail + rng.gauss(0, within / 2)), 1))
    return out


def uuid_of(seed, night):
    return f"2b7e0000-0000-4000-8000-{seed:04d}{night:08d}"


def build(seed):
    rng = random.Random(seed)
    series = [make_series(rng, kind) for kind, n in KINDS for _ in range(n)]
    runs = []
    for night in range(NIGHTS):
        results = [{"benchmark": "night/series", "params": {"id": sid}, "status": "ok",
                    "metrics": {"duration": {"unit": "ns",
                                             "samples": samples(rng, night_level(rng, p, night), p["within"])}}}
                   for sid, p in enumerate(series)]
        runs.append({"uuid": uuid_of(seed, night),
                     "started_at": time.strftime("%Y-%m-%dT02:00:00Z", time.gmtime(1767225600 + 86400 * night)),
                     "commit": f"{seed:04d}{night:04d}" + "cd" * 16, "branch": "main", "label": "nightly",
                     "machine": {"hostname": "nightly-host", "gpu_name": "Synthetic GPU", "gpu_uuid": "GPU-nightly"},
                     "results": results})
    return series, {"format": "gpuperf-results", "version": 1, "runs": runs}


def detect_nights(gpuperf, doc, seed, detect_args):
    """{night: {series id: [night of each change's first run]}} for nights EVAL_FROM .. NIGHTS - 1."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="detect-nightly-") as tmp:
        db, path = os.path.join(tmp, "history.db"), os.path.join(tmp, "history.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        subprocess.run([gpuperf, "--db", db, "-q", "import", path], check=True)
        for night in range(EVAL_FROM, NIGHTS):
            r = subprocess.run([gpuperf, "--db", db, "detect", "--branch", "main", "--format", "json", "--as-of",
                                uuid_of(seed, night)] + detect_args, check=True, capture_output=True, text=True)
            found = {}
            for c in json.loads(r.stdout)["changes"]:
                found.setdefault(int(c["params"]["id"]), []).append(int(c["run"].split("-")[-1][4:]))
            out[night] = found
    return out


def near(changes, night):
    return any(abs(c - night) <= 1 for c in changes)


def score(series, per_night, tally):
    last = NIGHTS - 1
    for sid, p in enumerate(series):
        kind = p["kind"]
        if kind == "step":
            tally["steps"] += 1
            tally["night1"] += near(per_night[p["at"]].get(sid, []), p["at"])
            tally["night2"] += near(per_night[p["at"] + 1].get(sid, []), p["at"]) if p["at"] + 1 < NIGHTS else 1
        if kind == "outlier":
            tally["outliers"] += 1
            tally["outlier_flagged"] += near(per_night[p["at"]].get(sid, []), p["at"])
            tally["outlier_withdrawn"] += not near(per_night[p["at"] + 1].get(sid, []), p["at"])
        if kind in ("flat", "two-mode"):
            fa = tally.setdefault(kind, [0, 0])
            for night in range(EVAL_FROM, NIGHTS):
                fa[0] += night in per_night[night].get(sid, [])
                fa[1] += 1
        for c in per_night[last].get(sid, []):
            tally["reported"] += 1
            tally["true"] += kind == "step" and abs(c - p["at"]) <= 1
        tally["found"] += kind == "step" and near(per_night[last].get(sid, []), p["at"])


def lengthen(nights):
    """A history of `nights` nights (>= 60): the same steps, outliers and evaluated nights, moved to its end,
    after nights - 60 more of the series' own level (a year-old history asks what a window of it needs)."""
    global NIGHTS, FIRST_STEP, LAST_STEP, EVAL_FROM
    if nights < NIGHTS:
        raise SystemExit(f"detect_nightly: --history-nights {nights}: at least {NIGHTS}")
    extra = nights - NIGHTS
    NIGHTS, FIRST_STEP, LAST_STEP, EVAL_FROM = nights, FIRST_STEP + extra, LAST_STEP + extra, EVAL_FROM + extra


def run_nightly(args):
    if args.history_nights != NIGHTS:
        lengthen(args.history_nights)
    seeds = list(range(args.seed, args.seed + args.seeds))
    tally = {k: 0 for k in ("steps", "night1", "night2", "outliers", "outlier_flagged", "outlier_withdrawn",
                            "reported", "true", "found")}
    t0 = time.time()
    for seed in seeds:
        series, doc = build(seed)
        score(series, detect_nights(args.gpuperf, doc, seed, args.detect_arg), tally)
    print(f"{len(seeds)} seeds x ({', '.join(f'{n} {k}' for k, n in KINDS)}) series, {NIGHTS} nights each; "
          f"detect as of nights {EVAL_FROM}..{NIGHTS - 1} ({time.time() - t0:.0f} s)"
          + (f"; detect {' '.join(args.detect_arg)}" if args.detect_arg else ""))
    print()
    s = tally["steps"]
    fa_flat, fa_two = tally.get("flat", [0, 1]), tally.get("two-mode", [0, 1])
    precision = tally["true"] / max(tally["reported"], 1)
    rows = [
        ("night-one recall (steps 3-15%, 4-10 sigma)", f"{tally['night1'] / s:.1%}", ">= 92%",
         tally["night1"] / s >= 0.92),
        ("night-two recall", f"{tally['night2'] / s:.1%}", ">= 97%", tally["night2"] / s >= 0.97),
        ("newest-run false alarms, flat (per series-night)", f"{fa_flat[0] / fa_flat[1]:.2%} ({fa_flat[0]})",
         "<= 0.15%", fa_flat[0] / fa_flat[1] <= 0.0015),
        ("newest-run false alarms, two-mode", f"{fa_two[0] / fa_two[1]:.2%} ({fa_two[0]})", "<= 0.15%",
         fa_two[0] / fa_two[1] <= 0.0015),
        ("full-history precision", f"{precision:.3f} ({tally['true']}/{tally['reported']})", ">= 0.98",
         precision >= 0.98),
        ("full-history recall", f"{tally['found'] / s:.3f}", "", True),
        ("+30% one-night outliers flagged on their night", f"{tally['outlier_flagged'] / tally['outliers']:.1%}", "",
         True),
        ("  and withdrawn the next night", f"{tally['outlier_withdrawn'] / tally['outliers']:.1%}", "", True),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"{'':<{width}}  {'value':>16}  target")
    for name, value, target, met in rows:
        print(f"{name:<{width}}  {value:>16}  {target}{'' if not target else (' met' if met else ' MISSED')}")
    return all(met for *_, met in rows)
