#!/usr/bin/env bash
# Issue 53 on a GPU: the source lines under a duration finding, for the project's FMA patch
# (bench/detect/patches/split_fma.patch, matmul.cu under -fmad=false) and for a user's own project
# (bench/gpu/user_project: bench/detect/plants/polynomial.cu, a kernel in an anonymous namespace whose inlined
# helper's multiply-add edit.sh splits in two, and a template kernel of it instantiated twice, plant/horner_n),
# each by `check` and by `bisect`, the user project also by four nights of ci/nightly.sh; then the same binaries
# run from copies with their source trees moved away (relative paths, the same lines, text from the binary, from
# the history of the source tree's runs, "(text from run N)", or said missing once); and test_source_lines_gpu run from a copy away from any source tree.
#
#   bash bench/gpu/lines_user_project_gpu.sh --prepare [--headers DIR]     # here: the dev headers to carry
#   bash bench/gpu/lines_user_project_gpu.sh PHASE [--headers DIR] [--work DIR] [--build DIR]
#
# PHASE, in order (each under 10 minutes on an H200 machine, state kept in --work, default
# /tmp/gpuperf-lines53): install (build this tree's gpuperf and install it; ~4 min), user (the user project:
# history, check, bisect), nightly (after user: its before and after binaries as four nights, the edit landing
# on the fourth; detect must name the helper's line first), fma (the FMA patch: history, check), fma-bisect,
# away (the copies; after user and fma), test
# (test_source_lines_gpu from a copy; needs --build, default ./build, with tests/collector/test_source_lines_gpu
# and profiler/libgpuperf_cupti.so built on the CPU machine), or all. Needs cmake, g++, nvcc; SQLite's
# header, nlohmann-json and CLI11 come from --headers (default .gpuhdr, as bench/detect/bisect_gpu.sh --prepare
# fills it). Nothing is downloaded.
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
headers=$repo/.gpuhdr
work=/tmp/gpuperf-lines53
cpu_build=$repo/build
phase=${1:-}
shift || true
while (($#)); do
  case "$1" in
    --headers) headers=$(realpath -m "$2"); shift 2 ;;
    --work) work=$(realpath -m "$2"); shift 2 ;;
    --build) cpu_build=$(realpath -m "$2"); shift 2 ;;
    *) echo "lines_user_project_gpu: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [[ $phase == --prepare ]]; then exec bash "$repo/bench/detect/bisect_gpu.sh" --prepare --headers "$headers"; fi
case "$phase" in install | user | nightly | fma | fma-bisect | away | test | all) ;;
  *) echo "usage: lines_user_project_gpu.sh --prepare|install|user|nightly|fma|fma-bisect|away|test|all [...]" >&2
    exit 2 ;;
esac

mkdir -p "$work/bins" "$work/out"
out=$work/out
prefix=$work/prefix
export LD_LIBRARY_PATH=$headers/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GIT_AUTHOR_NAME=lines GIT_AUTHOR_EMAIL=lines@example.com GIT_COMMITTER_NAME=lines
export GIT_COMMITTER_EMAIL=lines@example.com
# Shell words for eval (bisect runs --build through a shell too): the prefix path's ';' stays quoted.
deps="'-DCMAKE_PREFIX_PATH=$prefix;$headers' -DSQLite3_INCLUDE_DIR=$headers/include \
-DSQLite3_LIBRARY=$headers/lib/libsqlite3.so.0 -DPostgreSQL_INCLUDE_DIR=$headers/include/postgresql \
-DPostgreSQL_LIBRARY=$headers/lib/libpq.so.5 -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release"
gp_build="cmake -S . -B build $deps -DGPUPERF_BUILD_TESTS=OFF -DGPUPERF_INSTALL=OFF >/dev/null && \
cmake --build build -j $(nproc) --target gpuperf gpuperf_cupti >/dev/null"
user_build="cmake -S . -B build $deps >/dev/null && cmake --build build -j $(nproc) >/dev/null"
gp=$prefix/bin/gpuperf
# The user project's instances: the kernel, and the template kernel's two instantiations.
user_filter='^plant/(polynomial|horner_n)'
# The helper's line after the edit (bench/gpu/user_project/edit.sh).
helper_line='return __fadd_rn(__fmul_rn(acc, x), c);'

# history DIR EDIT: 8 commits of the tree already in DIR, EDIT applied at commit 5 (HEAD~2).
history() {
  local dir=$1 edit=$2
  git -C "$dir" init -q -b main
  for i in $(seq 0 7); do
    echo "commit $i" >"$dir/bisect_marker.txt"
    local msg="trivial change $i"
    if ((i == 5)); then (cd "$dir" && eval "$edit") || return 1; msg="the edit"; fi
    git -C "$dir" add -A && git -C "$dir" commit -q -m "$msg"
  done
}

