#!/usr/bin/env python3
"""bench/gpu/ncu_compare.py's verdicts on made-up gpuperf and ncu outputs with known answers."""
import csv
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "gpu", "ncu_compare.py")

LD = "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"
WR = "dram__bytes_write.sum"
RD = "dram__bytes_read.sum"
OCC = "sm__warps_active.avg.pct_of_peak_sustained_active"
INSTANCES = ["memory/coalesced", "matvec/naive[m=8]"]


def gpuperf_json(path, values, timing=None):
    """values: {instance: {metric: value}}; timing: the process's own seconds (default: start 0.2, sessions 0.3)"""
    perfworks = {"gld_efficiency": ([LD], "%"), "dram_bytes_written": ([WR], "bytes"),
                 "dram_bytes_read": ([RD], "bytes"), "achieved_occupancy": ([OCC], "%")}
    results = []
    for name in INSTANCES:
        metrics = {m: {"unit": perfworks[m][1], "perfworks": perfworks[m][0], "status": "ok", "value": v}
                   for m, v in values[name].items()}
        metrics["registers"] = {"unit": "count", "status": "ok", "value": 10}  # static: not compared
        results.append({"instance": name, "status": "ok", "metrics": metrics})
    with open(path, "w") as f:
        doc = {"results": results, "init_seconds": 0.2, "collect_seconds": 0.3, "passes": 3, "sessions": 1}
        doc.update(timing or {})
        json.dump(doc, f)


def ncu_csv(path, rows):
    """rows: one {perfworks: value} per kernel, in launch order; written as ncu --csv --page raw does."""
    names = sorted({k for r in rows for k in r})
    with open(path, "w", newline="") as f:
        f.write("==PROF== Connected to process 1\n")
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Kernel Name"] + names)
        w.writerow(["", ""] + ["unit"] * len(names))
        for i, r in enumerate(rows):
            w.writerow([str(i), "k"] + [f"{r[n]:,}" if isinstance(r[n], int) else str(r[n]) for n in names])
    with open(path + ".order", "w") as f:
        f.write("\n".join(INSTANCES) + "\n")
    return [path, path + ".order"]


