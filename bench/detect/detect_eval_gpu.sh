#!/usr/bin/env bash
# A/A of `gpuperf compare` and a `gpuperf check` on a real GPU: two runs of one binary must compare with no
# slower/faster row (exit 0), and check against the first run must pass. Prints the tables it gets.
#
#   bash bench/detect/detect_eval_gpu.sh                  # builds ./build-gpu when needed; results in $OUT
#   FILTER='matmul|memory' METRICS=none bash bench/detect/detect_eval_gpu.sh
set -uo pipefail
BUILD=${BUILD:-build-gpu}
OUT=${OUT:-/tmp/gpuperf-aa}
FILTER=${FILTER:-}
METRICS=${METRICS:-default}
mkdir -p "$OUT"
if [ ! -x "$BUILD/cli/gpuperf" ]; then
  echo "building $BUILD ..."
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGPUPERF_BUILD_TESTS=OFF > "$OUT/configure.log" 2>&1 || {
    tail -20 "$OUT/configure.log"; exit 3; }
  cmake --build "$BUILD" -j"$(nproc)" --target gpuperf > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 3; }
fi
G=("$BUILD/cli/gpuperf" --db "$OUT/aa.db")
COMMIT=${COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo 0000000000000000000000000000000000000000)}
common=(--branch main --commit "$COMMIT" --metrics "$METRICS")
[ -n "$FILTER" ] && common+=(--filter "$FILTER")

echo "== run 1 (label nightly)"
start=$(date +%s)
"${G[@]}" -q run "${common[@]}" --label nightly > "$OUT/run1.txt" 2> "$OUT/run1.err"; echo "exit $? ($(( $(date +%s) - start )) s)"
RERUNS=${RERUNS:-3}
for i in $(seq 1 "$RERUNS"); do
  echo "== rerun $i: the same binary again (label rerun$i)"
  "${G[@]}" -q run "${common[@]}" --label "rerun$i" > "$OUT/rerun$i.txt" 2> "$OUT/rerun$i.err"; echo "exit $?"
done
for i in $(seq 1 "$RERUNS"); do
  echo "== compare label:nightly label:rerun$i (A/A)"
  "${G[@]}" compare label:nightly "label:rerun$i" --junit "$OUT/aa$i.xml" > "$OUT/compare_aa$i.txt"
  echo "compare exit $?"
  tail -2 "$OUT/compare_aa$i.txt"
  "${G[@]}" compare label:nightly "label:rerun$i" --format json > "$OUT/compare_aa$i.json"
done
"${G[@]}" compare label:nightly label:rerun1 --all > "$OUT/compare_aa_all.txt"
echo "== check --baseline label:nightly (the pre-merge job, same binary)"
check=(--baseline label:nightly --branch feature --commit "$COMMIT" --metrics "$METRICS")
[ -n "$FILTER" ] && check+=(--filter "$FILTER")
"${G[@]}" -q check "${check[@]}" > "$OUT/check.txt" 2> "$OUT/check.err"; rc=$?
tail -4 "$OUT/check.txt"; echo "check exit $rc"
"${G[@]}" runs
