#!/usr/bin/env python3
"""Latency and false alarms of `gpuperf detect` as a nightly job sees them (`detect_eval.py latency`).

A synthetic machine's history is replayed night by night, as ci/nightly.sh does: each night one run is
imported (`gpuperf import`) and `gpuperf detect --format json` runs on the history so far. Every benchmark
instance "lat/series[id=N]" is one duration series with known truth, 200 raw samples per run:
  - steps of 2%, 5%, 20% and 80%, up (slower) or down (1/(1+s): as much faster), at 4 or more run-to-run
    sigmas (cv 0.5%, 1%, 2% or 5%, those with step/cv >= 4), after 8..40 runs at the old level, all landing
    on the same night; the night after the last replayed night holds the 9th run at the new level;
  - no change, with run-to-run levels that are normal (cv 0.5%..5%), heavy-tailed (Student t with 3
    degrees of freedom, scaled so its median absolute deviation matches cv 0.5%..2%) or bimodal (two modes
    3% or 5% apart, the upper one on 10%, 30% or 50% of the runs, 0.2% or 0.5% jitter within a mode);
  - samples within a run: the run's level times 1 + |N(0, s)| (three times as wide on 5% of the samples: a
    slow tail) + N(0, s/2), s = 0.2%..1%.
Latency of a step: the nights from the step until a change placed within one run of it is first reported
(1 = the night the step lands). A false alarm: a change reported on a no-change series that the previous
night did not report within one run of it (the "new tonight" rule of ci/new_regressions.py, both
directions), counted over the nights on which the series has at least min-segment + 1 runs.
Targets: 20% and 80% steps on night 1 in >= 95% of series, 5% steps by night 2 (>= 95%),
false alarms <= 5 per 1000 nights. Python 3.11, standard library only.
"""
import json
import math
import os
import random
import subprocess
import tempfile
import time

STEPS = [0.02, 0.05, 0.20, 0.80]
CVS = [0.005, 0.01, 0.02, 0.05]
SAMPLES = 200
MAX_BEFORE = 40
AFTER = 8  # nights replayed from the step on
MIN_SEGMENT = 4


def student_t3(rng):
    """A Student t draw with 3 degrees of freedom: N / sqrt(chi2_3 / 3)."""
    chi2 = sum(rng.gauss(0, 1) ** 2 for _ in range(3))
    return rng.gauss(0, 1) / math.sqrt(chi2 / 3)


T3_MAD = 0.7649  # median of |t_3|: the scale makes 1.4826 x MAD equal cv


def level_noise(rng, family, p):
    """Relative deviation of one run's level from the series' level."""
    if family == "normal" or family == "step":
        return rng.gauss(0, p["cv"])
    if family == "heavy":
        return p["cv"] / (1.4826 * T3_MAD) * student_t3(rng)
    if family == "slow runs":
        slow = rng.uniform(0.15, 0.60) if rng.random() < 0.05 else 0.0
        return (1 + rng.gauss(0, p["cv"])) * (1 + slow) - 1
    # bimodal: which mode, then jitter within it
    return (p["gap"] if rng.random() < p["share"] else 0.0) + rng.gauss(0, p["cv"])


def make_series(rng, family, step=0.0):
    p = {"family": family, "step": step, "level": rng.choice([2.0e4, 5.4e4, 2.77e5, 1.2e6]),
         "within": rng.choice([0.002, 0.005, 0.01]), "before": rng.randint(8, MAX_BEFORE)}
    if family == "step":
        p["cv"] = rng.choice([cv for cv in CVS if step / cv >= 4 - 1e-9])
        p["up"] = rng.random() < 0.5
    elif family == "normal":
        p["cv"] = rng.choice(CVS)
    elif family in ("heavy", "slow runs"):
        p["cv"] = rng.choice(CVS[:3])
    else:
        p.update(cv=rng.choice([0.002, 0.005]), gap=rng.choice([0.03, 0.05]), share=rng.choice([0.1, 0.3, 0.5]))
    return p


