#!/usr/bin/env python3
"""The injection library writes the process's place in a distributed job (RANK, LOCAL_RANK, WORLD_SIZE) as an
A line right after its P line, on a machine without a GPU: loaded against CUDA's stub driver, InitializeInjection
opens its record file and writes both before CUPTI refuses to trace (profiler/record/inject/inject.cpp).

    test_inject_rank.py LIBGPUPERF_INJECT_SO [CUDA_STUBS_DIR]

Exits 77 (skipped) when CUDA's stub driver is not installed.
"""
import os
import subprocess
import sys
import tempfile

CHILD = "import ctypes, sys; ctypes.CDLL(sys.argv[1]).InitializeInjection()"


def main():
    lib = os.path.abspath(sys.argv[1])
    stubs = sys.argv[2] if len(sys.argv) > 2 else "/usr/local/cuda/lib64/stubs"
    stub = os.path.join(stubs, "libcuda.so")
    if not os.path.isfile(stub):
        print(f"skip: no CUDA stub driver at {stub}")
        return 77
    failures = 0
    # (RANK, LOCAL_RANK, WORLD_SIZE) as set (None: unset) -> the A line expected (None: no A line)
    cases = [(("3", "1", "4"), "A 3 1 4"), (("0", None, "2"), "A 0 - 2"), ((None, "1", None), "A - 1 -"),
             (("x", "1", "2"), "A - 1 2"), (("-1", None, None), None), ((None, None, None), None),
             (("7 ", "", "2"), "A - - 2")]
    with tempfile.TemporaryDirectory() as d:
        os.symlink(stub, os.path.join(d, "libcuda.so.1"))  # the soname the library asks for
        for i, (values, expected) in enumerate(cases):
            rec = os.path.join(d, f"rec-{i}")
            os.mkdir(rec)
            env = dict(os.environ, GPUPERF_RECORD_DIR=rec,
                       LD_LIBRARY_PATH=d + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
            for name, value in zip(("RANK", "LOCAL_RANK", "WORLD_SIZE"), values):
                env.pop(name, None)
                if value is not None:
                    env[name] = value
            p = subprocess.run([sys.executable, "-c", CHILD, lib], env=env, capture_output=True, text=True, timeout=60)
            files = [os.path.join(rec, f) for f in os.listdir(rec)]
            lines = open(files[0]).read().splitlines() if files else []
            got = [line for line in lines if line.startswith("A ")]
            ok = p.returncode == 0 and lines[:1] and lines[0].startswith("P ")
            ok = ok and (got == [] if expected is None else got == [expected] and lines[1] == expected)
            print(f"{'ok  ' if ok else 'FAIL'} RANK, LOCAL_RANK, WORLD_SIZE = {values}: {got} (expected {expected!r})"
                  f"{'' if ok else chr(10) + p.stderr[-800:] + chr(10).join(lines)}")
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
