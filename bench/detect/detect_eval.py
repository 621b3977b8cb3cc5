#!/usr/bin/env python3
"""Evaluation harness of `gpuperf detect`: precision, recall and placement over synthetic series.

    python3 bench/detect/detect_eval.py --gpuperf build/cli/gpuperf            # generate, import, detect, score
    python3 bench/detect/detect_eval.py generate --out eval.json --truth truth.json
    python3 bench/detect/detect_eval.py score --truth truth.json --changes changes.json
    python3 bench/detect/detect_eval.py --gpuperf build/cli/gpuperf aa       # A/A and A/B of `gpuperf compare`
    python3 bench/detect/detect_eval.py --gpuperf build/cli/gpuperf latency  # nights until a step is flagged
    python3 bench/detect/detect_eval.py --gpuperf build/cli/gpuperf nightly  # night one/two, two-mode kernels

The generator writes one run per night in the interchange format (the runs of one synthetic machine on
branch main); each benchmark instance "eval/series[id=N]" is one duration series with known truth:
  - run-to-run noise: coefficient of variation 0.5%, 1%, 2% or 5% of the run's median,
  - a single step of 2%, 5%, 10%, 20% or 50%, up or down, with 8..40 runs before it and 4..20 after it,
  - or no change at all,
  - a third of the series with outliers (5% of runs 15%..60% slow: a noisy neighbour, a throttled GPU),
  - series too short to judge (3..7 runs).
Each run stores 5 raw samples whose median is the run's point (the detector's input), so the file has the
shape of real data. The file is imported with `gpuperf import`, `gpuperf detect --format json` runs on it,
and the scorer matches detections to the truth.

A detection matches a true step when it is placed within one run of it; every other detection is a false
positive. Targets: for steps >= 4 noise sigmas with >= 8 runs on each side, recall >= 0.95 and
precision >= 0.95; fewer than 2% of the series without a change raise one. Exit status 1 when a target is
missed. `latency` replays a history night by night as the nightly job would (bench/detect/detect_latency.py
says how). Python 3.11, standard library only.
"""
import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time

CVS = [0.005, 0.01, 0.02, 0.05]
STEPS = [0.02, 0.05, 0.10, 0.20, 0.50]
SAMPLES_PER_RUN = 5
WITHIN_RUN_CV = 0.002  # spread of the samples inside one run, around the run's level


