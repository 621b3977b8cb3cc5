#!/usr/bin/env python3
"""bench/record/record_matrix.py's handling of the programs it is given, before anything runs (no GPU)."""
import os
import stat
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.join(HERE, "..", "..", "bench", "record")
sys.path.insert(0, BENCH)
import record_matrix  # noqa: E402


def make_executable(folder, name):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


class Executable(unittest.TestCase):
    def test_a_bare_name_is_found_on_path_as_a_shell_would(self):
        with tempfile.TemporaryDirectory() as d:
            made = make_executable(d, "gpuperf")
            old = os.environ["PATH"]
            os.environ["PATH"] = d + os.pathsep + old
            try:
                self.assertEqual(record_matrix.executable("--gpuperf", "gpuperf"), os.path.abspath(made))
            finally:
                os.environ["PATH"] = old

    def test_a_relative_path_is_made_absolute(self):
        with tempfile.TemporaryDirectory() as d:
            make_executable(d, "record_probe")
            old = os.getcwd()
            os.chdir(d)
            try:
                self.assertEqual(record_matrix.executable("--probe", "./record_probe"),
                                 os.path.join(os.path.realpath(d), "record_probe"))
            finally:
                os.chdir(old)

    def test_a_missing_or_not_executable_program_is_refused_before_any_run_or_folder(self):
        with tempfile.TemporaryDirectory() as d:
            plain_file = os.path.join(d, "not-executable")
            open(plain_file, "w").close()
            out = os.path.join(d, "out")
            env = dict(os.environ, PATH=d)  # nothing called gpuperf on it
            for args, said in ((["--gpuperf", "gpuperf-nowhere", "--probe", "/bin/true"],
                                "--gpuperf gpuperf-nowhere: no such executable on PATH"),
                               (["--gpuperf", "/bin/true", "--probe", plain_file],
                                f"--probe {plain_file}: no such executable")):
                p = subprocess.run([sys.executable, os.path.join(BENCH, "record_matrix.py"), *args, "--out", out],
                                   capture_output=True, text=True, env=env)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertIn(said, p.stderr)
                self.assertNotIn("Traceback", p.stderr)
                self.assertFalse(os.path.exists(out))


def recorded_run(**over):
    """One recorded run as run_recorded returns it, clean unless `over` says otherwise."""
    r = {"rc": 0, "stdout": "", "stderr": "", "exit": 0, "signal": None, "launches": {("k", "{}"): 1},
         "kill_lines": [], "not_flushed": False, "counters": None, "by_rank": {}, "hung": False, "wall": 1.0,
         "profile_ns": [], "wrong_kind": [], "metric_errors": False}
    r.update(over)
    return r