class NcuCompare(unittest.TestCase):
    def run_compare(self, ours, full, drams, colds=(), repeats=(), times=(0, 8, 16.5, 17, 30), timing=None):
        with tempfile.TemporaryDirectory() as d:
            args = [sys.executable, SCRIPT]
            for i, v in enumerate(ours):
                gpuperf_json(f"{d}/g{i}.json", v, timing)
                args += ["--gpuperf", f"{d}/g{i}.json"]
            args += ["--ncu"] + ncu_csv(f"{d}/full.csv", full)
            for i, r in enumerate(drams):
                args += ["--ncu-dram"] + ncu_csv(f"{d}/dram{i}.csv", r)
            for i, r in enumerate(colds):
                args += ["--ncu-dram-cold"] + ncu_csv(f"{d}/cold{i}.csv", r)
            for i, r in enumerate(repeats):
                args += ["--ncu-repeat"] + ncu_csv(f"{d}/rep{i}.csv", r)
            args += ["--times"] + [str(t) for t in times]
            p = subprocess.run(args, capture_output=True, text=True)
        return p.returncode, p.stdout

    @staticmethod
    def row(out, instance, metric):
        for line in out.splitlines():
            cells = [c.strip() for c in line.split("|")]
            if len(cells) > 3 and cells[1] == instance and cells[2] == metric:
                return cells
            if metric is None and len(cells) > 3 and cells[1] == instance:
                return cells
        raise AssertionError(f"no row for {instance} {metric} in:\n{out}")

    def ours(self, wr_coalesced, occ=50.0, eff=100.0):
        return {"memory/coalesced": {"gld_efficiency": eff, "dram_bytes_written": wr_coalesced,
                                     "dram_bytes_read": 1000000, "achieved_occupancy": occ},
                "matvec/naive[m=8]": {"gld_efficiency": 82.5, "dram_bytes_written": 0,
                                      "dram_bytes_read": 4000, "achieved_occupancy": 30.0}}

    @staticmethod
    def ncu_full(occ=50.0, eff=100.0):
        return [{LD: eff, WR: 999, RD: 999, OCC: occ}, {LD: 82.5, WR: 999, RD: 999, OCC: 30.0}]

    @staticmethod
    def ncu_dram(wr):
        return [{RD: 1000000, WR: wr}, {RD: 4000, WR: 0}]

    def test_everything_agreeing_passes_and_prints_the_speedup(self):
        rc, out = self.run_compare([self.ours(45000000)], self.ncu_full(), [self.ncu_dram(45100000)])
        self.assertEqual(rc, 0, out)
        self.assertEqual(self.row(out, "memory/coalesced", "dram_bytes_written")[-2], "ok")
        self.assertIn("10.0x (required: 8x)", out)  # ncu adds 13 - 8 = 5 s, gpuperf 0.5 s in the process
        self.assertIn("| memory/coalesced gld_efficiency | 100 | 100.00 | ok |", out)
        self.assertIn("| matmul/naive[n=1024] gld_efficiency | 56.25 | not profiled | - |", out)
        self.assertNotIn("registers", out)

    def test_a_deterministic_metric_off_by_more_than_half_a_point_fails(self):
        rc, out = self.run_compare([self.ours(45000000, eff=99.4)], self.ncu_full(), [self.ncu_dram(45000000)])
        self.assertEqual(rc, 1)
        self.assertEqual(self.row(out, "memory/coalesced", "gld_efficiency")[-2], "MISMATCH")
        self.assertIn("memory/coalesced gld_efficiency: gpuperf 99.4, ncu 100", out)

    def test_dram_uses_the_median_of_both_tools_and_ncus_own_range(self):
        # gpuperf's median 46.0M; ncu's same-state median 45.0M (2.2% off) but its runs reach 46.3M.
        ours = [self.ours(v) for v in (46000000, 40000000, 46100000)]
        drams = [self.ncu_dram(v) for v in (45000000, 44900000, 45200000)]
        rc, out = self.run_compare(ours, self.ncu_full(), drams, colds=[self.ncu_dram(46300000)])
        self.assertEqual(rc, 0, out)
        cells = self.row(out, "memory/coalesced", "dram_bytes_written")
        self.assertEqual(cells[3:5], ["46000000", "45000000"])
        self.assertEqual(cells[-2], "ok, within ncu's spread")
        self.assertIn("40000000 .. 46100000", cells[6])
        # metric | agree | within ncu's spread | outside | ncu's runs disagreeing among themselves (3% apart)
        self.assertEqual(self.row(out, "dram_bytes_written", None)[1:7], ["dram_bytes_written", "1", "0", "1", "0", "1"])

    def test_dram_outside_ncus_range_widened_by_the_tolerance_fails(self):
        drams = [self.ncu_dram(v) for v in (45000000, 45100000)]
        rc, out = self.run_compare([self.ours(47000000)], self.ncu_full(), drams, colds=[self.ncu_dram(45500000)])
        self.assertEqual(rc, 1)
        self.assertEqual(self.row(out, "memory/coalesced", "dram_bytes_written")[-2], "MISMATCH")
        self.assertIn("(ncu's runs 4.5e+07 .. 4.55e+07)", out)

    def test_dram_bytes_small_against_the_kernels_traffic_agree_with_their_own_verdict(self):
        ours = self.ours(45000000)
        ours["matvec/naive[m=8]"].update({"dram_bytes_read": 400000000, "dram_bytes_written": 22000})
        big = [{RD: 1000000, WR: 45000000}, {RD: 400000000, WR: 60000}]
        rc, out = self.run_compare([ours], self.ncu_full(), [big])
        self.assertEqual(rc, 0, out)
        # 38 kB apart, 63% of the value, but under 0.1% of 400 MB of traffic
        self.assertEqual(self.row(out, "matvec/naive[m=8]", "dram_bytes_written")[-2], "ok, < 0.1% of its DRAM traffic")
        # the floor scales with the traffic: 38 kB off a 1 MB kernel is a mismatch
        small = [{RD: 1000000, WR: 45000000}, {RD: 1000000, WR: 60000}]
        ours["matvec/naive[m=8]"]["dram_bytes_read"] = 1000000
        rc, out = self.run_compare([ours], self.ncu_full(), [small])
        self.assertEqual(rc, 1)
        self.assertEqual(self.row(out, "matvec/naive[m=8]", "dram_bytes_written")[-2], "MISMATCH")

    def test_noisy_metrics_compare_with_the_median_of_ncus_runs(self):
        reps = [[{OCC: 51.0}, {OCC: 30.0}], [{OCC: 50.9}, {OCC: 30.0}]]
        rc, out = self.run_compare([self.ours(45000000, occ=51.2)], self.ncu_full(occ=49.0),
                                   [self.ncu_dram(45000000)], repeats=reps)
        self.assertEqual(rc, 0, out)
        cells = self.row(out, "memory/coalesced", "achieved_occupancy")
        self.assertEqual(cells[4], "50.90")  # median of 49.0, 51.0, 50.9
        self.assertEqual(cells[-2], "ok")

    def test_a_start_beside_the_verification_counts_only_what_was_waited_for(self):
        # CUPTI started in 0.2 s beside the verification, 0.05 s of it waited for: 5 s / 0.35 s.
        rc, out = self.run_compare([self.ours(45000000)], self.ncu_full(), [self.ncu_dram(45000000)],
                                   timing={"init_wait_seconds": 0.05})
        self.assertEqual(rc, 0, out)
        self.assertIn("14.3x (required: 8x)", out)
        self.assertIn("starting CUPTI 0.20, waited for 0.05, sessions 0.30", out)

    def test_too_slow_a_collection_fails(self):
        rc, out = self.run_compare([self.ours(45000000)], self.ncu_full(), [self.ncu_dram(45000000)],
                                   times=(0, 8, 16.5, 17, 26))
        self.assertEqual(rc, 1)
        self.assertIn("only 2.0x faster", out)


if __name__ == "__main__":
    unittest.main()
