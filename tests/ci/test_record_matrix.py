#!/usr/bin/env python3
"""bench/record/record_matrix.py's handling of the programs it is given, before anything runs (no GPU)."""
import os
import stat
import subprocess
import sys
import tempfile
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


if __name__ == "__main__":
    unittest.main()