class DistributedCells(unittest.TestCase):
    def test_per_rank_counts_and_stored_ranks_are_read_from_the_lines_that_give_them(self):
        text = "loss 1.0\nrank 1 launches 890 communication 84\nrank 0 launches 889 communication 84\n"
        self.assertEqual(record_matrix.rank_counts(text), {0: 889, 1: 890})
        self.assertEqual(record_matrix.rank_counts("rank 0 launches -1 communication -1\n"), {})
        stderr = ("stored run 5f0c-a (id 1, program torch_ddp, rank 0 of 2 (local rank 0), 31 kernels) in x.db\n"
                  "stored run 5f0c-b (id 2, program torch_ddp, rank 1 of 2 (local rank 1), 31 kernels) in x.db\n"
                  "stored run 5f0c-c (id 3, program app, 4 kernels) in x.db\n")
        self.assertEqual(record_matrix.stored_ranks(stderr), {"5f0c-a": 0, "5f0c-b": 1})

    def test_communication_is_told_by_the_libraries_patterns(self):
        self.assertTrue(record_matrix.is_communication("torch_ddp/ncclDevKernel_AllReduce_Sum_f32_RING_LL"))
        self.assertTrue(record_matrix.is_communication("x/ncclKernel_AllGather_RING_LL_Sum_int8_t"))
        self.assertFalse(record_matrix.is_communication("torch_ddp/at::native::vectorized_elementwise_kernel<4>"))

    def test_each_rank_is_judged_against_its_own_count(self):
        reference = {0: 889, 1: 890}
        good = [recorded_run(by_rank={0: 889, 1: 890}) for _ in range(3)]
        cell = record_matrix.judge(good, [0], "ranks", None, reference)
        self.assertEqual(cell["launches"], "= (every run)")
        self.assertEqual(cell["bad"], 0)
        # Totals that agree but ranks that do not (a rank's launches stored under the other) are a failure,
        # and so is a rank missing from the run.
        swapped = record_matrix.judge([recorded_run(by_rank={0: 890, 1: 889})], [0], "ranks", None, reference)
        self.assertEqual(swapped["bad"], 1)
        self.assertIn("1 differ, worst 1", swapped["launches"])
        lost = record_matrix.judge([recorded_run(by_rank={0: 889})], [0], "ranks", None, reference)
        self.assertEqual(lost["bad"], 1)
        self.assertIn("1 unknown", lost["launches"])
        # No count to judge by: never clean.
        self.assertEqual(record_matrix.judge(good, [0], "ranks", None, None)["bad"], 1)

    def test_a_hung_run_fails_its_cell(self):
        runs = [recorded_run(by_rank={0: 889, 1: 890}), recorded_run(by_rank={0: 889, 1: 890}, hung=True)]
        cell = record_matrix.judge(runs, [0], "ranks", None, {0: 889, 1: 890})
        self.assertEqual(cell["hung"], 1)
        self.assertEqual(cell["bad"], 1)

    def test_run_bounded_kills_the_whole_process_group_at_the_timeout(self):
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "grandchild-lived")
            # A child that starts a grandchild which would write the marker after 3 s.
            script = f"(sleep 3; touch {marker}) & sleep 30"
            p, hung = record_matrix.run_bounded(["sh", "-c", script], 0.5)
            self.assertTrue(hung)
            self.assertIn("killed at --run-timeout", p.stderr)
            time.sleep(3.5)
            self.assertFalse(os.path.exists(marker), "the grandchild outlived the timeout")
            p, hung = record_matrix.run_bounded(["sh", "-c", "echo done"], 5)
            self.assertFalse(hung)
            self.assertEqual(p.stdout, "done\n")


    def test_runs_left_at_the_deadline_are_killed_with_their_children(self):
        import threading
        with tempfile.TemporaryDirectory() as d:
            marker = os.path.join(d, "grandchild-lived")
            t = threading.Thread(target=record_matrix.run_bounded,
                                 args=(["sh", "-c", f"(sleep 2; touch {marker}) & sleep 30"], 0))
            t.start()
            give_up = time.time() + 5
            while not record_matrix.RUNNING and time.time() < give_up:
                time.sleep(0.05)
            self.assertEqual(len(record_matrix.RUNNING), 1)
            record_matrix.kill_running()
            t.join(5)
            self.assertFalse(t.is_alive())
            self.assertEqual(record_matrix.RUNNING, set())
            time.sleep(2.5)
            self.assertFalse(os.path.exists(marker))


class ProfilingCost(unittest.TestCase):
    def test_w_lines_give_the_cost_per_launch_without_those_given_up(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "process-10.txt"), "w") as f:
                f.write("P 10 1 0 app\nW 1 100000000\nW 2 300000000\nG 3 30000 k 1 1 1 32 1 1 0\n"
                        "W 3 31000000000\nZ\n")
            with open(os.path.join(d, "process-11.txt"), "w") as f:
                f.write("P 11 1 0 app\nW 7 200000000\nZ\n")
            with open(os.path.join(d, "other.txt"), "w") as f:
                f.write("W 9 999\n")
            self.assertEqual(sorted(record_matrix.profile_times(d)), [100000000, 200000000, 300000000])
        self.assertEqual(record_matrix.profile_times(""), [])

    def test_percentiles_and_the_lines_under_the_table(self):
        self.assertIsNone(record_matrix.percentile([], 50))
        values = list(range(1, 101))
        self.assertEqual(record_matrix.percentile(values, 50), 50)
        self.assertEqual(record_matrix.percentile(values, 95), 95)
        self.assertEqual(record_matrix.percentile([7], 95), 7)
        runs = [recorded_run(profile_ns=[100e6, 120e6, 400e6], wall=30.0), recorded_run(profile_ns=[110e6], wall=34.0),
                recorded_run(profile_ns=[], wall=99.0, hung=True)]
        lines = record_matrix.describe_costs([("gpt2", "record --metrics default", runs, 15.0)])
        self.assertEqual(lines, ["gpt2 record --metrics default: profiling per launch median 110.0 ms, p95 400.0 ms "
                                 "(4 profiled launches in 3 runs); wall median 30.0 s against 15.0 s plain (2.00x)"])


if __name__ == "__main__":
    unittest.main()
