#!/usr/bin/env python3
"""Writes fixture_history.json: the interchange file the golden report tests import.

Two machines. ci-h200-01 has 12 nightly runs of main with three families and known changes from the 7th
run on: matmul/tiled slows down 278 -> 330 us while its shared-memory bank conflicts appear (a regression
with a root-cause hint), stencil1d/shared speeds up 70 -> 60 us (an improvement). dev-h100-07 has 4 runs of
a feature branch. One benchmark has a hostile name and params, and fails in one run.
Deterministic: a fixed seed; run it again and the file is the same.
"""
import hashlib
import json
import random
import sys

rng = random.Random(20261001)


def sha(text):
    return hashlib.sha1(text.encode()).hexdigest()


def noisy(level, rel=0.005, n=10):
    return [round(level * (1 + rng.gauss(0, rel)), 1) for _ in range(n)]


def duration(level, rel=0.005):
    return {"unit": "ns", "samples": noisy(level, rel)}


def value(v, unit):
    return {"unit": unit, "value": v}


def results(night, gpu_scale):
    after = night >= 6
    tiled = 330000 if after else 278000
    out = [
        {"benchmark": "matmul/naive", "params": {"n": 1024}, "status": "ok",
         "metrics": {"duration": duration(1250000 * gpu_scale),
                     "gld_efficiency": value(56.25, "%"),
                     "shared_load_transactions": value(0, "count"),
                     "achieved_occupancy": {"unit": "%", "samples": noisy(92.0, 0.004, 1)},
                     "registers": value(32, "count")}},
        {"benchmark": "matmul/tiled", "params": {"n": 1024, "tile": 16}, "baseline": "matmul/naive", "status": "ok",
         "metrics": {"duration": duration(tiled * gpu_scale),
                     "gld_efficiency": value(100.0, "%"),
                     "shared_load_transactions": value(50397184, "count"),
                     "shared_bank_conflicts": value(1572864 if after else 0, "count"),
                     "achieved_occupancy": {"unit": "%", "samples": noisy(95.0, 0.004, 1)},
                     "registers": value(38, "count")}},
        {"benchmark": "memory/coalesced", "params": {"n": 16777216}, "status": "ok",
         "metrics": {"duration": duration(160000 * gpu_scale),
                     "gld_efficiency": value(100.0, "%"),
                     "dram_bytes_read": value(67108864, "bytes")}},
        {"benchmark": "memory/strided", "params": {"n": 16777216, "stride": 8}, "baseline": "memory/coalesced",
         "status": "ok",
         "metrics": {"duration": duration(1100000 * gpu_scale),
                     "gld_efficiency": value(12.5, "%"),
                     "dram_bytes_read": value(536870912, "bytes")}},
        {"benchmark": "stencil1d/global", "params": {"n": 4194304, "radius": 3}, "status": "ok",
         "metrics": {"duration": duration(95000 * gpu_scale),
                     "shared_load_transactions": value(0, "count")}},
        {"benchmark": "stencil1d/shared", "params": {"n": 4194304, "radius": 3}, "baseline": "stencil1d/global",
         "status": "ok",
         "metrics": {"duration": duration((60000 if after else 70000) * gpu_scale),
                     "shared_load_transactions": value(917504, "count")}},
    ]
    hostile = {"benchmark": "user/<img src=x onerror=alert(1)>|`pipe`",
               "params": {"label": "</script><script>alert(2)</script>", "n": 7}}
    if night == 3:
        hostile.update({"status": "failed", "message": "CUDA error: an illegal memory access <b>was</b> encountered"})
    else:
        hostile.update({"status": "ok", "metrics": {"duration": duration(5000 * gpu_scale, 0.01)}})
    out.append(hostile)
    return out


def run(machine, night, branch, label, gpu_scale, day0):
    return {"uuid": "%08x-0000-4000-8000-%012x" % (day0, night),
            "started_at": "2026-10-%02dT02:00:00Z" % (day0 + night),
            "finished_at": "2026-10-%02dT02:20:00Z" % (day0 + night),
            "commit": sha("%s-%d" % (branch, night)), "branch": branch, "label": label,
            "tool_version": "0.1.0", "machine": machine, "results": results(night, gpu_scale)}


h200 = {"hostname": "ci-h200-01", "gpu_name": "NVIDIA H200", "gpu_uuid": "GPU-6f1c0d2a-1b2c-4d3e-8f40-000000000001",
        "cc": "9.0", "sm_count": 132, "driver": "580.159.04", "cuda": "13.0"}
h100 = {"hostname": "dev-h100-07", "gpu_name": "NVIDIA H100 80GB HBM3",
        "gpu_uuid": "GPU-0a1b2c3d-4e5f-4061-8273-000000000007", "cc": "9.0", "sm_count": 132,
        "driver": "580.159.04", "cuda": "13.0"}
runs = [run(h200, i, "main", "nightly", 1.0, 1) for i in range(12)]
runs += [run(h100, i, "feature/<tiles>|x", "dev", 1.18, 20) for i in range(4)]
doc = {"format": "gpuperf-results", "version": 1, "runs": runs}
json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
sys.stdout.write("\n")
