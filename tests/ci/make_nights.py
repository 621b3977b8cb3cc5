#!/usr/bin/env python3
"""Writes one gpuperf-results file per night of a small GPU-free suite, for the nightly job's tests.

    make_nights.py OUT_DIR NIGHTS STEP_AT [strided|coalesced] [--machine N] [--started-year YEAR]

strided (default): memory/coalesced[n=16777216] stays at 52 us; memory/strided[n=16777216,stride=32] runs at
293 us until night STEP_AT, then 25% slower, with its gld_efficiency unchanged.
coalesced: memory/strided stays at 293 us; from night STEP_AT memory/coalesced loses coalescing (what
bench/detect/patches/lose_coalescing.patch does on a GPU): 80% slower, gld_efficiency and gst_efficiency
100% -> 50%.
Noise: 1% per sample (seeded, so reruns match).
--machine N (default 1): the runner, host ci-gpu-N with its own GPU uuid and run uuids, and its own noise seed,
so several runners' nights can go into one history. --started-year: the year of the runs' started_at
(default 2026): a runner whose clock is far off.
"""
import json
import os
import random
import sys


def night_file(night, step_at, which, rng, machine=1, year=2026):
    def duration(level):
        return {"unit": "ns", "samples": [round(level * rng.gauss(1.0, 0.01)) for _ in range(20)]}

    stepped = night >= step_at
    strided = 293000.0 * (1.25 if stepped and which == "strided" else 1.0)
    uncoalesced = stepped and which == "coalesced"
    coalesced = 52000.0 * (1.8 if uncoalesced else 1.0)
    efficiency = {"unit": "%", "value": 50.0 if uncoalesced else 100.0}
    run = {
        "uuid": f"00000000-0000-4000-{0x8000 + machine - 1:04x}-{night:012d}",
        "started_at": f"{year}-10-{night:02d}T02:00:00Z",
        "finished_at": f"{year}-10-{night:02d}T02:05:00Z",
        "commit": f"{night:02d}" + "c0ffee" * 6 + "00",
        "branch": "main",
        "label": "nightly",
        "tool_version": "0.1.0",
        "machine": {"hostname": f"ci-gpu-{machine}", "gpu_name": "NVIDIA H200", "gpu_uuid": f"GPU-c{machine}c1c1c1",
                    "cc": "9.0", "sm_count": 132, "driver": "580.159.04", "cuda": "13.0"},
        "results": [
            {"benchmark": "memory/coalesced", "params": {"n": 16777216}, "status": "ok",
             "metrics": {"duration": duration(coalesced), "gld_efficiency": efficiency,
                         "gst_efficiency": dict(efficiency)}},
            {"benchmark": "memory/strided", "params": {"n": 16777216, "stride": 32}, "status": "ok",
             "baseline": "memory/coalesced",
             "metrics": {"duration": duration(strided),
                         "gld_efficiency": {"unit": "%", "value": 12.5}}},
        ],
    }
    return {"format": "gpuperf-results", "version": 1, "runs": [run]}


def main():
    argv, named = [], {"--machine": "1", "--started-year": "2026"}
    args = iter(sys.argv[1:])
    for a in args:
        if a in named:
            named[a] = next(args, None) or sys.exit(f"make_nights: {a} needs a value")
        else:
            argv.append(a)
    out_dir, nights, step_at = argv[0], int(argv[1]), int(argv[2])
    which = argv[3] if len(argv) > 3 else "strided"
    if which not in ("strided", "coalesced"):
        sys.exit(f"make_nights: unknown step '{which}' (strided or coalesced)")
    machine, year = int(named["--machine"]), int(named["--started-year"])
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(20261122 + 7919 * (machine - 1))
    for night in range(1, nights + 1):
        with open(os.path.join(out_dir, f"night-{night:02d}.json"), "w", encoding="utf-8") as f:
            json.dump(night_file(night, step_at, which, rng, machine, year), f)


if __name__ == "__main__":
    main()
