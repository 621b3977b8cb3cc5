#!/usr/bin/env python3
"""bench/record/record_overhead_ab.py's statistics on made-up loop times with known answers (no GPU)."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench", "record")
sys.path.insert(0, BENCH)
import record_overhead_ab as ab  # noqa: E402


class PairRatios(unittest.TestCase):
    def test_neighbouring_loops_pair_whichever_comes_first(self):
        loops = [(1.10, "on"), (1.00, "off"), (2.00, "off"), (2.20, "on")]
        self.assertEqual([round(r, 12) for r in ab.pair_ratios(loops)], [0.1, 0.1])

    def test_a_pair_of_one_kind_and_a_lone_loop_are_left_out(self):
        loops = [(1.0, "on"), (1.0, "on"), (1.05, "on"), (1.0, "off"), (3.0, "off")]
        self.assertEqual([round(r, 12) for r in ab.pair_ratios(loops)], [0.05])


class Table(unittest.TestCase):
    def write_log(self, path, processes):
        with open(path, "w") as f:
            f.write("# a line that is not a process\n")
            for i, loops in enumerate(processes):
                f.write(f"proc torch all {i} {' '.join(f'{v}:{t}' for v, t in loops)}\n")
            f.write("proc torch write 0 1.01:on 1.0:off\n")

    def test_a_level_that_moves_between_processes_cancels_in_the_pairs(self):
        # Three processes at levels 10% apart, each with ours on exactly 0.5% slower than off in every pair: the
        # pairs say +0.50% with an interval of zero width, though the levels differ by 20%.
        processes = []
        for level in (1.0, 1.1, 1.2):
            loops = []
            for k in range(4):
                on, off = (level * 1.005, "on"), (level, "off")
                loops += [on, off] if k % 2 == 0 else [off, on]
            processes.append(loops)
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "ab-runs.txt")
            self.write_log(log, processes)
            out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--from-log", log,
                                  "--only", "torch"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = [line for line in out.stdout.splitlines() if line.startswith("| torch")]
        self.assertEqual(len(rows), 2, out.stdout)  # one row per program and paused parts
        cells = [c.strip() for c in rows[0].strip("|").split("|")]
        self.assertEqual(cells[1:4], ["all", "3", "12"])  # paused, processes, pairs
        self.assertEqual(cells[6], "+0.50% [+0.50 .. +0.50] (+0.50 .. +0.50)")
        self.assertEqual(cells[7], "+0.50% .. +0.50%")
        self.assertEqual([c.strip() for c in rows[1].strip("|").split("|")][1:4], ["write", "1", "1"])

    def test_the_interval_is_the_order_statistics_of_the_pairs(self):
        # 12 pairs with ratios -5%..+6% in 1% steps: median +0.5%; for n = 12 the 95% interval of the median
        # is the 3rd and 10th smallest (P(Binomial(12, 1/2) <= 2) = 0.019 <= 0.025 < P(<= 3) = 0.073).
        ratios = [r / 100 for r in range(-5, 7)]
        loops = []
        for k, r in enumerate(ratios):
            on, off = (1.0 + r, "on"), (1.0, "off")
            loops += [on, off] if k % 2 == 0 else [off, on]
        text = ab.table({("torch", "all"): [loops]}, {"torch": "s"})
        row = [line for line in text.splitlines() if line.startswith("| torch")][0]
        self.assertIn("+0.50% [", row)
        self.assertIn("(-3.00 .. +4.00)", row)


class Variants(unittest.TestCase):
    def test_a_variant_is_labelled_without_spaces_and_read_as_its_program(self):
        self.assertEqual(ab.variant_label("torch", "", 0), "torch")
        self.assertEqual(ab.variant_label("torch", " --layer-ranges  --emit-nvtx", 100),
                         "torch:--layer-ranges--emit-nvtx@flush100ms")
        self.assertEqual(ab.variant_label("tiny", "--layer-ranges", 0), "tiny")  # torch's options are torch's
        self.assertEqual(ab.variant_label("tiny", "", 250), "tiny:@flush250ms")
        self.assertEqual(ab.base_program("torch:--layer-ranges@flush100ms"), "torch")

    def test_a_log_of_variants_gives_a_row_each_under_its_program(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "ab-runs.txt")
            with open(log, "w") as f:
                f.write("proc torch:--layer-ranges flush 0 1.02:on 1.0:off 1.0:off 1.02:on\n")
                f.write("proc torch:@flush100ms flush 0 1.10:on 1.0:off\n")
                f.write("proc tiny:@flush100ms flush 0 5.0:on 5.0:off\n")
            out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--from-log", log,
                                  "--only", "torch"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in out.stdout.splitlines()
                if line.startswith("| torch")]
        self.assertEqual([r[0] for r in rows], ["torch:--layer-ranges", "torch:@flush100ms"])
        self.assertEqual(rows[0][3], "2")  # pairs
        self.assertTrue(rows[0][4].endswith(" s"), rows[0])  # torch's unit, read through the label
        self.assertEqual(rows[1][6], "+10.00% [+10.00 .. +10.00] (+10.00 .. +10.00)")
        self.assertNotIn("tiny", out.stdout)


class StepMedians(unittest.TestCase):
    def test_a_measure_is_read_as_its_program_with_its_own_unit(self):
        units = {"torch": "s", "tiny": "us/launch"}
        self.assertEqual(ab.base_program("torch/step"), "torch")
        self.assertEqual(ab.base_program("torch:--layer-ranges@flush100ms/step"), "torch")
        self.assertEqual(ab.unit_of("torch:--layer-ranges/step", units), "us/step (median)")
        self.assertEqual(ab.unit_of("torch:--layer-ranges", units), "s")
        self.assertEqual(ab.unit_of("tiny:@flush100ms", units), "us/launch")

    def test_the_flush_line_gives_the_median_call_and_the_longest(self):
        # Per process: 10 ms in 10 calls (1 ms a call), 6 ms in 2 (3), 4 ms in 8 (0.5): median 1 ms a call. As a
        # share of its period: 1/1000, 3/100, 0.5/1000: median 0.1%.
        line = ab.flush_line([("torch", 10.0, 10, 2.5), ("torch:@flush100ms", 6.0, 2, 4.0), ("tiny", 4.0, 8, 0.75),
                              ("tiny", 0.0, 0, 0.0)])
        self.assertIn("(3 processes, 20 calls)", line)
        self.assertIn("a median 1.000 ms a call (processes 0.500 .. 3.000), the longest 4.000 ms; at one call a "
                      "period, at most 0.100% of the program's time", line)
        self.assertIn("not reported", ab.flush_line([]))
        self.assertEqual(ab.flush_period_ms("torch:--layer-ranges@flush250ms/step"), 250)
        self.assertEqual(ab.flush_period_ms("torch/step"), 1000)

    def test_records_own_time_line_is_read(self):
        # The wording of profiler/record/recorder/recorder.cpp's describe_own_work (tests/record/test_recorder.cpp).
        text = ("gpuperf's own time inside the program: 0.000 ms on its threads; CUPTI's part of the periodic flush "
                "took 1234.500 ms in 1,017 calls on gpuperf's flush thread (the longest 12.250 ms)\n")
        m = ab.FLUSH_RE.search(text)
        self.assertIsNotNone(m)
        self.assertEqual((m[1], m[2], m[3]), ("1234.500", "1,017", "12.250"))

    def test_the_kept_h200_logs_give_the_figures_the_docs_quote(self):
        # bench/record/results keeps the three H200 calls' logs; docs/record-ends.md and README quote their pooled rows.
        log = os.path.join(BENCH, "results", "record-overhead-ab-h200-ce3fbb4.txt")
        out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--from-log", log,
                              "--only", "torch"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        rows = {c[0]: c for c in ([x.strip() for x in line.strip("|").split("|")]
                                  for line in out.stdout.splitlines() if line.startswith("| torch"))}
        self.assertEqual(rows["torch"][2:4], ["42", "840"])
        self.assertEqual(rows["torch"][6], "+0.34% [-4.86 .. +7.05] (-0.28 .. +1.26)")
        self.assertEqual(rows["torch/step"][6], "+0.24% [-5.78 .. +7.35] (-0.53 .. +0.98)")
        self.assertIn("(42 processes, 591 calls): a median 1.636 ms a call (processes 1.200 .. 2.232), the longest "
                      "5.825 ms; at one call a period, at most 0.164%", out.stdout)
        with open(os.path.join(HERE, "..", "..", "docs", "record-ends.md")) as f:
            docs = f.read()
        self.assertIn("-0.53 .. +0.98", docs)
        self.assertIn("-0.28 .. +1.26", docs)

    def test_a_run_logs_and_tables_the_loop_and_its_median_step_side_by_side(self):
        # A stand-in for `gpuperf record -- torch_loop.py --ab`: 4 loops, on 2% slower in loop time (its noise)
        # and 0.5% slower in the median step; record's own-time line on stderr.
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "gpuperf")
            with open(fake, "w") as f:
                f.write("#!/usr/bin/env python3\nimport sys\n"
                        "for tag in ('on', 'off', 'off', 'on'):\n"
                        "    on = tag == 'on'\n"
                        "    print(f'loop_s {1.02 if on else 1.0:.6f} ours {tag}')\n"
                        "    print(f'step_us_median {2010.0 if on else 2000.0:.3f} ours {tag}')\n"
                        "print(\"gpuperf's own time inside the program: 0.000 ms on its threads; CUPTI's part of the "
                        "periodic flush took 3.000 ms in 2 calls on gpuperf's flush thread (the longest 2.000 ms)\", "
                        "file=sys.stderr)\n")
            os.chmod(fake, 0o755)
            out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--gpuperf", fake,
                                  "--probe", fake, "--out", d, "--only", "torch", "--procs", "2", "--pairs", "2",
                                  "--pause", "all", "--pause", "write"], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            with open(os.path.join(d, "ab-runs.txt")) as f:
                log = f.read()
            again = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--from-log",
                                    os.path.join(d, "ab-runs.txt"), "--only", "torch"], capture_output=True, text=True)
        rows = [[c.strip() for c in line.strip("|").split("|")] for line in out.stdout.splitlines()
                if line.startswith("| torch")]
        self.assertEqual([(r[0], r[1]) for r in rows],
                         [("torch", "all"), ("torch/step", "all"), ("torch", "write"), ("torch/step", "write")])
        self.assertEqual(rows[0][3], "4")  # pairs: 2 processes x 2
        self.assertEqual(rows[0][6], "+2.00% [+2.00 .. +2.00] (+2.00 .. +2.00)")
        self.assertEqual(rows[1][4], "2010 us/step (median)")
        self.assertEqual(rows[1][6], "+0.50% [+0.50 .. +0.50] (+0.50 .. +0.50)")
        self.assertIn("(4 processes, 8 calls): a median 1.500 ms a call (processes 1.500 .. 1.500), the longest "
                      "2.000 ms", out.stdout)
        self.assertEqual(log.count("\nflush torch "), 4)  # a line each process, after its loops
        self.assertTrue(log.startswith("proc torch all 0 1.02:on"), log[:80])
        # The log gives the same table again.
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual([line for line in again.stdout.splitlines() if line.startswith("| torch")],
                         [line for line in out.stdout.splitlines() if line.startswith("| torch")])
        self.assertIn("a median 1.500 ms a call", again.stdout)

    def test_a_loop_without_its_median_step_stops_the_run(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "gpuperf")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\nprintf 'loop_s 1.0 ours on\\nloop_s 1.0 ours off\\n'\n")
            os.chmod(fake, 0o755)
            out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--gpuperf", fake,
                                  "--probe", fake, "--out", d, "--only", "torch", "--procs", "1", "--pairs", "1"],
                                 capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("0 step lines for 2 loops", out.stderr)


class Arguments(unittest.TestCase):
    def test_an_option_torch_loop_does_not_have_is_refused_before_anything_runs(self):
        out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--gpuperf", "x",
                              "--probe", "y", "--out", "z", "--torch-args", "--layer-ranges --fast"],
                             capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--torch-args: '--fast'", out.stderr)
        out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--gpuperf", "x",
                              "--probe", "y", "--out", "z", "--flush-ms", "-5"], capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--flush-ms must be 0", out.stderr)

    def test_an_unknown_program_is_refused_with_its_name(self):
        out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--from-log", "x",
                              "--only", "jax"], capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("unknown program 'jax'", out.stderr)

    def test_an_unknown_part_to_pause_is_refused(self):
        out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--from-log", "x",
                              "--pause", "nvtx,disk"], capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("--pause 'nvtx,disk'", out.stderr)

    def test_running_needs_the_binaries(self):
        out = subprocess.run([sys.executable, os.path.join(BENCH, "record_overhead_ab.py"), "--only", "tiny"],
                             capture_output=True, text=True)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("need --gpuperf, --probe and --out", out.stderr)


if __name__ == "__main__":
    unittest.main()
