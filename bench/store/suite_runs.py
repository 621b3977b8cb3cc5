"""Suite runs for the benchmark scripts: runs shaped like the real suite's, in the interchange format.

A run has 33 instances, each with a duration series (ns, with the SM clock of every sample) and the
counters a profiled run carries; noise is 1% per sample from the caller's seeded `random.Random`, so a
script that seeds it writes the same files on every machine. Used by bench/store/pg_vs_sqlite.py and
bench/store/nightly_load.py. Standard library only.
"""
import json

INSTANCES = 33
# (name, unit, value of a healthy run)
COUNTERS = [("gld_efficiency", "%", 100.0), ("gst_efficiency", "%", 100.0), ("shared_load_transactions", "count", 5.0e7),
            ("achieved_occupancy", "%", 87.5), ("dram_bytes_read", "bytes", 8.4e6), ("registers", "count", 32.0)]


def instance_name(i):
    return f"suite/k{i:02d}"


def suite_run(uuid, night, host, rng, samples_per_instance=900):
    """One run shaped like the real suite's: 33 instances, a duration series with SM clocks, counters.

    night picks started_at (2026-01-01 for night 0, 28 days a month) and the commit; host names the machine
    and its GPU (GPU-host)."""
    results = []
    for i in range(INSTANCES):
        level = 5.0e4 * (1 + i % 7)
        durations = [round(level * rng.gauss(1.0, 0.01), 1) for _ in range(samples_per_instance)]
        metrics = {"duration": {"unit": "ns", "samples": durations,
                                "sm_clock_mhz": [1980.0] * samples_per_instance}}
        for name, unit, value in COUNTERS:
            metrics[name] = {"unit": unit, "value": value}
        results.append({"benchmark": instance_name(i), "params": {"n": 1 << 20}, "status": "ok", "metrics": metrics})
    return {"uuid": uuid, "started_at": f"2026-{1 + night // 28:02d}-{1 + night % 28:02d}T02:00:00Z",
            "commit": f"{night:040x}", "branch": "main", "status": "ok",
            "machine": {"hostname": host, "gpu_name": "NVIDIA H100 80GB HBM3", "gpu_uuid": f"GPU-{host}", "cc": "9.0",
                        "sm_count": 132},
            "results": results}


def plant_step(run, instance, slower=1.3, gld_efficiency=50.0):
    """Makes one instance of a run slower (durations times `slower`) and less coalesced, in place."""
    for result in run["results"]:
        if result["benchmark"] == instance_name(instance):
            duration = result["metrics"]["duration"]
            duration["samples"] = [round(x * slower, 1) for x in duration["samples"]]
            result["metrics"]["gld_efficiency"]["value"] = gld_efficiency
            return run
    raise ValueError(f"no instance {instance_name(instance)} in run {run['uuid']}")


def write_runs(path, runs):
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"format": "gpuperf-results", "version": 1, "runs": runs}, f)