def run_samples(rng, level, within):
    out = []
    for _ in range(SAMPLES):
        tail = 3 if rng.random() < 0.05 else 1
        out.append(round(level * (1 + abs(rng.gauss(0, within)) * tail + rng.gauss(0, within / 2)), 1))
    return out


def build(seed, per_step, per_family):
    """The series and one interchange document per night."""
    rng = random.Random(seed)
    series = [make_series(rng, "step", s) for s in STEPS for _ in range(per_step)]
    series += [make_series(rng, f) for f in ("normal", "heavy", "bimodal", "slow runs") for _ in range(per_family)]
    step_night = MAX_BEFORE  # night index (0-based) of the first run at the new level
    nights = step_night + AFTER
    docs = []
    for night in range(nights):
        results = []
        for sid, p in enumerate(series):
            if night < step_night - p["before"]:
                continue  # this series starts later
            level = p["level"] * (1 + level_noise(rng, p["family"], p))
            if p["family"] == "step" and night >= step_night:
                level *= (1 + p["step"]) if p["up"] else 1 / (1 + p["step"])
            results.append({"benchmark": "lat/series", "params": {"id": sid}, "status": "ok",
                            "metrics": {"duration": {"unit": "ns", "samples": run_samples(rng, level, p["within"])}}})
        day = time.strftime("%Y-%m-%dT02:00:00Z", time.gmtime(1767225600 + 86400 * night))
        docs.append({"format": "gpuperf-results", "version": 1, "runs": [{
            "uuid": f"1a7e0000-0000-4000-8000-{seed:04d}{night:08d}", "started_at": day,
            "commit": f"{seed:04d}{night:04d}" + "ab" * 16, "branch": "main", "label": "nightly",
            "machine": {"hostname": "latency-host", "gpu_name": "Synthetic GPU", "gpu_uuid": "GPU-latency"},
            "results": results}]})
    return series, docs, step_night


def replay(gpuperf, docs, detect_args):
    """detect's changes after each night: a list (per night) of {series id: [run index of each change]}."""
    out = []
    with tempfile.TemporaryDirectory(prefix="detect-latency-") as tmp:
        db = os.path.join(tmp, "history.db")
        for night, doc in enumerate(docs):
            path = os.path.join(tmp, f"night-{night}.json")
            with open(path, "w") as f:
                json.dump(doc, f)
            subprocess.run([gpuperf, "--db", db, "-q", "import", path], check=True)
            r = subprocess.run([gpuperf, "--db", db, "detect", "--branch", "main", "--format", "json"] + detect_args,
                               check=True, capture_output=True, text=True)
            found = {}
            for c in json.loads(r.stdout)["changes"]:
                night_of = int(c["run"].split("-")[-1][4:])
                found.setdefault(int(c["params"]["id"]), []).append(
                    (night_of, bool(c.get("unconfirmed")), c["kind"] == "regression"))
            out.append(found)
    return out


def near(changes, night):
    return [c for c in changes if abs(c[0] - night) <= 1]


def score(series, per_night, step_night):
    lat = {}       # step -> list of (cv, latency in nights or None)
    withdrawn = {}  # step -> series whose flag vanished on a later replayed night
    alarms = {}    # family -> [false alarms, of them regressions, of them unconfirmed, nights]
    for sid, p in enumerate(series):
        start = step_night - p["before"]
        if p["family"] == "step":
            first, gone = None, False
            for night in range(step_night, len(per_night)):
                hit = near(per_night[night].get(sid, []), step_night)
                if hit and first is None:
                    first = night - step_night + 1
                elif not hit and first is not None:
                    gone = True
            lat.setdefault(p["step"], []).append((p["cv"], first))
            withdrawn[p["step"]] = withdrawn.get(p["step"], 0) + (1 if gone else 0)
            continue
        key = family_label(p)
        fa, nights = alarms.setdefault(key, [0, 0, 0, 0]), 0
        for night in range(start + MIN_SEGMENT, len(per_night)):
            nights += 1
            before = per_night[night - 1].get(sid, []) if night > 0 else []
            for c in per_night[night].get(sid, []):
                if not near(before, c[0]):
                    fa[0] += 1
                    fa[1] += 1 if c[2] else 0
                    fa[2] += 1 if c[1] else 0
        fa[3] += nights
    return lat, withdrawn, alarms


