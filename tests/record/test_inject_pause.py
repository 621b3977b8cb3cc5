#!/usr/bin/env python3
"""The injection library's overhead pause (GPUPERF_RECORD_OVERHEAD_AB, profiler/record/inject/inject.cpp) on a machine
without a GPU: loaded against CUDA's stub driver, InitializeInjection opens its record file and reads the
variable before CUPTI refuses to trace; gpuperf_record_overhead_ours must then answer 0 for the parts it
knows and -1, with an X line in the record file naming the bad value, for the rest.

    test_inject_pause.py LIBGPUPERF_INJECT_SO [CUDA_STUBS_DIR]

Exits 77 (skipped) when CUDA's stub driver is not installed.
"""
import os
import subprocess
import sys
import tempfile

CHILD = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
before = lib.gpuperf_record_overhead_ours(0)
lib.InitializeInjection()
print(before, lib.gpuperf_record_overhead_ours(0), lib.gpuperf_record_overhead_ours(1))
"""


def main():
    lib = os.path.abspath(sys.argv[1])
    stubs = sys.argv[2] if len(sys.argv) > 2 else "/usr/local/cuda/lib64/stubs"
    stub = os.path.join(stubs, "libcuda.so")
    if not os.path.isfile(stub):
        print(f"skip: no CUDA stub driver at {stub}")
        return 77
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        os.symlink(stub, os.path.join(d, "libcuda.so.1"))  # the soname the library asks for
        cases = [("all", "-1 0 0", None), ("1", "-1 0 0", None), ("nvtx,flush", "-1 0 0", None),
                 ("write", "-1 0 0", None), ("nvtx,disk", "-1 -1 -1", "GPUPERF_RECORD_OVERHEAD_AB='nvtx,disk'"),
                 ("nvtx,", "-1 -1 -1", "GPUPERF_RECORD_OVERHEAD_AB='nvtx,'"), (None, "-1 -1 -1", None)]
        for value, expected, x_line in cases:
            rec = os.path.join(d, "rec-" + str(len(os.listdir(d))))
            os.mkdir(rec)
            env = dict(os.environ, GPUPERF_RECORD_DIR=rec,
                       LD_LIBRARY_PATH=d + os.pathsep + os.environ.get("LD_LIBRARY_PATH", ""))
            env.pop("GPUPERF_RECORD_OVERHEAD_AB", None)
            if value is not None:
                env["GPUPERF_RECORD_OVERHEAD_AB"] = value
            p = subprocess.run([sys.executable, "-c", CHILD, lib], env=env, capture_output=True, text=True, timeout=60)
            files = [os.path.join(rec, f) for f in os.listdir(rec)]
            text = open(files[0]).read() if files else ""
            got = p.stdout.strip()
            ok = p.returncode == 0 and got == expected and text.startswith("P ")
            ok = ok and ((x_line is None and "OVERHEAD_AB" not in text) or (x_line is not None and x_line in text))
            print(f"{'ok  ' if ok else 'FAIL'} GPUPERF_RECORD_OVERHEAD_AB={value!r}: answers {got!r} "
                  f"(expected {expected!r}){'' if ok else chr(10) + p.stderr[-800:] + text}")
            failures += not ok
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