# show TITLE FILE: the finding rows and the lines under them (of a check: the duration rows, their source lines,
# the notes and the verdict).
show() {
  echo "== $1 ==" | tee -a "$out/summary.txt"
  grep -vE '^\s*$' "$2" | grep -E '^(note|warning|gpuperf|base |candidate|benchmark |gate|REGRESSION|OK)|^\S+\s+duration |^    ' |
    head -40 | tee -a "$out/summary.txt"
}

# check_pair NAME DIR BUILD BINARY FILTER: run at HEAD~3 (before the edit), `check` at HEAD~2 (the edit).
check_pair() {
  local name=$1 dir=$2 build=$3 binary=$4 filter=$5 db=$out/$1-check.db
  rm -f "$db"
  (cd "$dir" && git checkout -q HEAD~3 2>/dev/null || git checkout -q main~3) || return 1
  (cd "$dir" && eval "$build" && cp "$binary" "$work/bins/$name-before" &&
    ./"$binary" --quiet --db "$db" run --filter "$filter" --branch main >"$out/$name-run.txt" 2>&1)
  local base; base=$(git -C "$dir" rev-parse HEAD)
  (cd "$dir" && git checkout -q main~2 && eval "$build" && cp "$binary" "$work/bins/$name-after" &&
    { [[ ! -f build/profiler/libgpuperf_cupti.so ]] || cp build/profiler/libgpuperf_cupti.so "$work/bins/$name-cupti.so"; } &&
    ./"$binary" --db "$db" check --baseline "$base" --filter "$filter" --all --format text \
      >"$out/$name-check.txt" 2>&1)
  echo "$base" >"$work/bins/$name-base-commit"
  git -C "$dir" rev-parse HEAD >"$work/bins/$name-edit-commit"
  git -C "$dir" checkout -q main
  show "$name: check of the edit against the commit before" "$out/$name-check.txt"
}

bisect() {
  local name=$1 dir=$2 build=$3 binary=$4 filter=$5 t0=$SECONDS
  (cd "$dir" && git checkout -q main && timeout 540 "$gp" --db "$out/$name-bisect.db" bisect --good main~7 \
    --bad main --build "$build" --bench "$binary" --filter "$filter" --metric duration --format text) \
    >"$out/$name-bisect.txt" 2>"$out/$name-bisect.err"
  echo "exit $?, $((SECONDS - t0)) s; the edit: $(git -C "$dir" rev-parse main~2)" >>"$out/$name-bisect.txt"
  echo "== $name: bisect main~7..main ==" | tee -a "$out/summary.txt"
  grep -vE '^\s*$' "$out/$name-bisect.txt" | head -40 | tee -a "$out/summary.txt"
  tail -3 "$out/$name-bisect.err"
}

phase_install() {
  local src=$work/gp-src t0=$SECONDS
  rm -rf "$src" && mkdir -p "$src" && git -C "$repo" archive HEAD | tar -x -C "$src"
  (cd "$src" && eval "cmake -S . -B build $deps -DGPUPERF_BUILD_TESTS=OFF -DCMAKE_INSTALL_PREFIX='$prefix'" >/dev/null &&
    cmake --build build -j "$(nproc)" >"$out/install-build.txt" 2>&1 && cmake --install build >/dev/null) ||
    { tail -20 "$out/install-build.txt"; return 1; }
  echo "installed gpuperf in $prefix in $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
}

phase_user() {
  local dir=$work/user
  rm -rf "$dir" && mkdir -p "$dir" && cp "$repo/bench/gpu/user_project/CMakeLists.txt" "$dir/" &&
    cp "$repo/bench/detect/plants/polynomial.cu" "$dir/poly.cu"
  history "$dir" "bash '$repo/bench/gpu/user_project/edit.sh' poly.cu" || return 1
  check_pair user "$dir" "$user_build" build/poly_bench "$user_filter"
  bisect user "$dir" "$user_build" build/poly_bench "$user_filter"
}

