#!/usr/bin/env python3
"""Which launches `record --metrics` profiled, from a --keep-records folder: the launches of the kernels matching
REGEX in each process's order (by correlation id; a K line, or the I line of a launch instrumented for source
lines), and which of them have counters (an M or Q line).

    launch_skip_check.py KEEP_DIR REGEX [--expect-profiled 6,7,8] [--expect-only]

Prints "matched N: 1 2 ... (profiled marked *)" and the other kernels' profiled launches, if any. With
--expect-profiled (1-based positions among the matched launches), exit 1 unless exactly those are profiled;
--expect-only: exit 1 if a launch of a kernel that does not match REGEX is profiled. Standard library only.
"""
import argparse
import os
import re
import sys


def read(folder):
    """Each process file's launches (correlation, kernel name) in call order, and the correlations with counters.
    A launch instrumented for source lines has no K line (tracing is paused around it): its I line names it,
    by a J line's function id."""
    launches, profiled = [], set()
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            names, functions, traced, instrumented = {}, {}, {}, {}
            with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    kind, _, rest = line.rstrip("\n").partition(" ")
                    fields = rest.split(" ")
                    if kind == "N" and fields:
                        names[fields[0]] = rest.partition(" ")[2]
                    elif kind == "J" and fields:
                        functions[fields[0]] = rest.partition(" ")[2]
                    elif kind == "K" and len(fields) >= 13:
                        traced[int(fields[3])] = ("N", fields[12])
                    elif kind == "I" and len(fields) >= 11:
                        instrumented[int(fields[0])] = ("J", fields[10])
                    elif kind in ("M", "Q") and fields:
                        profiled.add((f, int(fields[0])))
            for corr, (table, key) in sorted({**instrumented, **traced}.items()):
                name = (names if table == "N" else functions).get(key, "?")
                launches.append(((f, corr), name))
    return launches, profiled


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder")
    ap.add_argument("regex")
    ap.add_argument("--expect-profiled", default=None)
    ap.add_argument("--expect-only", action="store_true")
    a = ap.parse_args()
    launches, profiled = read(a.folder)
    rx = re.compile(a.regex)
    matched = [(c, n) for c, n in launches if rx.search(n)]
    others = [(c, n) for c, n in launches if not rx.search(n) and c in profiled]
    marks = " ".join(f"{i + 1}{'*' if c in profiled else ''}" for i, (c, _) in enumerate(matched))
    print(f"matched {len(matched)} of {len(launches)} launches: {marks} (* profiled)")
    print(f"profiled launches of other kernels: {len(others)}"
          + (": " + ", ".join(sorted({n[:60] for _, n in others})) if others else ""))
    ok = True
    if a.expect_profiled is not None:
        want = {int(x) for x in a.expect_profiled.split(",") if x}
        got = {i + 1 for i, (c, _) in enumerate(matched) if c in profiled}
        if got != want:
            print(f"FAIL: profiled positions {sorted(got)}, expected {sorted(want)}")
            ok = False
    if a.expect_only and others:
        print("FAIL: launches outside the selection were profiled")
        ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
