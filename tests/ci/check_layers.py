#!/usr/bin/env python3
"""The layers depend downward only (README "Layout"): each folder may include its own headers and those of
the layers below it, never one above. core/, db/ and reports/ include no CUDA, CUPTI or NVTX header.

    check_layers.py [ROOT]        exit 0 when the tree keeps the rules, 1 with one line per violation
    check_layers.py --self-test   builds a small tree with each kind of violation and checks they are caught
"""
import os
import re
import sys
import tempfile

# folder -> the project folders its sources may include from (itself included).
ALLOWED = {
    "core": {"core"},
    "kernels": {"core", "kernels"},
    "profiler": {"core", "kernels", "profiler"},
    "db": {"core", "db"},
    "reports": {"core", "db", "reports"},
    "cli": {"core", "kernels", "profiler", "db", "reports", "cli"},
}
# Layers that build with the host compiler alone, on a machine with no GPU.
NO_CUDA = {"core", "db", "reports"}
CUDA_HEADER = re.compile(r"^(cuda|cupti|nvtx|nvperf|nvml|cuda_runtime|device_launch)", re.I)
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_EXT = (".hpp", ".cpp", ".cu", ".cuh", ".h", ".cxx")


def violations(root):
    found = []
    for layer, allowed in ALLOWED.items():
        base = os.path.join(root, layer)
        for dirpath, _, files in os.walk(base):
            for name in sorted(files):
                if not name.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for lineno, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        target = m.group(2)
                        top = target.split("/", 1)[0]
                        if "/" in target and top in ALLOWED and top not in allowed:
                            found.append(f"{rel}:{lineno}: {layer}/ includes \"{target}\" from {top}/, a layer "
                                         f"above it (allowed: {', '.join(sorted(allowed))})")
                        if layer in NO_CUDA and CUDA_HEADER.match(os.path.basename(target)):
                            found.append(f"{rel}:{lineno}: {layer}/ includes the GPU header <{target}>; "
                                         f"{layer}/ must build without CUDA")
    return found


def self_test():
    cases = {
        "kernels/bad.hpp": '#include "profiler/runner.hpp"\n',
        "core/bad.hpp": '#include "db/store.hpp"\n',
        "db/bad.cpp": '#include <cuda_runtime.h>\n',
        "reports/bad.cpp": '  #  include "cli/context.hpp"\n',
    }
    fine = {"reports/ok.cpp": '#include "db/store.hpp"\n#include "core/result.hpp"\n#include <vector>\n',
            "kernels/ok.cu": '#include <cuda_runtime.h>\n#include "core/errors.hpp"\n'}
    with tempfile.TemporaryDirectory() as root:
        for rel, text in {**cases, **fine}.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        got = violations(root)
        flagged = {v.split(":", 1)[0] for v in got}
        ok = flagged == set(cases)
        print(f"self-test: {'ok' if ok else 'FAILED'}: flagged {sorted(flagged)}, expected {sorted(cases)}")
        return 0 if ok else 1


def main(argv):
    if argv[1:2] == ["--self-test"]:
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    found = violations(os.path.abspath(root))
    for v in found:
        print(v)
    print(f"layers: {'ok' if not found else f'{len(found)} violation(s)'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