# The user project's history as nightly runs (bench/detect/nightly_step_gpu.sh: ci/nightly.sh a night): three
# nights of the build before the edit, then the edit's. The fourth night exits 1 with instructions in the duration's
# finding, and the summary names the helper's line first among plant/polynomial's lines.
phase_nightly() {
  local bins=$work/bins night=$out/user-nightly t0=$SECONDS
  [[ -x $bins/user-before && -x $bins/user-after ]] || { echo "no $bins/user-before|after: run the user phase first" >&2; return 2; }
  rm -rf "$night"
  bash "$repo/bench/detect/nightly_step_gpu.sh" --landed "$bins/user-before" --edited "$bins/user-after" \
    --out "$night" --filter "$user_filter" --instance plant/polynomial --expect instructions \
    --expect-line "$helper_line" >"$out/user-nightly.txt" 2>&1
  local rc=$?
  { echo "== user: four nights of ci/nightly.sh, the edit on the fourth (nightly_step_gpu.sh exit $rc, $((SECONDS - t0)) s) =="
    sed -n '/^night /,$p' "$out/user-nightly.txt" | head -30
    # detect's changes of the fourth night (ci/nightly.sh's changes.md): the duration findings and their lines.
    echo "-- detect (artifacts/changes.md), duration findings and the lines under them:"
    grep -E 'duration|^\s*[-*] |poly\.cu' "$night/artifacts/changes.md" 2>/dev/null | head -20
    # Per instance, the first line the summary names under its duration finding must be the helper's.
    local firsts
    firsts=$(awk '/^Source lines that moved:/ { keep = 1; next }
      keep && /^- / && index($0, " duration: ") { k = substr($0, 1, index($0, " duration: ")); if (!(k in seen)) { seen[k] = 1; print } }' \
      "$night/summary-2026-01-04.md" 2>/dev/null)
    echo "first line named per instance:"
    echo "${firsts:-  (none)}"
    if [[ -n $firsts ]] && ! grep -vFq -- "$helper_line" <<<"$firsts"; then
      echo "nightly: OK, the helper's line first under each duration finding"
    else
      echo "nightly: FAILED, not the helper's line first under every duration finding"
    fi
  } | tee -a "$out/summary.txt"
}

phase_fma() {
  local dir=$work/fma
  rm -rf "$dir" && mkdir -p "$dir" && git -C "$repo" archive HEAD | tar -x -C "$dir"
  history "$dir" "git apply bench/detect/patches/split_fma.patch" || return 1
  check_pair fma "$dir" "$gp_build" build/cli/gpuperf '^matmul/naive'
}

phase_fma_bisect() { bisect fma "$work/fma" "$gp_build" build/cli/gpuperf '^matmul/naive'; }

# away NAME DIR FILTER: the stored before/after binaries run from copies with DIR moved away.
away_pair() {
  local name=$1 dir=$2 filter=$3 db=$out/$1-away.db copy=$work/away/$1
  rm -rf "$copy" "$db" && mkdir -p "$copy"
  cp "$work/bins/$name-before" "$work/bins/$name-after" "$copy/"
  local base edit; base=$(cat "$work/bins/$name-base-commit"); edit=$(cat "$work/bins/$name-edit-commit")
  # The CUPTI module that matches the binaries: the one built beside them (the FMA tree's gpuperf), else the
  # installed package's (the user project links the package, whose module it finds by itself).
  local module=$work/bins/$name-cupti.so
  [[ -f $module ]] || module=$(find "$prefix" -name libgpuperf_cupti.so -print -quit)
  export GPUPERF_CUPTI_MODULE=$module
  echo "$name: GPUPERF_CUPTI_MODULE=$module" >>"$out/summary.txt"
  mv "$dir" "$dir.away"
  (cd "$copy" && ./"$name-before" --quiet --db "$db" run --filter "$filter" --commit "$base" --branch main \
    >"$out/$name-away-run.txt" 2>&1 &&
    ./"$name-after" --db "$db" check --baseline "$base" --commit "$edit" --filter "$filter" --all --format text \
      >"$out/$name-away-check.txt" 2>&1)
  # The same check from the copy into the history the source tree's check stored (the same commits, with their
  # text): the lines without text take the history's, "(text from run N)" (reports/analysis/line_history.hpp).
  local hist=$out/$name-away-history.db
  rm -f "$hist"*
  "$gp" --db "$out/$name-check.db" db backup "$hist" >/dev/null 2>&1 &&
    (cd "$copy" && ./"$name-after" --db "$hist" check --baseline "$base" --commit "$edit" --filter "$filter" --all \
      --format text >"$out/$name-away-history.txt" 2>&1)
  mv "$dir.away" "$dir"
  show "$name: the same check from copies, sources moved away" "$out/$name-away-check.txt"
  show "$name: from copies into the source tree's history (text from the history)" "$out/$name-away-history.txt"
}

phase_away() {
  away_pair user "$work/user" "$user_filter"
  away_pair fma "$work/fma" '^matmul/naive'
}

phase_test() {
  local t=$cpu_build/tests/collector/test_source_lines_gpu copy=$work/away/test
  [[ -x $t ]] || { echo "no $t: build test_source_lines_gpu and gpuperf_cupti on the CPU machine, carry build" >&2; return 2; }
  rm -rf "$copy" && mkdir -p "$copy" && cp "$t" "$copy/"
  (cd "$copy" && GPUPERF_CUPTI_MODULE=$cpu_build/profiler/libgpuperf_cupti.so ./test_source_lines_gpu) \
    >"$out/test_source_lines_gpu.txt" 2>&1
  echo "test_source_lines_gpu from $copy: exit $?" | tee -a "$out/summary.txt"
  grep -E 'lines \([0-9]+ with text\)|^\[  (PASSED|FAILED) ' "$out/test_source_lines_gpu.txt" | head -30 |
    tee -a "$out/summary.txt"
}

case "$phase" in
  install) phase_install ;;
  user) phase_user ;;
  nightly) phase_nightly ;;
  fma) phase_fma ;;
  fma-bisect) phase_fma_bisect ;;
  away) phase_away ;;
  test) phase_test ;;
  all) phase_install && phase_user && phase_nightly && phase_fma && phase_fma_bisect && phase_away && phase_test ;;
esac
