#!/usr/bin/env python3
"""Writes one gpuperf-results file per night of a small GPU-free suite, for the nightly job's tests.

    make_nights.py OUT_DIR NIGHTS STEP_AT [strided|coalesced]

strided (default): memory/coalesced[n=16777216] stays at 52 us; memory/strided[n=16777216,stride=32] runs at
293 us until night STEP_AT, then 25% slower, with its gld_efficiency unchanged.
coalesced: memory/strided stays at 293 us; from night STEP_AT memory/coalesced loses coalescing (what
bench/patches/lose_coalescing.patch does on a GPU): 80% slower, gld_efficiency and gst_efficiency
100% -> 50%.
Noise: 1% per sample (seeded, so reruns match).
"""
import json
import os
import random
import sys


def night_file(night, step_at, which, rng):
    def duration(level):
        return {"unit": "ns", "samples": [round(level * rng.gauss(1.0, 0.01)) for _ in range(20)]}

    stepped = night >= step_at
    strided = 293000.0 * (1.25 if stepped and which == "strided" else 1.0)
    uncoalesced = stepped and which == "coalesced"
    coalesced = 52000.0 * (1.8 if uncoalesced else 1.0)
    efficiency = {"unit": "%", "value": 50.0 if uncoalesced else 100.0}
    run = {
        "uuid": f"00000000-0000-4000-8000-{night:012d}",
        "started_at": f"2026-10-{night:02d}T02:00:00Z",
        "finished_at": f"2026-10-{night:02d}T02:05:00Z",
        "commit": f"{night:02d}" + "c0ffee" * 6 + "00",
        "branch": "main",
        "label": "nightly",
        "tool_version": "0.1.0",
        "machine": {"hostname": "ci-gpu-1", "gpu_name": "NVIDIA H200", "gpu_uuid": "GPU-c1c1c1c1",
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
    out_dir, nights, step_at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    which = sys.argv[4] if len(sys.argv) > 4 else "strided"
    if which not in ("strided", "coalesced"):
        sys.exit(f"make_nights: unknown step '{which}' (strided or coalesced)")
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(20261122)
    for night in range(1, nights + 1):
        with open(os.path.join(out_dir, f"night-{night:02d}.json"), "w", encoding="utf-8") as f:
            json.dump(night_file(night, step_at, which, rng), f)


if __name__ == "__main__":
    main()
