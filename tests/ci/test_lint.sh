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
echo "lint: ok"
