#!/usr/bin/env python3
"""Writes a team's week of nights for one GPU-free machine: one gpuperf-results file per night, each with the
built-in suite's run and a recorded program's run (`gpuperf record -- python3 train.py --steps 4`) at the same
commit, for tests/ci/test_team_week.sh.

    make_team_week.py OUT_DIR NIGHTS STEP_AT

From night STEP_AT on, memory/coalesced loses coalescing (80% slower, gld_efficiency and gst_efficiency 100% ->
50%: a finding with hints) and the program's mean reduction (an at::native::reduce_kernel, a templated name
longer than the tables show) takes 30% longer; everything else stays. Noise: 1% per sample, seeded.
"""
import json
import os
import random
import sys
import uuid

REDUCE = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, float, "
          "float, float>, unsigned int, float, 4>>(at::native::ReduceOp<float, at::native::MeanOps<float, float, "
          "float, float>, unsigned int, float, 4>)")
GEMM = "nvjet_hsh_128x256_64x4_2x1_v_bz_coopA_NNT"
ADD = ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>, "
       "at::detail::Array<char*, 3>>(int, at::native::CUDAFunctor_add<c10::BFloat16>, at::detail::Array<char*, 3>)")
MACHINE = {"hostname": "ci-gpu-1", "gpu_name": "NVIDIA H200", "gpu_uuid": "GPU-7eac1e11-0000-4000-8000-000000000001",
           "cc": "9.0", "sm_count": 132, "driver": "580.159.04", "cuda": "13.0"}


def run_uuid(night, kind):
    """A version-4 uuid, different in its first 8 characters (the prefix every table prints) for each run."""
    return str(uuid.UUID(int=random.Random(f"team-week/{kind}/{night}").getrandbits(128), version=4))


def samples(level, rng, n=20):
    return [round(level * rng.gauss(1.0, 0.01)) for _ in range(n)]


def suite_run(night, stepped, rng, commit):
    uncoalesced = stepped
    efficiency = {"unit": "%", "value": 50.0 if uncoalesced else 100.0}
    return {
        "uuid": run_uuid(night, "suite"),
        "started_at": f"2026-10-{night:02d}T02:00:00Z",
        "finished_at": f"2026-10-{night:02d}T02:05:00Z",
        "commit": commit, "branch": "main", "label": "nightly", "tool_version": "0.1.0", "machine": MACHINE,
        "results": [
            {"benchmark": "memory/coalesced", "params": {"n": 16777216}, "status": "ok",
             "metrics": {"duration": {"unit": "ns", "samples": samples(52000.0 * (1.8 if uncoalesced else 1), rng)},
                         "gld_efficiency": efficiency, "gst_efficiency": dict(efficiency)}},
            {"benchmark": "memory/strided", "params": {"n": 16777216, "stride": 32}, "status": "ok",
             "baseline": "memory/coalesced",
             "metrics": {"duration": {"unit": "ns", "samples": samples(293000.0, rng)},
                         "gld_efficiency": {"unit": "%", "value": 12.5}}},
        ],
    }


def recorded_run(night, stepped, rng, commit):
    kernels = [(GEMM, 20e6, 96), (REDUCE, 2e6 * (1.3 if stepped else 1), 16), (ADD, 5e6, 64)]
    results = []
    for name, total, launches in kernels:
        per_launch = total / launches
        results.append({
            "benchmark": "train/" + name,
            "params": {"block": "128x1x1", "grid": "1024x1x1", "nvtx": "forward"}, "status": "ok",
            "metrics": {"duration": {"unit": "ns", "samples": samples(per_launch, rng, 16)},
                        "launches": {"unit": "count", "value": launches},
                        "gpu_time_total": {"unit": "ns", "value": round(total)}}})
    return {
        "uuid": run_uuid(night, "record"),
        "started_at": f"2026-10-{night:02d}T02:10:00Z",
        "finished_at": f"2026-10-{night:02d}T02:11:00Z",
        "commit": commit, "branch": "main", "label": "record", "tool_version": "0.1.0", "machine": MACHINE,
        "command": "python3 train.py --steps 4", "exit_status": 0,
        "results": results,
    }


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: make_team_week.py OUT_DIR NIGHTS STEP_AT")
    out_dir, nights, step_at = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(20261207)
    for night in range(1, nights + 1):
        commit = f"{night:02d}7eab" + "5eed" * 9 + "00"
        runs = [suite_run(night, night >= step_at, rng, commit), recorded_run(night, night >= step_at, rng, commit)]
        with open(os.path.join(out_dir, f"night-{night:02d}.json"), "w", encoding="utf-8") as f:
            json.dump({"format": "gpuperf-results", "version": 1, "runs": runs}, f)


if __name__ == "__main__":
    main()
