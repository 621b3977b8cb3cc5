#!/usr/bin/env bash
# Quick start, second command: install what is missing, build everything, run every test.
# Tests labelled `gpu` skip cleanly on a machine without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh --test
# The C++ and CUDA sources are formatted as .clang-format says; an unformatted file fails here, before the build.
bash ci/format_check.sh
cmake --workflow --preset default
# The CLI, db and reports suites again, under AddressSanitizer and UndefinedBehaviorSanitizer (build-sanitize/).
bash ci/sanitize.sh
