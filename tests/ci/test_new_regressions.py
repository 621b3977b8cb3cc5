#!/usr/bin/env python3
"""ci/new_regressions.py on made-up detect outputs with known answers: what is new tonight, and in which
finding."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "ci", "new_regressions.py")


def change(metric, run_id, kind="regression", unconfirmed=False, bench="memory/coalesced", hints=(), pct=80.0,
           deterministic=False):
    return {"machine": "GPU-1", "benchmark": bench, "params": {"n": 16777216}, "metric": metric,
            "deterministic": deterministic, "commit": f"c{run_id}", "previous_commit": f"c{run_id - 1}",
            "run": f"uuid-{run_id}", "run_id": run_id, "previous_run_id": run_id - 1, "kind": kind,
            "change_pct": pct, "unconfirmed": unconfirmed, "runs_after": 1 if unconfirmed else 5,
            "hints": list(hints)}


def run(before, after):
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, changes in (("before", before), ("after", after)):
            paths.append(os.path.join(tmp, name + ".json"))
            with open(paths[-1], "w") as f:
                json.dump({"changes": changes}, f)
        md = os.path.join(tmp, "new.md")
        r = subprocess.run([sys.executable, SCRIPT, *paths, "--markdown", md], capture_output=True, text=True)
        with open(md) as f:
            return r.returncode, f.read()


class NewRegressions(unittest.TestCase):
    def test_a_step_tonight_is_one_finding_with_its_counters(self):
        gld = change("gld_efficiency", 20, deterministic=True, pct=-50.0)
        dur = change("duration", 20, unconfirmed=True, hints=["gld_efficiency 100% -> 50%"])
        code, md = run([], [dur, gld])
        self.assertEqual(code, 1)
        self.assertIn("**1 new regression tonight**", md)
        self.assertIn("| memory/coalesced[n=16777216] | duration | +80.0% | unconfirmed (1 run) | c20 | c19 | "
                      "gld_efficiency 100% -> 50% |", md)
        self.assertNotIn("| gld_efficiency |", md)

    def test_the_summary_names_the_source_lines_that_moved(self):
        dur = change("duration", 20, hints=["gld_efficiency 100% -> 50%"])
        dur["lines"] = [{"file": "kernels/memory_access.cu", "line": 29, "was_line": 23, "text": "if (i < n) out[j] = in[j];",
                         "summary": "kernels/memory_access.cu:29 (was :23)  if (i < n) out[j] = in[j];  global load "
                                    "sectors per request 4.0 -> 8.0 (ideal 4.0)"}]
        code, md = run([], [dur])
        self.assertEqual(code, 1)
        self.assertIn("Source lines that moved:\n\n- memory/coalesced[n=16777216] duration: kernels/memory_access.cu:29 "
                      "(was :23)  if (i &lt; n) out[j] = in[j];  global load sectors per request 4.0 -> 8.0 (ideal 4.0)\n",
                      md)
        # Without lines (runs before source lines existed): no such section.
        self.assertNotIn("Source lines", run([], [change("duration", 20)])[1])

    def test_confirmed_tonight_one_run_over_is_not_new(self):
        last_night = [change("duration", 20, unconfirmed=True)]
        for tonight in (change("duration", 20), change("duration", 21), change("duration", 19)):
            code, md = run(last_night, [tonight])
            self.assertEqual(code, 0, tonight["run_id"])
            self.assertIn("No new regressions tonight.", md)
        # Two runs over is another change; so is another instance's.
        self.assertEqual(run(last_night, [change("duration", 22)])[0], 1)
        self.assertEqual(run(last_night, [change("duration", 20, bench="memory/strided")])[0], 1)

    def test_a_counter_without_a_duration_change_is_listed_as_such(self):
        code, md = run([], [change("registers", 20, deterministic=True, pct=25.0)])
        self.assertEqual(code, 1)
        self.assertIn("| registers | +25.0% | confirmed | c20 | c19 | counter only: no duration change detected |", md)
        # A noisy counter one run off the duration change is the same finding; a deterministic one is not.
        occ = change("achieved_occupancy", 21, pct=-20.0)
        regs = change("registers", 21, deterministic=True, pct=25.0)
        code, md = run([], [change("duration", 20), occ, regs])
        self.assertIn("**2 new regressions tonight**", md)
        self.assertNotIn("| achieved_occupancy |", md)
        self.assertIn("| registers |", md)

    def test_a_counter_that_does_not_gate_is_listed_not_failed(self):
        stall = change("stall_not_selected", 20, unconfirmed=True, pct=25.0)
        stall["gated"] = False
        code, md = run([], [stall])
        self.assertEqual(code, 0)
        self.assertIn("No new regressions tonight.", md)
        self.assertIn("Also new, of metrics that do not gate (listed, not failed; `--gate METRIC` fails on them): "
                      "memory/coalesced[n=16777216] stall_not_selected +25.0%.", md)
        # The same change gated (--gate stall_not_selected), or from a detect without the field: it fails.
        stall["gated"] = True
        self.assertEqual(run([], [stall])[0], 1)
        del stall["gated"]
        self.assertEqual(run([], [stall])[0], 1)

    def test_improvements_are_no_alarm_and_bad_input_is_exit_2(self):
        self.assertEqual(run([], [change("duration", 20, kind="improvement", pct=-30.0)])[0], 0)
        with tempfile.NamedTemporaryFile("w", suffix=".json") as bad:
            bad.write("{}")
            bad.flush()
            r = subprocess.run([sys.executable, SCRIPT, bad.name, bad.name], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2)


if __name__ == "__main__":
    unittest.main()
