#!/usr/bin/env bash
# Issue 65 on a GPU (about 3 minutes on an H100): the build for every architecture (Turing to Blackwell) against
# the Hopper-only build, on this GPU.
#   1. `gpuperf metrics` of the GPU's own chip (the plan docs/gpus.md shows for it, asked of the device);
#   2. the default suite, RUNS runs of each build into one history (branch main, one commit): compare of the
#      first and last Hopper run (A/A), of the first and last fat run (A/A) and of the last Hopper run with the
#      last fat run (the same values expected): exit codes and the rows slower or faster;
#   3. `record --pm-sampling` of record_probe sol 20 with the fat bundle (the PM host object is shared code now):
#      its exit status and the pm_* metrics stored.
#
#   bench/gpu/fat_build_gpu.sh HOPPER_BUNDLE FAT_BUNDLE [OUT] [RUNS]
#
# A bundle holds gpuperf, libgpuperf_cupti.so and libgpuperf_inject.so (and, for 3, record_probe) of one build.
# OUT (default $OUT) gets the database, logs and table.txt; the table is printed last.
set -uo pipefail
# shellcheck disable=SC2034 # read as ${!build}
hop=$(cd "${1:?fat_build_gpu.sh HOPPER_BUNDLE FAT_BUNDLE [OUT] [RUNS]}" && pwd)
fat=$(cd "${2:?fat_build_gpu.sh HOPPER_BUNDLE FAT_BUNDLE [OUT] [RUNS]}" && pwd)
out=${3:-${OUT:?fat_build_gpu.sh: OUT}}
runs=${4:-3}
mkdir -p "$out"
out=$(cd "$out" && pwd)
db=$out/fat.db
table=$out/table.txt
: >"$table"
row() { printf '%-44s %s\n' "$1" "$2" | tee -a "$table"; }

rc=0
GPUPERF_CUPTI_MODULE=$fat/libgpuperf_cupti.so "$fat/gpuperf" metrics >"$out/metrics.txt" 2>&1 || rc=$?
row "gpuperf metrics (this GPU's chip)" "exit $rc: $(head -1 "$out/metrics.txt")"

ids=()
for build in hop fat; do
  dir=${!build}
  for i in $(seq "$runs"); do
    rc=0
    start=$SECONDS
    GPUPERF_CUPTI_MODULE=$dir/libgpuperf_cupti.so "$dir/gpuperf" --db "$db" run --branch main --commit feedc0de \
      --label "$build" >"$out/run-$build-$i.log" 2>&1 || rc=$?
    row "run $build $i" "exit $rc, $((SECONDS - start)) s"
    ids+=("$(GPUPERF_CUPTI_MODULE=$dir/libgpuperf_cupti.so "$dir/gpuperf" --db "$db" runs --format json |
      python3 -c 'import json,sys; print(json.load(sys.stdin)[-1]["id"])')")
  done
done
compare() { # NAME BASE CANDIDATE
  local rc=0
  "$fat/gpuperf" --db "$db" compare "$2" "$3" --format json >"$out/compare-$1.json" 2>"$out/compare-$1.err" || rc=$?
  local counts
  counts=$(python3 -c 'import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
by = {}
for r in rows:
    by[r["verdict"]] = by.get(r["verdict"], 0) + 1
moved = [r["benchmark"] + " " + r["metric"] for r in rows if r["verdict"] in ("slower", "faster")]
print(", ".join(f"{n} {v}" for v, n in sorted(by.items())) + ("; moved: " + "; ".join(moved[:6]) if moved else ""))' \
    "$out/compare-$1.json" 2>/dev/null)
  row "compare $1 (runs $2 -> $3)" "exit $rc: $counts"
}
compare "hopper A/A" "${ids[0]}" "${ids[runs - 1]}"
compare "fat A/A" "${ids[runs]}" "${ids[2 * runs - 1]}"
compare "hopper -> fat" "${ids[runs - 1]}" "${ids[2 * runs - 1]}"

if [[ -x $fat/record_probe ]]; then
  rc=0
  GPUPERF_INJECT_LIBRARY=$fat/libgpuperf_inject.so GPUPERF_CUPTI_MODULE=$fat/libgpuperf_cupti.so \
    "$fat/gpuperf" --db "$out/pm.db" record --pm-sampling --pm-sampling-nvtx sol -- "$fat/record_probe" sol 20 \
    >"$out/pm.log" 2>&1 || rc=$?
  pm=$("$fat/gpuperf" --db "$out/pm.db" export 2>/dev/null | python3 -c 'import json, sys
names = set()
for run in json.load(sys.stdin)["runs"]:
    for r in run["results"]:
        names |= {m for m in r["metrics"] if m.startswith("pm_")}
print(", ".join(sorted(names)) or "none")')
  row "record --pm-sampling record_probe sol 20" "exit $rc; stored: $pm"
fi
echo
cat "$table"