def make_series(rng, kind):
    """One series: (points, truth) with truth = {"kind", "cv", "step", "at", "before", "after", "outliers"}."""
    cv = rng.choice(CVS)
    outliers = rng.random() < 1 / 3
    level = rng.choice([2.0e4, 1.5e5, 2.77e5, 1.2e6])  # ns
    if kind == "step":
        step = rng.choice(STEPS) * rng.choice([1, -1])
        before = rng.randint(8, 40)
        after = rng.randint(4, 20)
    elif kind == "none":
        step, before, after = 0.0, rng.randint(16, 60), 0
    else:  # too short to judge; half of them with a large step
        n = rng.randint(3, 7)
        step = rng.choice([0.0, 0.3])
        before, after = (n // 2, n - n // 2) if step else (n, 0)
    points = []
    for i in range(before + after):
        mult = 1 + step if i >= before else 1.0
        point = level * mult * (1 + rng.gauss(0, cv))
        if outliers and rng.random() < 0.05:
            point *= 1 + rng.uniform(0.15, 0.60)
        points.append(point)
    truth = {"kind": kind, "cv": cv, "step": step, "at": before if after else None, "before": before,
             "after": after, "outliers": outliers, "length": before + after}
    return points, truth


def generate(seed, n_step, n_none, n_short):
    rng = random.Random(seed)
    series = []
    for kind, count in (("step", n_step), ("none", n_none), ("short", n_short)):
        for _ in range(count):
            series.append(make_series(rng, kind))
    n_runs = max(len(p) for p, _ in series)
    # Series end at the newest run (like benchmarks added over time); run r holds the series whose
    # span covers it.
    runs = []
    for r in range(n_runs):
        sha = hashlib.sha1(f"eval-commit-{seed}-{r}".encode()).hexdigest()
        day = time.strftime("%Y-%m-%dT02:00:00Z", time.gmtime(1767225600 + 86400 * r))  # from 2026-01-01
        results = []
        for sid, (points, _) in enumerate(series):
            start = n_runs - len(points)
            if r < start:
                continue
            level = points[r - start]
            samples = [round(level * (1 + rng.gauss(0, WITHIN_RUN_CV)), 1) for _ in range(SAMPLES_PER_RUN - 1)]
            samples.append(round(level, 1))  # an odd count around `level`: the median stays close to it
            results.append({"benchmark": "eval/series", "params": {"id": sid}, "status": "ok",
                            "metrics": {"duration": {"unit": "ns", "samples": samples}}})
        runs.append({"uuid": f"00000000-e7a1-{seed % 65536:04x}-{r % 65536:04x}-{sha[:12]}", "started_at": day, "commit": sha,
                     "branch": "main", "label": "detect-eval",
                     "machine": {"hostname": "eval-host", "gpu_name": "Synthetic GPU", "gpu_uuid": "GPU-eval-0000"},
                     "results": results})
    truth = {"runs": [r["uuid"] for r in runs], "series": []}
    for sid, (points, t) in enumerate(series):
        t["id"] = sid
        t["start_run"] = n_runs - len(points)
        t["points"] = points
        truth["series"].append(t)
    doc = {"format": "gpuperf-results", "version": 1, "runs": runs}
    return doc, truth


# ---------------------------------------------------------------------------------------------- A/A, A/B

AA_INSTANCES = 30


def real_shaped_timing(rng, level, spread, n, clock=1980.0):
    """Durations (ns) as a GPU gives them: a normal core, a slow tail, SM clock readings per sample."""
    samples, clocks = [], []
    for _ in range(n):
        tail = 3 if rng.random() < 0.05 else 1
        samples.append(round(level * (1 + abs(rng.gauss(0, spread)) * tail + rng.gauss(0, spread / 2)), 1))
        clocks.append(clock - 15 if rng.random() < 0.1 else clock)
    return {"unit": "ns", "samples": samples, "sm_clock_mhz": clocks}


def aa_runs(seed, pairs):
    """`pairs` pairs of runs of one binary on one GPU, per scenario, plus their known truth."""
    rng = random.Random(seed)
    instances = []
    for i in range(AA_INSTANCES):
        instances.append({"id": i, "level": rng.choice([8e3, 4.2e4, 1.6e5, 2.8e5, 1.1e6, 9.5e6]),
                          "spread": rng.choice([0.002, 0.005, 0.01, 0.02]), "n": rng.choice([10, 40, 200])})
    scenarios = [
        # (name, candidate factor, candidate clock, duration scale from the clock)
        ("A/A: rerun of the same binary", 1.0, 1980.0, 1.0),
        ("A/A: rerun on a throttled GPU (1755 MHz)", 1.0, 1755.0, 1980.0 / 1755.0),
        ("A/B: candidate 5% slower", 1.05, 1980.0, 1.0),
        ("A/B: candidate 10% faster", 0.90, 1980.0, 1.0),
    ]
    runs, plan = [], []
    k = 0
    for name, factor, clock, clock_scale in scenarios:
        for p in range(pairs):
            pair = []
            for side in ("base", "cand"):
                results = []
                for inst in instances:
                    # Run-to-run jitter of the level (0.3%): what a rerun on the same GPU shows.
                    level = inst["level"] * (1 + rng.gauss(0, 0.003))
                    c = 1980.0
                    if side == "cand":
                        level *= factor * clock_scale
                        c = clock
                    t = real_shaped_timing(rng, level, inst["spread"], inst["n"], c)
                    results.append({"benchmark": "aa/kernel", "params": {"id": inst["id"]}, "status": "ok",
                                    "metrics": {"duration": t}})
                uuid = f"aa{k:06d}-0000-4000-8000-{seed:012d}"
                k += 1
                day = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1767225600 + 3600 * k))
                # Bases on main (their history is what compare --history reads), candidates on a branch.
                branch = "main" if side == "base" else f"candidate-{k}"
                runs.append({"uuid": uuid, "started_at": day, "commit": hashlib.sha1(uuid.encode()).hexdigest(),
                             "branch": branch, "label": side, "results": results,
                             "machine": {"hostname": "aa-host", "gpu_name": "Synthetic H200", "gpu_uuid": "GPU-aa"}})
                pair.append(uuid)
            plan.append((name, pair[0], pair[1]))
    return {"format": "gpuperf-results", "version": 1, "runs": runs}, plan, [s[0] for s in scenarios]


