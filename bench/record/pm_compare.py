#!/usr/bin/env python3
"""Per identity, `record --pm-sampling`'s sampled throughputs against the range profiler's TriageCompute values for
the same kernels (bench/record/pm_sampling_gpu.sh): two `gpuperf export` files, one of a PM-sampled recording and
one of a `--metrics` recording of the same program.

    bench/record/pm_compare.py PM.json RANGE.json [--top N] [--title TEXT]

Rows: the identities with a PM measurement, those the range profiler also measured first, heaviest first
(gpu_time_total of the PM run); columns: launches with a sample / launches in the window, then per throughput the
PM mean over launches (sd), the range profiler's median and the difference in points. Then one line per throughput
over every identity both measured (not only the rows shown): pairs, median and largest |delta|, and the median
signed delta; the last line sums the launches.
"""
import argparse
import json
import statistics

PAIRS = [("sm", "pm_sm_throughput", "sol_sm_triage"), ("l1", "pm_l1tex_throughput", "sol_l1tex_triage"),
         ("l2", "pm_lts_throughput", "sol_lts_triage"), ("dramc", "pm_dramc_throughput", "sol_dramc_triage"),
         ("dram", "pm_dram_throughput", "dram_throughput")]


def results(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: no export ({e})")
        return {}
    out = {}
    for run in doc.get("runs", []):
        for r in run.get("results", []):
            key = (r["benchmark"].split("/", 1)[-1], json.dumps(r.get("params", {}), sort_keys=True))
            out[key] = r.get("metrics", {})
    return out


def values(m):
    if m is None or m.get("status", "ok") != "ok":
        return []
    if "samples" in m:
        return [float(x) for x in m["samples"]]
    return [float(m["value"])] if "value" in m else []


def short(name, params):
    p = json.loads(params)
    name = name if len(name) <= 48 else name[:45] + "..."
    return f"{name} {p.get('grid', '')}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pm")
    ap.add_argument("range")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    pm, rp = results(a.pm), results(a.range)
    rows = [(k, m) for k, m in pm.items() if "pm_launches_in_window" in m]
    rows.sort(key=lambda km: (km[0] not in rp, -(values(km[1].get("gpu_time_total")) or [0])[0]))
    head = f"{'identity':<58} {'sampled':>9}"
    for label, _, _ in PAIRS:
        head += f" | {label + ' pm (sd)':>14} {'rp':>5} {'delta':>6}"
    print(a.title)
    print(head)
    sampled = launches = 0
    deltas = []
    for k, m in rows:
        n_in = int(values(m.get("pm_launches_in_window"))[0])
        n_s = int(values(m.get("pm_launches_sampled"))[0])
        launches += n_in
        sampled += n_s
        if rows.index((k, m)) >= a.top:
            continue
        line = f"{short(*k):<58} {f'{n_s}/{n_in}':>9}"
        for _, pm_name, rp_name in PAIRS:
            v, r = values(m.get(pm_name)), values(rp.get(k, {}).get(rp_name))
            pm_text = f"{statistics.mean(v):6.1f} ({statistics.stdev(v) if len(v) > 1 else 0:4.1f})" if v else "-"
            rp_text = f"{statistics.median(r):5.1f}" if r else "-"
            d = statistics.mean(v) - statistics.median(r) if v and r else None
            if d is not None:
                deltas.append(abs(d))
            line += f" | {pm_text:>14} {rp_text:>5} {('%+6.1f' % d) if d is not None else '-':>6}"
        print(line)
    for label, pm_name, rp_name in PAIRS:
        signed = [statistics.mean(v) - statistics.median(r) for k, m in rows
                  for v, r in [(values(m.get(pm_name)), values(rp.get(k, {}).get(rp_name)))] if v and r]
        if signed:
            size = [abs(d) for d in signed]
            print(f"{label:>6}: {len(signed)} identities in both; |pm - rp| median {statistics.median(size):.1f}, "
                  f"largest {max(size):.1f} points; pm - rp median {statistics.median(signed):+.1f}")
    med = statistics.median(deltas) if deltas else float("nan")
    print(f"launches with a sample: {sampled} of {launches} in the window; |pm - rp| over the rows shown: median "
          f"{med:.1f}, largest {max(deltas) if deltas else float('nan'):.1f} points ({len(deltas)} pairs)")


if __name__ == "__main__":
    main()
