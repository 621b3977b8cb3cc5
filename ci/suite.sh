#!/usr/bin/env bash
# Quick start, first command: install what is missing, build in Release, run the benchmark suite into
# ./gpuperf.db (or $GPUPERF_DB) and write a report. Without a GPU it says so and exits 3.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup.sh
cmake --preset default >/dev/null
cmake --build --preset default -j "$(nproc)" --target gpuperf >/dev/null
./build/cli/gpuperf run "$@"