def run_aa(args):
    doc, plan, scenarios = aa_runs(args.seed, args.pairs)
    counts = {s: {} for s in scenarios}
    with tempfile.TemporaryDirectory(prefix="compare-aa-") as tmp:
        data, db = os.path.join(tmp, "aa.json"), os.path.join(tmp, "aa.db")
        with open(data, "w") as f:
            json.dump(doc, f)
        subprocess.run([args.gpuperf, "--db", db, "-q", "import", data], check=True)
        exit_codes = {s: {} for s in scenarios}
        for name, base, cand in plan:
            out = subprocess.run([args.gpuperf, "--db", db, "compare", base, cand, "--format", "json"],
                                 capture_output=True, text=True)
            exit_codes[name][out.returncode] = exit_codes[name].get(out.returncode, 0) + 1
            for row in json.loads(out.stdout)["rows"]:
                counts[name][row["verdict"]] = counts[name].get(row["verdict"], 0) + 1
    print(f"gpuperf compare on real-shaped samples: {AA_INSTANCES} instances per run (10-200 samples, "
          f"0.2-2% spread, 5% slow tail, 0.3% run-to-run jitter), {args.pairs} run pairs per scenario")
    print()
    verdicts = ["same", "slower", "faster", "ambiguous"]
    print(f"{'scenario':<42} {'rows':>5} " + " ".join(f"{v:>9}" for v in verdicts) + "   exit codes")
    ok = True
    for name in scenarios:
        c = counts[name]
        total = sum(c.values())
        cells = " ".join(f"{c.get(v, 0):>9}" for v in verdicts)
        codes = ", ".join(f"{code}: {n}" for code, n in sorted(exit_codes[name].items()))
        print(f"{name:<42} {total:>5} {cells}   {codes}")
        if name.startswith("A/A") and (c.get("slower", 0) or c.get("faster", 0)):
            ok = False
    print()
    print("A/A flags nothing (no faster/slower row, every exit 0):", "YES" if ok else "NO")
    return ok


# ---------------------------------------------------------------------------------------------- scoring

def score(truth, detected):
    run_pos = {u: i for i, u in enumerate(truth["runs"])}
    by_series = {}
    for c in detected["changes"]:
        if c["benchmark"] != "eval/series" or c["metric"] != "duration":
            continue
        by_series.setdefault(int(c["params"]["id"]), []).append(c)
    rows = []
    for t in truth["series"]:
        found = by_series.get(t["id"], [])
        positions = [run_pos[c["run"]] - t["start_run"] for c in found]
        matched = None
        if t["at"] is not None:
            near = [p for p in positions if abs(p - t["at"]) <= 1]
            if near:
                matched = min(near, key=lambda p: abs(p - t["at"]))
        false_pos = len(positions) - (1 if matched is not None else 0)
        sigma = abs(t["step"]) / t["cv"] if t["step"] else 0.0
        rows.append({**t, "sigma": sigma, "detected": len(positions), "matched": matched is not None,
                     "offset": (matched - t["at"]) if matched is not None else None, "false": false_pos})
    return rows


