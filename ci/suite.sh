#!/usr/bin/env bash
# Quick start, first command: install what is missing, build in Release, run the benchmark suite into
# ./gpuperf.db (or $GPUPERF_DB) and write the HTML and Markdown reports into ./gpuperf-report/.
# Without a GPU it says so and exits 3. Extra arguments go to `gpuperf run` (e.g. --quick, --filter matmul).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
bash "$repo/ci/setup.sh"
(cd "$repo" && cmake --preset default >/dev/null && cmake --build --preset default -j "$(nproc)" --target gpuperf >/dev/null)
gpuperf=$repo/build/cli/gpuperf
rc=0
"$gpuperf" run "$@" || rc=$?
# 4 (a wrong answer) still stored a run worth reporting; anything else but 0 stops here.
if [[ $rc -ne 0 && $rc -ne 4 ]]; then exit "$rc"; fi
"$gpuperf" report --out gpuperf-report
exit "$rc"
