#!/usr/bin/env python3
"""Writes a mixed fleet's nights for tests/ci/test_fleet.sh: three runners of three GPU generations, one
gpuperf-results file per runner and night, each with the suite's run and a recorded program's run.

    make_fleet.py OUT_DIR NIGHTS STEP_AT

- h100-1 (NVIDIA H100 80GB HBM3, GH100, cc 9.0): its recorded GEMM carries record's TriageCompute speed of light
  (sol_sm_triage) and PM sampling's pm_sm_throughput, as record stores them on GH100;
- a100-1 (NVIDIA A100-SXM4-80GB, GA100, cc 8.0): no TriageCompute names (the chip has none), PM sampling's basic
  set (pm_sm_active); from night STEP_AT its memory/coalesced is 25% slower (the only step of the fleet);
- t4-1 (Tesla T4, TU104, cc 7.5): no TriageCompute names and no PM sampling (no set fits its one pass).
Every runner's suite holds matmul/wgmma, a kernel built for sm_90a alone: it runs on the H100 and is `unsupported`
every night on the A100 and the T4, with the reason the runner writes (no code those chips can run).
Each chip's levels are its own (a T4 is slower than an H100). Noise: 1% per sample, seeded.
"""
import json
import os
import random
import sys
import uuid

RUNNERS = [
    # hostname, gpu name, cc, SMs, level factor, recorded extras
    ("h100-1", "NVIDIA H100 80GB HBM3", "9.0", 132, 1.0, {"sol_sm_triage": ("%", 41.0), "pm_sm_throughput": ("%", 40.0)}),
    ("a100-1", "NVIDIA A100-SXM4-80GB", "8.0", 108, 1.6, {"sm_throughput": ("%", 38.0), "pm_sm_active": ("%", 77.0)}),
    ("t4-1", "Tesla T4", "7.5", 40, 5.5, {"sm_throughput": ("%", 35.0)}),
]


def run_uuid(host, night, kind):
    return str(uuid.UUID(int=random.Random(f"fleet/{host}/{kind}/{night}").getrandbits(128), version=4))


def night_file(night, step_at, runner, rng):
    host, gpu, cc, sms, factor, extras = runner
    machine = {"hostname": host, "gpu_name": gpu, "gpu_uuid": "GPU-" + run_uuid(host, 0, "gpu"), "cc": cc,
               "sm_count": sms, "driver": "580.159.04", "cuda": "13.0"}

    def duration(level, n=20):
        return {"unit": "ns", "samples": [round(level * factor * rng.gauss(1.0, 0.01)) for _ in range(n)]}

    stepped = host == "a100-1" and night >= step_at
    commit = f"{night:02d}f1ee7" + "0" * 33
    base = {"started_at": f"2026-10-{night:02d}T02:00:00Z", "finished_at": f"2026-10-{night:02d}T02:05:00Z",
            "commit": commit, "branch": "main", "tool_version": "0.1.0", "machine": machine}
    suite = dict(base, uuid=run_uuid(host, night, "suite"), label="nightly", results=[
        {"benchmark": "memory/coalesced", "params": {"n": 16777216}, "status": "ok",
         "metrics": {"duration": duration(52000.0 * (1.25 if stepped else 1.0)),
                     "gld_efficiency": {"unit": "%", "value": 100.0}}},
        {"benchmark": "matmul/tiled", "params": {"n": 1024, "tile": 16}, "status": "ok",
         "metrics": {"duration": duration(277000.0), "instructions": {"unit": "count", "value": 8388608}}},
        {"benchmark": "matmul/wgmma", "params": {"n": 4096}, "status": "ok", "metrics": {"duration": duration(90000.0)}}
        if cc == "9.0" else
        {"benchmark": "matmul/wgmma", "params": {"n": 4096}, "status": "unsupported", "metrics": {},
         "message": "the verification launch cannot run here: the binary holds no code sm_%s can run (build it for "
                    "this architecture: CMAKE_CUDA_ARCHITECTURES, e.g. native): cudaGetLastError() failed at "
                    "kernels/wgmma.cu:88: cudaErrorNoKernelImageForDevice (no kernel image is available for execution "
                    "on the device)" % cc.replace(".", "")},
    ])
    gemm = {"duration": duration(208000.0, 16), "launches": {"unit": "count", "value": 96},
            "gpu_time_total": {"unit": "ns", "value": round(96 * 208000.0 * factor)}}
    for name, (unit, value) in extras.items():
        gemm[name] = {"unit": unit, "value": value}
    recorded = dict(base, uuid=run_uuid(host, night, "record"), label="record",
                    started_at=f"2026-10-{night:02d}T02:10:00Z", finished_at=f"2026-10-{night:02d}T02:11:00Z",
                    command="python3 train.py --steps 4", exit_status=0, results=[
                        {"benchmark": "train/ampere_sgemm_128x64_nn", "status": "ok",
                         "params": {"block": "128x1x1", "grid": "1024x1x1"}, "metrics": gemm}])
    return {"format": "gpuperf-results", "version": 1, "runs": [suite, recorded]}


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: make_fleet.py OUT_DIR NIGHTS STEP_AT")
    out, nights, step_at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out, exist_ok=True)
    for i, runner in enumerate(RUNNERS):
        rng = random.Random(20261207 + i)
        for night in range(1, nights + 1):
            with open(os.path.join(out, f"{runner[0]}-night-{night:02d}.json"), "w", encoding="utf-8") as f:
                json.dump(night_file(night, step_at, runner, rng), f)


if __name__ == "__main__":
    main()