def summarize(rows):
    n = len(rows)
    truths = sum(1 for r in rows if r["at"] is not None)
    tp = sum(1 for r in rows if r["matched"])
    fp = sum(r["false"] for r in rows)
    flagged = sum(1 for r in rows if r["detected"] > 0)
    exact = sum(1 for r in rows if r["matched"] and r["offset"] == 0)
    return {"series": n, "truths": truths, "tp": tp, "fp": fp,
            "recall": tp / truths if truths else None,
            "precision": tp / (tp + fp) if tp + fp else None,
            "exact": exact / tp if tp else None,
            "flagged": flagged / n if n else None}


def fmt(v, pct=False):
    if v is None:
        return "-"
    return f"{100 * v:.1f}%" if pct else f"{v:.3f}"


def print_table(rows):
    step_rows = [r for r in rows if r["kind"] == "step"]
    target = [r for r in step_rows if r["sigma"] >= 4 and r["before"] >= 8 and r["after"] >= 8]
    buckets = [
        ("TARGET: step >= 4 sigma, >= 8 runs each side", target),
        ("  without outliers", [r for r in target if not r["outliers"]]),
        ("  with outliers", [r for r in target if r["outliers"]]),
    ]
    for cv in CVS:
        buckets.append((f"  cv {100 * cv:.1f}%", [r for r in target if r["cv"] == cv]))
    buckets.append(("  steps up (slower)", [r for r in target if r["step"] > 0]))
    buckets.append(("  steps down (faster)", [r for r in target if r["step"] < 0]))
    buckets += [
        ("step 2-4 sigma, >= 8 each side", [r for r in step_rows if 2 <= r["sigma"] < 4 and r["after"] >= 8]),
        ("step < 2 sigma, >= 8 each side", [r for r in step_rows if r["sigma"] < 2 and r["after"] >= 8]),
        ("step >= 4 sigma, 4-7 runs after", [r for r in step_rows if r["sigma"] >= 4 and r["after"] < 8]),
    ]
    print(f"{'bucket':<46} {'series':>6} {'recall':>7} {'precis.':>7} {'exact':>7} {'FP':>4}")
    for name, b in buckets:
        s = summarize(b)
        print(f"{name:<46} {s['series']:>6} {fmt(s['recall']):>7} {fmt(s['precision']):>7} "
              f"{fmt(s['exact'], True):>7} {s['fp']:>4}")
    print()
    print(f"{'no change (false-alarm rate = series flagged)':<46} {'series':>6} {'flagged':>8}")
    none = [r for r in rows if r["kind"] == "none"]
    groups = [("all", none), ("  without outliers", [r for r in none if not r["outliers"]]),
              ("  with outliers", [r for r in none if r["outliers"]])]
    for cv in CVS:
        groups.append((f"  cv {100 * cv:.1f}%", [r for r in none if r["cv"] == cv]))
    short = [r for r in rows if r["kind"] == "short"]
    groups.append(("too short (3-7 runs), no step", [r for r in short if not r["step"]]))
    groups.append(("too short (3-7 runs), 30% step in the middle", [r for r in short if r["step"]]))
    for name, b in groups:
        s = summarize(b)
        print(f"{name:<46} {s['series']:>6} {fmt(s['flagged'], True):>8}")
    t, fa = summarize(target), summarize(none)
    ok = (t["recall"] or 0) >= 0.95 and (t["precision"] or 0) >= 0.95 and (fa["flagged"] or 0) < 0.02
    print()
    print(f"targets: recall {fmt(t['recall'])} >= 0.95, precision {fmt(t['precision'])} >= 0.95, "
          f"false alarms {fmt(fa['flagged'], True)} < 2%: {'MET' if ok else 'MISSED'}")
    return ok


