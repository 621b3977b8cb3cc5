#!/usr/bin/env python3
"""Issue 55's speed-of-light table: per default-suite instance, the TriageCompute throughputs (`gpuperf profile`
with the default set as `run` now collects it on GH100) against today's names (`profile --metrics default`)
against ncu (the same Perfworks names, and today's, over `profile --launch-only`), with ncu's own run-to-run
spread. bench/record/record_gpu55.sh runs it.

    sol_compare.py --today J [--today J] --triage J [--triage J] --ncu CSV ORDER [--ncu CSV ORDER]

A TriageCompute value "agrees" with its reference when it lies within ncu's range over its runs widened by 0.5
points (bench/gpu/ncu_compare.py's tolerance for percentages); the last lines count the agreements per metric,
which decide whether it may be stored under today's name (docs/metrics.md).
"""
import argparse
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__) + "/../gpu")
from ncu_compare import read_ncu, number, median  # noqa: E402

E = ".avg.pct_of_peak_sustained_elapsed"
# gpuperf name -> (its Perfworks name, the ncu names it is checked against)
PAIRS = [
    ("sol_sm_triage", "TriageCompute.sm__throughput" + E, ["TriageCompute.sm__throughput" + E, "sm__throughput" + E]),
    ("sol_l1tex_triage", "SM_A.TriageCompute.l1tex__throughput" + E,
     ["SM_A.TriageCompute.l1tex__throughput" + E, "l1tex__throughput" + E]),
    ("sol_lts_triage", "LTS.TriageCompute.lts__throughput" + E,
     ["LTS.TriageCompute.lts__throughput" + E, "lts__throughput" + E]),
    ("sol_dramc_triage", "FBSP.TriageCompute.dramc__throughput" + E,
     ["FBSP.TriageCompute.dramc__throughput" + E, "dram__throughput" + E]),
]
TODAY = [("sm_throughput", "sm__throughput" + E), ("memory_throughput", "gpu__compute_memory_throughput" + E)]


def load(paths):
    import json
    runs = [json.load(open(p)) for p in paths]
    values = {}  # instance -> metric -> [values]
    for run in runs:
        for r in run["results"]:
            for name, m in r.get("metrics", {}).items():
                v = m.get("median", m.get("value"))
                if isinstance(v, (int, float)):
                    values.setdefault(r["instance"], {}).setdefault(name, []).append(float(v))
    return runs, values


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--today", action="append", default=[])
    ap.add_argument("--triage", action="append", default=[])
    ap.add_argument("--ncu", nargs=2, action="append", default=[])
    a = ap.parse_args()
    today_runs, today = load(a.today)
    triage_runs, triage = load(a.triage)
    failures = []
    ncu = [read_ncu(csv, order, failures) for csv, order in a.ncu]
    for f in failures:
        print("ncu:", f)
    print("| instance | metric | triage (gpuperf) | today's name (gpuperf) | ncu same name | ncu today's name "
          "[min, max] | verdict |")
    print("|---|---|---|---|---|---|---|")
    counts = {}
    for inst in sorted(triage):
        for name, perfworks, refs in PAIRS:
            ours = median(triage[inst].get(name, []))
            if ours is None:
                continue
            same = [number(n.get(inst, {}).get(refs[0])) for n in ncu]
            same = [v for v in same if v is not None]
            old = [number(n.get(inst, {}).get(refs[1])) for n in ncu]
            old = [v for v in old if v is not None]
            gp_old = None
            if name == "sol_sm_triage":
                gp_old = median(today.get(inst, {}).get("sm_throughput", []))
            rng = (min(old), max(old)) if old else None
            ok = rng is not None and rng[0] - 0.5 <= ours <= rng[1] + 0.5
            counts.setdefault(name, [0, 0])[0 if ok else 1] += 1
            print(f"| {inst} | {name} | {ours:.2f} | {'-' if gp_old is None else f'{gp_old:.2f}'} | "
                  f"{'-' if not same else f'{median(same):.2f}'} | "
                  f"{'-' if rng is None else f'{median(old):.2f} [{rng[0]:.2f}, {rng[1]:.2f}]'} | "
                  f"{'agrees' if ok else 'DIFFERS'} |")
        # memory: the busiest TriageCompute memory unit and DRAM against memory_throughput and ncu's
        mem = [median(triage[inst].get(n, [])) for n in ("sol_l1tex_triage", "sol_lts_triage", "sol_dramc_triage",
                                                           "dram_throughput")]
        mem = [v for v in mem if v is not None]
        ref = [number(n.get(inst, {}).get(TODAY[1][1])) for n in ncu]
        ref = [v for v in ref if v is not None]
        gp_mem = median(today.get(inst, {}).get("memory_throughput", []))
        if mem:
            ok = bool(ref) and min(ref) - 0.5 <= max(mem) <= max(ref) + 0.5
            counts.setdefault("memory (busiest)", [0, 0])[0 if ok else 1] += 1
            print(f"| {inst} | memory (busiest) | {max(mem):.2f} | {'-' if gp_mem is None else f'{gp_mem:.2f}'} | - | "
                  f"{'-' if not ref else f'{median(ref):.2f} [{min(ref):.2f}, {max(ref):.2f}]'} | "
                  f"{'agrees' if ok else 'DIFFERS'} |")
    print()
    for name, (ok, bad) in counts.items():
        print(f"{name}: agrees with ncu's today's name on {ok} of {ok + bad} instances")
    for tag, runs in (("today's names (profile --metrics default)", today_runs),
                      ("TriageCompute (the default set as run collects it)", triage_runs)):
        if runs:
            print(f"{tag}: {runs[0].get('passes')} passes, collection "
                  + ", ".join(f"{r.get('collect_seconds', 0):.2f}" for r in runs) + " s")


if __name__ == "__main__":
    main()
