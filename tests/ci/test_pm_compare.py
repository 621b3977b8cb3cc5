#!/usr/bin/env python3
"""bench/record/pm_compare.py: per identity, PM means against the range profiler's values from two hand-written
`gpuperf export` files (no GPU)."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "record", "pm_compare.py")
PARAMS = {"grid": "1056x1x1", "block": "256x1x1", "nvtx": "sol"}


def export(results):
    return {"format": "gpuperf-results", "version": 1, "runs": [{"results": results}]}


class PmCompare(unittest.TestCase):
    def test_means_against_the_range_profiler(self):
        pm = export([
            {"benchmark": "sol/strided_copy", "params": PARAMS, "metrics": {
                "gpu_time_total": {"unit": "ns", "value": 1e7},
                "pm_launches_in_window": {"unit": "count", "value": 20},
                "pm_launches_sampled": {"unit": "count", "value": 20},
                "pm_dram_throughput": {"unit": "%", "samples": [82.0, 82.6]}}},
            {"benchmark": "sol/fma_short", "params": PARAMS, "metrics": {
                "gpu_time_total": {"unit": "ns", "value": 1e5},
                "pm_launches_in_window": {"unit": "count", "value": 100},
                "pm_launches_sampled": {"unit": "count", "value": 60},
                "pm_dram_throughput": {"unit": "%", "status": "skipped", "message": "none"}}},
            {"benchmark": "sol/outside", "params": {"grid": "1x1x1"}, "metrics": {
                "gpu_time_total": {"unit": "ns", "value": 1e9}}}])
        rp = export([{"benchmark": "sol/strided_copy", "params": PARAMS, "metrics": {
            "dram_throughput": {"unit": "%", "samples": [83.0, 83.1, 82.9]}}}])
        with tempfile.TemporaryDirectory() as d:
            paths = []
            for name, doc in (("pm.json", pm), ("rp.json", rp)):
                paths.append(os.path.join(d, name))
                with open(paths[-1], "w") as f:
                    json.dump(doc, f)
            out = subprocess.run([sys.executable, SCRIPT, *paths, "--title", "T"], capture_output=True, text=True,
                                 check=True).stdout
        lines = out.splitlines()
        self.assertEqual(lines[0], "T")
        copy = next(line for line in lines if line.startswith("strided_copy"))
        self.assertIn("20/20", copy)
        self.assertIn("82.3 ( 0.4)  83.0   -0.7", copy)
        short = next(line for line in lines if line.startswith("fma_short"))
        self.assertIn("60/100", short)
        self.assertNotIn("outside", out)  # no PM measurement: not a row
        self.assertIn("launches with a sample: 80 of 120 in the window", lines[-1])
        self.assertIn("largest 0.7 points (1 pairs)", lines[-1])


if __name__ == "__main__":
    unittest.main()