def run_all(args):
    with tempfile.TemporaryDirectory(prefix="detect-eval-") as tmp:
        data = os.path.join(tmp, "eval.json")
        db = os.path.join(tmp, "eval.db")
        doc, truth = generate(args.seed, args.step_series, args.none_series, args.short_series)
        with open(data, "w") as f:
            json.dump(doc, f)
        n_samples = sum(len(r["results"]) for r in doc["runs"]) * SAMPLES_PER_RUN
        print(f"generated {len(truth['series'])} series over {len(doc['runs'])} runs ({n_samples} samples), "
              f"seed {args.seed}")
        t0 = time.time()
        subprocess.run([args.gpuperf, "--db", db, "-q", "import", data], check=True)
        t1 = time.time()
        out = subprocess.run([args.gpuperf, "--db", db, "detect", "--branch", "main", "--format", "json"] + args.detect_arg,
                             check=True, capture_output=True, text=True)
        t2 = time.time()
        print(f"import {t1 - t0:.1f} s, detect {t2 - t1:.1f} s")
        print()
        detected = json.loads(out.stdout)
        if args.keep:
            with open(args.keep, "w") as f:
                json.dump({"truth": truth, "changes": detected}, f)
    return print_table(score(truth, detected))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gpuperf", default="build/cli/gpuperf", help="the gpuperf executable")
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--step-series", type=int, default=1500)
    p.add_argument("--none-series", type=int, default=1000)
    p.add_argument("--short-series", type=int, default=200)
    p.add_argument("--keep", help="write truth and detections to this JSON file")
    p.add_argument("--detect-arg", action="append", default=[], help="extra argument for gpuperf detect")
    sub = p.add_subparsers(dest="cmd")
    g = sub.add_parser("generate", help="write the interchange file and the truth only")
    g.add_argument("--out", required=True)
    g.add_argument("--truth", required=True)
    a = sub.add_parser("aa", help="A/A and A/B of gpuperf compare on real-shaped samples")
    a.add_argument("--pairs", type=int, default=25)
    lat = sub.add_parser("latency", help="nights from a step until detect flags it; false alarms per night")
    lat.add_argument("--per-step", type=int, default=200, help="series per step size")
    lat.add_argument("--per-family", type=int, default=300, help="no-change series per noise family")
    ni = sub.add_parser("nightly", help="night-one and night-two recall, false alarms on flat and two-mode series "
                        "(bench/detect/detect_nightly.py)")
    ni.add_argument("--seeds", type=int, default=5, help="seeds, from --seed on")
    ni.add_argument("--history-nights", type=int, default=60,
                    help="nights of history (default 60); more put the same steps and evaluated nights after a "
                         "longer flat past, e.g. 150 with --detect-arg=--last --detect-arg=90 for the nightly's window")
    s = sub.add_parser("score", help="score detections (gpuperf detect --format json) against a truth file")
    s.add_argument("--truth", required=True)
    s.add_argument("--changes", required=True)
    args = p.parse_args()
    if args.cmd == "generate":
        doc, truth = generate(args.seed, args.step_series, args.none_series, args.short_series)
        with open(args.out, "w") as f:
            json.dump(doc, f)
        with open(args.truth, "w") as f:
            json.dump(truth, f)
        return 0
    if args.cmd == "score":
        with open(args.truth) as f:
            truth = json.load(f)
        with open(args.changes) as f:
            detected = json.load(f)
        return 0 if print_table(score(truth, detected)) else 1
    if args.cmd == "aa":
        return 0 if run_aa(args) else 1
    if args.cmd == "latency":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from detect_latency import run_latency
        return 0 if run_latency(args) else 1
    if args.cmd == "nightly":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from detect_nightly import run_nightly
        return 0 if run_nightly(args) else 1
    return 0 if run_all(args) else 1


if __name__ == "__main__":
    sys.exit(main())
