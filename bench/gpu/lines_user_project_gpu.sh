#!/usr/bin/env bash
# Issue 53 on a GPU: the source lines under a duration finding, for the project's FMA patch
# (bench/detect/patches/split_fma.patch, matmul.cu under -fmad=false) and for a user's own project
# (bench/gpu/user_project: bench/detect/plants/polynomial.cu, a kernel in an anonymous namespace whose inlined
# helper's multiply-add edit.sh splits in two), each by `check` and by `bisect`; then the same binaries run from copies with their source
# trees moved away (relative paths, the same lines, text from the binary or said missing once); and
# test_source_lines_gpu run from a copy away from any source tree.
#
#   bash bench/gpu/lines_user_project_gpu.sh --prepare [--headers DIR]     # here: the dev headers to carry
#   bash bench/gpu/lines_user_project_gpu.sh PHASE [--headers DIR] [--work DIR] [--build DIR]
#
# PHASE, in order (each under 10 minutes on an H200 machine, state kept in --work, default
# /tmp/gpuperf-lines53): install (build this tree's gpuperf and install it; ~4 min), user (the user project:
# history, check, bisect), fma (the FMA patch: history, check), fma-bisect, away (the copies), test
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
case "$phase" in install | user | fma | fma-bisect | away | test | all) ;;
  *) echo "usage: lines_user_project_gpu.sh --prepare|install|user|fma|fma-bisect|away|test|all [...]" >&2; exit 2 ;;
esac

mkdir -p "$work/bins" "$work/out"
out=$work/out
prefix=$work/prefix
export LD_LIBRARY_PATH=$headers/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GIT_AUTHOR_NAME=lines GIT_AUTHOR_EMAIL=lines@example.com GIT_COMMITTER_NAME=lines
export GIT_COMMITTER_EMAIL=lines@example.com
# Shell words for eval (bisect runs --build through a shell too): the prefix path's ';' stays quoted.
deps="'-DCMAKE_PREFIX_PATH=$prefix;$headers' -DSQLite3_INCLUDE_DIR=$headers/include \
-DSQLite3_LIBRARY=$headers/lib/libsqlite3.so.0 -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release"
gp_build="cmake -S . -B build $deps -DGPUPERF_BUILD_TESTS=OFF -DGPUPERF_INSTALL=OFF >/dev/null && \
cmake --build build -j $(nproc) --target gpuperf gpuperf_cupti >/dev/null"
user_build="cmake -S . -B build $deps >/dev/null && cmake --build build -j $(nproc) >/dev/null"
gp=$prefix/bin/gpuperf

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

# show TITLE FILE: the finding rows and the lines under them.
show() {
  echo "== $1 ==" | tee -a "$out/summary.txt"
  grep -vE '^\s*$' "$2" | head -40 | tee -a "$out/summary.txt"
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
  show "$name: bisect main~7..main" "$out/$name-bisect.txt"
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
  check_pair user "$dir" "$user_build" build/poly_bench '^plant/polynomial'
  bisect user "$dir" "$user_build" build/poly_bench '^plant/polynomial'
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
  mv "$dir" "$dir.away"
  (cd "$copy" && ./"$name-before" --quiet --db "$db" run --filter "$filter" --commit "$base" --branch main \
    >"$out/$name-away-run.txt" 2>&1 &&
    ./"$name-after" --db "$db" check --baseline "$base" --commit "$edit" --filter "$filter" --all --format text \
      >"$out/$name-away-check.txt" 2>&1)
  mv "$dir.away" "$dir"
  show "$name: the same check from copies, sources moved away" "$out/$name-away-check.txt"
}

phase_away() {
  export GPUPERF_CUPTI_MODULE=${GPUPERF_CUPTI_MODULE:-$prefix/lib/gpuperf/libgpuperf_cupti.so}
  [[ -f $GPUPERF_CUPTI_MODULE ]] || GPUPERF_CUPTI_MODULE=$(find "$prefix" -name libgpuperf_cupti.so -print -quit)
  away_pair user "$work/user" '^plant/polynomial'
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
  fma) phase_fma ;;
  fma-bisect) phase_fma_bisect ;;
  away) phase_away ;;
  test) phase_test ;;
  all) phase_install && phase_user && phase_fma && phase_fma_bisect && phase_away && phase_test ;;
esac
