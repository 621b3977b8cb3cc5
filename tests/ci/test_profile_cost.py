#!/usr/bin/env python3
"""bench/record/profile_cost.py: its table from hand-written logs (--from-log), and a stand-in program's run
through it, killed when it hangs (--run-timeout). No GPU: the "gpuperf" is a script printing what the real one
and the injection library's trace print."""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "bench", "record", "profile_cost.py")

RECORDED = """gpuperf-profile first_kernel: setup 300.0 flush_l2 0.5 begin 140.0 call 20.0 end 0.0 ms (group 0, begun)
gpuperf-profile b: setup 0.0 flush_l2 0.1 begin 3.0 call 50.0 end 0.0 ms (group 1, restarted)
gpuperf-profile c: setup 0.0 flush_l2 0.1 begin 3.0 call 70.0 end 0.0 ms (group 2, restarted)
gpuperf-profile d: setup 0.0 flush_l2 0.1 begin 140.0 call 90.0 end 0.0 ms (group 0, begun)
gpuperf-profile sessions: 11.5 ms ending kept ones; 2 begun, 2 restarted; ended by other_launch 1 capture_begin 1
gpuperf: metrics: counters for 3 of 4 identities (the first 3 launches of each are profiled), 1 of them partial (their profiled launches did not cover every metric group); 1 left unprofiled: the time budget
# wall 12.500 exit 0
"""


class ProfileCost(unittest.TestCase):
    def test_table_from_logs(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "gpt2-plain.log"), "w") as f:
                f.write("launches -1\n# wall 5.000 exit 0\n")
            with open(os.path.join(d, "gpt2-now.log"), "w") as f:
                f.write(RECORDED)
            p = subprocess.run([sys.executable, SCRIPT, "--from-log", d, "--only", "gpt2"], capture_output=True,
                               text=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            # The first launch (set-up) is left out: 53.1, 73.1 and 230.1 ms; median 73.1, p95 the largest.
            self.assertIn("| gpt2 now | 0 / 0 | 4 | 73.1 | 230.1 | 460.5 | 2 / 2 | 3/4 (1 partial) | 12.5 / 5.0 |",
                          p.stdout)
            self.assertIn("gpt2 now: sessions ended by other_launch 1 capture_begin 1; 11.5 ms ending kept sessions",
                          p.stdout)
            # By group, the first launch left out: group 0 begun 230.1 (140, 90), 1 and 2 restarted; two of the
            # three took at most 100 ms.
            self.assertIn("gpt2 now: group 0 begun: 1, median 230.1 ms (begin 140.0, call 90.0); group 1 restarted: 1, "
                          "median 53.1 ms (begin 3.0, call 50.0); group 2 restarted: 1, median 73.1 ms (begin 3.0, "
                          "call 70.0); 2 of 3 launches at most 100 ms", p.stdout)

    def test_a_hung_program_is_killed_and_the_exit_differs(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "fake-gpuperf")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\nsleep 30\n")
            os.chmod(fake, 0o755)
            p = subprocess.run([sys.executable, SCRIPT, "--gpuperf", fake, "--probe", "/bin/true", "--out", d,
                                "--only", "cpp-graph", "--run-timeout", "1"], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)  # recorded -9, plain 0
            self.assertIn("| cpp-graph now | -9 / 0 |", p.stdout)
            with open(os.path.join(d, "cpp-graph-now.log")) as f:
                self.assertIn("# killed after 1.0 s", f.read())

    def test_a_silent_run_has_its_stacks_taken_and_is_killed(self):
        with tempfile.TemporaryDirectory() as d:
            fake = os.path.join(d, "fake-gpuperf")
            with open(fake, "w") as f:  # one trace line, then nothing: a stop
                f.write("#!/bin/sh\necho 'gpuperf-profile k: begin 1.0 call 2.0 ms (group 0, begun)'\nexec sleep 30\n")
            os.chmod(fake, 0o755)
            p = subprocess.run([sys.executable, SCRIPT, "--gpuperf", fake, "--probe", "/bin/true", "--out", d,
                                "--only", "cpp-graph", "--stall-seconds", "2", "--run-timeout", "25"],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("| cpp-graph now | -9 / 0 |", p.stdout)
            with open(os.path.join(d, "cpp-graph-now.log")) as f:
                text = f.read()
            self.assertIn("# silent for 2.0 s, stacks in cpp-graph-now.log.stacks; killed after", text)
            wall = float(text.rsplit("# wall ", 1)[1].split()[0])
            self.assertLess(wall, 20.0)  # the stall, not the timeout, ended it
            with open(os.path.join(d, "cpp-graph-now.log.stacks")) as f:
                stacks = f.read()
            self.assertRegex(stacks, r"=== pid \d+: sleep 30")
            self.assertRegex(stacks, r"thread \d+ sleep: state S")


if __name__ == "__main__":
    unittest.main()
