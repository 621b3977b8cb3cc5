#!/usr/bin/env python3
"""Generates a year of nightly history for bench/report_bench.sh: one machine, the first --runs nights of
2026 on main, the full suite (39 instances of the 7 families), 12 metrics each, 50 raw duration samples per
instance and night. A dozen step changes (regressions, improvements, counter changes) are spread over the
year so the report has change points to draw. Deterministic (fixed seed).

Usage: report_bench_gen.py --runs N > history.json
"""
import argparse
import datetime
import hashlib
import json
import random
import sys

DURATION_SAMPLES = 50


def suite():
    """(name, params, baseline, duration ns, {metric: value}) for every instance."""
    out = []
    for n in (512, 1024, 2048):
        scale = (n / 1024) ** 3
        out.append(("matmul/naive", {"n": n}, "", 1.25e6 * scale, {"gld_efficiency": 56.25, "shared_load_transactions": 0}))
        for tile in (16, 32):
            out.append(("matmul/tiled", {"n": n, "tile": tile}, "matmul/naive", 2.78e5 * scale * (1.1 if tile == 32 else 1),
                        {"gld_efficiency": 100.0, "shared_load_transactions": 5.04e7 * scale / (tile / 16)}))
    n = 1 << 24
    out.append(("memory/coalesced", {"n": n}, "", 1.6e5, {"gld_efficiency": 100.0}))
    for stride in (2, 4, 8, 16, 32):
        out.append(("memory/strided", {"n": n, "stride": stride}, "memory/coalesced", 1.6e5 * min(stride, 8) * 0.9,
                    {"gld_efficiency": max(12.5, 100.0 / stride)}))
    out.append(("memory/misaligned", {"n": n, "offset": 1}, "memory/coalesced", 1.75e5, {"gld_efficiency": 80.0}))
    out.append(("memory/broadcast", {"n": n}, "memory/coalesced", 9.0e4, {"gld_efficiency": 3.125}))
    out.append(("memory/scattered", {"n": n}, "memory/coalesced", 1.3e6, {"gld_efficiency": 14.0}))
    for n in (1 << 20, 1 << 22, 1 << 24):
        s = n / (1 << 22)
        out.append(("stencil1d/global", {"n": n, "radius": 3}, "", 9.5e4 * s, {"shared_load_transactions": 0}))
        out.append(("stencil1d/shared", {"n": n, "radius": 3}, "stencil1d/global", 7.0e4 * s,
                    {"shared_load_transactions": 917504 * s}))
    for n in (1000, 4000):
        s = (n / 1000) ** 2
        out.append(("matvec/naive", {"n": n}, "", 4.0e4 * s, {"gld_efficiency": 25.0}))
        out.append(("matvec/shared", {"n": n}, "matvec/naive", 2.2e4 * s, {"gld_efficiency": 100.0}))
    for block in (64, 128, 256, 512, 1024):
        out.append(("vector_add/basic", {"n": 1 << 24, "block": block}, "", 2.4e5 * (1.15 if block == 64 else 1),
                    {"gld_efficiency": 100.0}))
    for shape in ("8x8", "16x16", "32x32"):
        out.append(("occupancy/blocks", {"shape": shape}, "", {"8x8": 3.1e5, "16x16": 2.2e5, "32x32": 2.4e5}[shape],
                    {"gld_efficiency": 100.0}))
    out.append(("transpose/naive", {"n": 4096}, "", 6.1e5, {"gld_efficiency": 100.0, "shared_bank_conflicts": 0}))
    out.append(("transpose/shared", {"n": 4096}, "transpose/naive", 3.3e5,
                {"gld_efficiency": 100.0, "shared_bank_conflicts": 1.6e7}))
    out.append(("transpose/padded", {"n": 4096}, "transpose/shared", 2.5e5,
                {"gld_efficiency": 100.0, "shared_bank_conflicts": 0}))
    return out


