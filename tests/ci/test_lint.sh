#!/usr/bin/env bash
# The CI recipes are lint-clean: yamllint (repo .yamllint), shellcheck, and the Python helpers compile.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
for tool in yamllint shellcheck python3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (run: bash ci/setup.sh --test)" >&2; exit 1; }
done
yamllint -s ci/github-actions.yml ci/gitlab-ci.yml
shellcheck ci/*.sh ci/slurm-nightly.sbatch tests/ci/*.sh tests/package/*.sh tests/record/*.sh bench/*/*.sh bench/detect/plants/*.sh
python3 -m py_compile ci/new_regressions.py tests/ci/make_nights.py tests/ci/make_team_week.py tests/ci/test_printed_names.py tests/ci/make_fleet.py bench/store/nightly_load.py bench/store/nightly_load_tally.py \
  bench/store/suite_runs.py bench/store/throwaway_pg.py bench/store/pg_vs_sqlite.py bench/detect/detect_nightly.py
# The record file is written and read through its codec alone (profiler/record/record_codec.hpp): every line the
# injected library writes is an encode(...) of a line struct, and the recorder parses no line kind by hand.
by_hand=$(grep -rnE 'write_line\(' profiler/record/inject --include='*.cpp' | grep -v 'void write_line' | grep -v 'write_line(encode(' || true)
[[ -z $by_hand ]] || { echo "FAIL: a record-file line written without the codec:" >&2; echo "$by_hand" >&2; exit 1; }
parsed=$(grep -rnE "case '[A-Za-z]':" profiler/record/recorder --include='*.cpp' || true)
[[ -z $parsed ]] || { echo "FAIL: a record-file line kind parsed outside the codec:" >&2; echo "$parsed" >&2; exit 1; }
echo "lint: ok"