def family_label(p):
    if p["family"] == "bimodal":
        return f"bimodal, upper mode on {p['share']:.0%} of runs"
    return {"normal": "normal", "heavy": "heavy-tailed (Student t, 3 d.f.)",
            "slow runs": "slow runs: 5% of runs 15-60% slow"}[p["family"]]


def print_tables(series, lat, withdrawn, alarms):
    verdicts = []
    print(f"{'step (>= 4 sigma, normal run-to-run noise)':<44} {'series':>6} {'night 1':>8} {'by 2':>6} "
          f"{'by 4':>6} {'by 8':>6} {'never':>6} {'withdrawn':>9}")

    def line(name, got, gone):
        n = len(got)
        share = [sum(1 for _, x in got if x is not None and x <= k) / n for k in (1, 2, 4, 8)]
        never = sum(1 for _, x in got if x is None)
        print(f"{name:<44} {n:>6} {share[0]:>8.1%} {share[1]:>6.1%} {share[2]:>6.1%} {share[3]:>6.1%} "
              f"{never:>6} {gone:>9}")
        return share

    for step in STEPS:
        share = line(f"{step:.0%}", lat[step], withdrawn[step])
        cvs = sorted({cv for cv, _ in lat[step]})
        if len(cvs) > 1:
            for cv in cvs:
                line(f"  cv {cv:.1%} ({step / cv:.0f} sigma)", [g for g in lat[step] if g[0] == cv], "")
        if step >= 0.2:
            verdicts.append((f"{step:.0%} steps on night 1 in >= 95%", share[0] >= 0.95))
        if step == 0.05:
            verdicts.append(("5% steps by night 2 in >= 95%", share[1] >= 0.95))
    print()
    print(f"{'no change: false alarms':<44} {'series':>6} {'nights':>7} {'alarms':>6} {'regr.':>6} "
          f"{'unconf.':>7} {'per 1000 nights':>16} {'regr. per 1000':>15}")

    def row(name, n_series, fa):
        print(f"{name:<44} {n_series:>6} {fa[3]:>7} {fa[0]:>6} {fa[1]:>6} {fa[2]:>7} "
              f"{1000 * fa[0] / max(fa[3], 1):>16.2f} {1000 * fa[1] / max(fa[3], 1):>15.2f}")

    labels = sorted(alarms, key=lambda k: ("slow" in k, "bimodal" in k, "heavy" in k, k))
    total = [0, 0, 0, 0]
    for key in labels:
        if "slow" in key:
            row("all of the above", sum(1 for p in series if p["family"] in ("normal", "heavy", "bimodal")), total)
        else:
            total = [t + a for t, a in zip(total, alarms[key])]
        row(key, sum(1 for p in series if p["family"] != "step" and family_label(p) == key), alarms[key])
    verdicts.append(("false alarms <= 5 per 1000 nights (normal, heavy-tailed, bimodal)",
                     1000 * total[0] / max(total[3], 1) <= 5))
    print()
    for what, met in verdicts:
        print(f"target: {what}: {'met' if met else 'MISSED'}")
    return all(met for _, met in verdicts)


def run_latency(args):
    series, docs, step_night = build(args.seed, args.per_step, args.per_family)
    t0 = time.time()
    per_night = replay(args.gpuperf, docs, args.detect_arg)
    print(f"{len(series)} series, {len(docs)} nights replayed one by one ({SAMPLES} samples per run), seed "
          f"{args.seed}, {time.time() - t0:.0f} s")
    print()
    return print_tables(series, *score(series, per_night, step_night))
