#!/usr/bin/env python3
"""Run-to-run spread of median durations across gpuperf runs, and the paired variants' ratios.

Reads gpuperf-results JSON files (one run each, as `gpuperf run --format json` writes them), prints
  1. per instance: the median duration of each run, and spread = max/min - 1 of those medians,
     checked against --max-spread for instances whose median is above --threshold-us;
  2. per family: each variant against its baseline (same values on the axes they share), the medians
     (median over runs) and the ratio variant / baseline.
Exit status 1 when an instance above the threshold misses the spread target.
"""
import argparse
import json
import statistics
import sys


def display_name(result):
    params = result.get("params") or {}
    if not params:
        return result["benchmark"]
    inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return f"{result['benchmark']}[{inner}]"


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    if doc.get("format") != "gpuperf-results" or len(doc.get("runs", [])) != 1:
        sys.exit(f"{path}: not a single-run gpuperf-results document")
    run = doc["runs"][0]
    medians, results = {}, {}
    for r in run["results"]:
        name = display_name(r)
        results[name] = r
        d = r.get("metrics", {}).get("duration")
        if r.get("status") != "ok" or d is None:
            continue
        samples = d.get("samples") or ([d["value"]] if "value" in d else [])
        if samples:
            medians[name] = statistics.median(samples)
    return run, medians, results


def fmt_us(ns):
    return f"{ns / 1000:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+")
    ap.add_argument("--threshold-us", type=float, default=20.0)
    ap.add_argument("--max-spread", type=float, default=0.02)
    args = ap.parse_args()

    loaded = [load(p) for p in args.files]
    runs = [m for _, m, _ in loaded]
    results = loaded[0][2]
    names = list(results)  # run order of the first file
    n = len(runs)

    print(f"## Run-to-run spread of median durations ({n} runs, {loaded[0][0]['machine']['gpu_name']})\n")
    header = "| instance | " + " | ".join(f"run {i + 1} (us)" for i in range(n)) + " | spread | check |"
    print(header)
    print("|" + "---|" * (n + 3))
    failures, checked, worst = [], 0, (0.0, "")
    for name in names:
        per_run = [r.get(name) for r in runs]
        if any(v is None for v in per_run):
            print(f"| {name} | " + " | ".join(fmt_us(v) if v else "-" for v in per_run) + " | - | missing |")
            failures.append(name)
            continue
        spread = max(per_run) / min(per_run) - 1.0
        if statistics.median(per_run) > args.threshold_us * 1000:
            checked += 1
            ok = spread < args.max_spread
            verdict = "ok" if ok else "FAIL"
            if not ok:
                failures.append(name)
            if spread > worst[0]:
                worst = (spread, name)
        else:
            verdict = f"< {args.threshold_us:g} us"
        print(f"| {name} | " + " | ".join(fmt_us(v) for v in per_run) + f" | {100 * spread:.2f}% | {verdict} |")
    print(f"\n{checked} instances above {args.threshold_us:g} us checked; worst spread "
          f"{100 * worst[0]:.2f}% ({worst[1] or '-'}); target < {100 * args.max_spread:g}%: "
          f"{'met' if not failures else 'MISSED by ' + ', '.join(failures)}\n")

    # Paired variants: median over runs of each instance's median.
    med = {name: statistics.median([r[name] for r in runs if name in r]) for name in names
           if any(name in r for r in runs)}
    by_bench = {}
    for name, r in results.items():
        by_bench.setdefault(r["benchmark"], []).append((name, r))
    print("## Paired variants (median of the run medians; ratio = variant / baseline duration)\n")
    print("| family | variant | baseline | variant (us) | baseline (us) | ratio |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        base = r.get("baseline")
        if not base or name not in med:
            continue
        params = r.get("params") or {}
        match = None
        for bname, br in by_bench.get(base, []):
            bparams = br.get("params") or {}
            if all(params.get(k) == v for k, v in bparams.items() if k in params) and bname in med:
                match = bname
                break
        if match is None:
            continue
        family = r["benchmark"].split("/")[0]
        print(f"| {family} | {name} | {match} | {fmt_us(med[name])} | {fmt_us(med[match])} | "
              f"{med[name] / med[match]:.2f} |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
