#!/usr/bin/env bash
# gpuperf bisect on a GPU, on two throwaway histories of 16 commits of this project (copies of this source
# tree, each commit a trivial change of a text file):
#   A: commit 9 applies bench/detect/patches/lose_coalescing.patch (memory/coalesced: gld/gst_efficiency 50%, slower)
#   B: commit 6 makes memory/coalesced sleep SLOW_NS ns per block (__nanosleep: duration only, no counter)
# and prints both outputs with their costs. Each history is bisected from commit 0 to commit 15, building
# each commit's gpuperf with cmake (one build folder per history, reused from commit to commit).
#
#   bash bench/detect/bisect_gpu.sh [--headers DIR] [--out DIR] [--slow-ns N]
#   bash bench/detect/bisect_gpu.sh --prepare [--headers DIR]   # on a machine with the dev packages: fill DIR
#
# The GPU machine has cmake, g++ and nvcc but not SQLite's header, nlohmann-json or CLI11: --prepare copies
# them (and libsqlite3) from this machine into DIR (default .gpuhdr/, ignored by nothing, so it travels with
# the working tree); the builds then find them through CMAKE_PREFIX_PATH and SQLite3_* cache variables.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
headers=$repo/.gpuhdr
out=${OUT:-$PWD/bisect-out}
slow_ns=40
prepare=0
while (($#)); do
  case "$1" in
    --headers) headers=$(realpath -m "$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --slow-ns) slow_ns=$2; shift 2 ;;
    --prepare) prepare=1; shift ;;
    *) echo "bisect_gpu: unknown argument $1" >&2; exit 2 ;;
  esac
done

if ((prepare)); then
  rm -rf "$headers" && mkdir -p "$headers/include" "$headers/lib" "$headers/share/cmake"
  cp /usr/include/sqlite3.h /usr/include/sqlite3ext.h "$headers/include/"
  cp -r /usr/include/nlohmann /usr/include/CLI "$headers/include/"
  cp -r /usr/share/cmake/nlohmann_json /usr/share/cmake/CLI11 "$headers/share/cmake/"
  cp -L /usr/lib/x86_64-linux-gnu/libsqlite3.so.0 "$headers/lib/libsqlite3.so.0"
  # The store links libpq, which the GPU machine lacks: its headers, and the library with the LDAP and SASL
  # libraries it needs there (found through LD_LIBRARY_PATH at link and run time).
  mkdir -p "$headers/include/postgresql"
  cp /usr/include/postgresql/libpq-fe.h /usr/include/postgresql/postgres_ext.h \
    /usr/include/postgresql/pg_config_ext.h "$headers/include/postgresql/"
  for lib in libpq.so.5 libldap-2.5.so.0 liblber-2.5.so.0 libsasl2.so.2; do
    cp -L "/usr/lib/x86_64-linux-gnu/$lib" "$headers/lib/$lib"
  done
  du -sh "$headers"
  exit 0
fi

mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuperf-bisect-gpu-XXXXXX")
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH=$headers/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export GIT_AUTHOR_NAME=bisect GIT_AUTHOR_EMAIL=bisect@example.com GIT_COMMITTER_NAME=bisect
export GIT_COMMITTER_EMAIL=bisect@example.com
build="cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DGPUPERF_BUILD_TESTS=OFF -DGPUPERF_INSTALL=OFF \
-DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_PREFIX_PATH=$headers -DSQLite3_INCLUDE_DIR=$headers/include \
-DSQLite3_LIBRARY=$headers/lib/libsqlite3.so.0 \
-DPostgreSQL_INCLUDE_DIR=$headers/include/postgresql -DPostgreSQL_LIBRARY=$headers/lib/libpq.so.5 >/dev/null && cmake --build build -j $(nproc) --target gpuperf gpuperf_cupti >/dev/null"

# history NAME EDIT_AT EDIT_COMMAND SUBJECT: 16 commits, the edit at EDIT_AT.
history() {
  local name=$1 at=$2 edit=$3 subject=$4 dir=$work/$1
  mkdir -p "$dir"
  git -C "$repo" archive HEAD | tar -x -C "$dir"
  git -C "$dir" init -q -b main
  for i in $(seq 0 15); do
    echo "commit $i" >"$dir/bisect_marker.txt"
    local msg="trivial change $i"
    if ((i == at)); then (cd "$dir" && eval "$edit"); msg=$subject; fi
    git -C "$dir" add -A && git -C "$dir" commit -q -m "$msg"
  done
}

history coalescing 9 "git apply bench/detect/patches/lose_coalescing.patch" "memory: lose coalescing in copy_coalesced"
# Duration only: each block of copy_coalesced sleeps before it copies (no load, store or register count moves).
history sleep 6 "sed -i '0,/^  const unsigned i = blockIdx.x \\* blockDim.x + threadIdx.x;\$/s//&\\n  __nanosleep($slow_ns);/' kernels/memory_access.cu && grep -q __nanosleep kernels/memory_access.cu" \
  "memory: copy_coalesced sleeps ${slow_ns} ns per thread"

bisect_one() {
  local name=$1 metric=$2
  local dir=$work/$name
  echo "== $name: bisect $metric of memory/coalesced, commits 0..15 ==" | tee -a "$out/summary.txt"
  local t0=$SECONDS rc=0
  (cd "$dir" && timeout --signal=TERM 270 "$gp" --db "$out/bisect.db" bisect --good HEAD~15 --bad HEAD --build "$build" --bench build/cli/gpuperf \
    --filter '^memory/coalesced' --metric "$metric" --format text) >"$out/$name.txt" 2>"$out/$name.err" || rc=$?
  tee -a "$out/summary.txt" <"$out/$name.txt"
  tail -5 "$out/$name.err"
  echo "exit $rc, $((SECONDS - t0)) s; the edited commit: $(git -C "$dir" rev-parse HEAD~$((15 - $3)))" | tee -a "$out/summary.txt"
}

# The driver (it only drives git and stores runs; each commit's own gpuperf measures): the carried
# build/cli/gpuperf when there is one, else built once from the copied tree.
t0=$SECONDS
if [[ -x $repo/build/cli/gpuperf ]]; then
  gp=$repo/build/cli/gpuperf
else
  (cd "$work/coalescing" && git worktree add -q --detach "$work/driver" HEAD~15 && cd "$work/driver" && eval "$build")
  gp=$work/driver/build/cli/gpuperf
fi
echo "driver $gp ready in $((SECONDS - t0)) s" | tee "$out/summary.txt"

bisect_one coalescing duration 9
bisect_one sleep duration 6
echo
echo "== summary =="
cat "$out/summary.txt"