# Step changes: (instance index, first night, duration factor, counter changes).
CHANGES = [(1, 40, 1.18, {"shared_bank_conflicts": 1572864}), (4, 75, 0.9, {}), (9, 110, 1.25, {"gld_efficiency": 50.0}),
           (16, 150, 0.85, {}), (20, 190, 1.12, {}), (24, 220, 1.3, {"registers": 40}), (27, 250, 0.8, {}),
           (30, 280, 1.15, {}), (33, 300, 1.4, {"shared_bank_conflicts": 2.1e7}), (36, 330, 0.88, {}),
           (2, 350, 1.2, {}), (12, 355, 0.93, {})]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=365)
    args = ap.parse_args()
    rng = random.Random(365)
    instances = suite()
    machine = {"hostname": "nightly-h200", "gpu_name": "NVIDIA H200", "gpu_uuid": "GPU-bench-0000-0000-0000-000000000365",
               "cc": "9.0", "sm_count": 132, "driver": "580.159.04", "cuda": "13.0"}
    day0 = datetime.datetime(2026, 1, 1, 2, 0, 0)
    out = sys.stdout
    out.write('{"format": "gpuperf-results", "version": 1, "runs": [\n')
    for night in range(args.runs):
        t = day0 + datetime.timedelta(days=night)
        results = []
        for idx, (name, params, baseline, dur, counters) in enumerate(instances):
            factor, extra = 1.0, {}
            for (ci, first, f, c) in CHANGES:
                if ci == idx and night >= first:
                    factor *= f
                    extra.update(c)
            level = dur * factor
            samples = [round(level * (1 + rng.gauss(0, 0.01)), 1) for _ in range(DURATION_SAMPLES)]
            m = {"duration": {"unit": "ns", "samples": samples}}
            bytes_moved = params.get("n", 1 << 22) * 8.0
            m["gbps"] = {"unit": "GB/s", "value": round(bytes_moved / (level * (1 + rng.gauss(0, 0.005))), 3)}
            gld = extra.get("gld_efficiency", counters.get("gld_efficiency", 100.0))
            m["gld_efficiency"] = {"unit": "%", "value": gld}
            m["gst_efficiency"] = {"unit": "%", "value": 100.0}
            m["shared_load_transactions"] = {"unit": "count", "value": counters.get("shared_load_transactions", 0)}
            m["shared_store_transactions"] = {"unit": "count", "value": counters.get("shared_load_transactions", 0) / 11}
            m["shared_bank_conflicts"] = {"unit": "count",
                                          "value": extra.get("shared_bank_conflicts", counters.get("shared_bank_conflicts", 0))}
            m["achieved_occupancy"] = {"unit": "%", "value": round(88 + rng.gauss(0, 0.6), 2)}
            m["theoretical_occupancy"] = {"unit": "%", "value": 100.0}
            m["dram_bytes_read"] = {"unit": "bytes", "value": round(bytes_moved / 2 * (1 + rng.gauss(0, 0.001)))}
            m["dram_bytes_written"] = {"unit": "bytes", "value": round(bytes_moved / 2 * (1 + rng.gauss(0, 0.001)))}
            m["registers"] = {"unit": "count", "value": extra.get("registers", 32)}
            r = {"benchmark": name, "params": params, "status": "ok", "metrics": m}
            if baseline:
                r["baseline"] = baseline
            results.append(r)
        run = {"uuid": "00000365-0000-4000-8000-%012d" % night, "started_at": t.strftime("%Y-%m-%dT%H:%M:%SZ"),
               "commit": hashlib.sha1(b"night-%d" % night).hexdigest(), "branch": "main", "label": "nightly",
               "tool_version": "0.1.0", "machine": machine, "results": results}
        out.write(("," if night else "") + json.dumps(run, separators=(",", ":")) + "\n")
    out.write("]}\n")


if __name__ == "__main__":
    main()
