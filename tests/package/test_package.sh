#!/usr/bin/env bash
# gpuperf as a user's project consumes it, on a machine without a GPU (ctest labels `unit`):
#   test_package.sh install BUILD_DIR       cmake --install into a prefix, move the prefix (relocatable),
#                                           build examples/ and tests/package/consumer/ with find_package, where
#                                           nlohmann_json, CLI11 and SQLite's header cannot be found or included
#   test_package.sh subdirectory            build examples/ with gpuperf's source tree added by add_subdirectory
#   test_package.sh no-cupti BUILD_DIR      find_package(gpuperf) against a toolkit without CUPTI works, says so
# Each checks the bench executables' no-GPU behaviour: `list` shows exactly the registered benchmarks,
# `run` exits 3 with the no-GPU message, and bad registrations exit 2 with a message.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
mode=${1:?mode: install, subdirectory or no-cupti}
work=$(mktemp -d -t gpuperf-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
jobs=$(nproc)

# expect RC PATTERN CMD...: CMD exits RC and its output (stdout + stderr) matches the extended regex PATTERN.
expect() {
  local want=$1 pattern=$2 rc=0 out
  shift 2
  out=$("$@" 2>&1) || rc=$?
  [[ $rc == "$want" ]] || fail "$(basename "$1") ${*:2}: exit $rc, expected $want; output:"$'\n'"$out"
  grep -Eq -- "$pattern" <<<"$out" || fail "$(basename "$1") ${*:2}: output does not match /$pattern/:"$'\n'"$out"
  echo "ok: $(basename "$1") ${*:2} -> exit $rc"
}

check_my_bench() {  # the examples' bench executable: its own benchmarks only, the whole CLI, no GPU here
  local exe=$1
  local listing
  listing=$("$exe" list)
  grep -q '^example/saxpy\[n=16777216\]' <<<"$listing" || fail "list lacks example/saxpy:"$'\n'"$listing"
  grep -q '^example/scale_inplace\[n=16777216\]' <<<"$listing" || fail "list lacks example/scale_inplace"
  ! grep -q '^matmul/' <<<"$listing" || fail "a user's executable lists the built-in suite without linking it"
  grep -q '^3 instances' <<<"$listing" || fail "expected 3 instances:"$'\n'"$listing"
  echo "ok: $(basename "$exe") list -> its 3 instances"
  expect 3 "no CUDA GPU" "$exe" --db "$work/user.db" run
  expect 3 "no CUDA GPU" "$exe" profile
  expect 0 "check" "$exe" --help
  # The database commands need no GPU: the whole CLI is there.
  printf '{"format": "gpuperf-results", "version": 1, "runs": []}\n' >"$work/empty.json"
  expect 2 "no database at" "$exe" --db "$work/user.db" db migrate
  expect 0 "" "$exe" --db "$work/user.db" import "$work/empty.json"
  expect 0 "schema" "$exe" --db "$work/user.db" db info
}

case $mode in
  install)
    build=${2:?install needs the build folder}
    cmake --install "$build" --prefix "$work/stage" >/dev/null
    mv "$work/stage" "$work/moved"  # relocatable: nothing may point at the prefix it was installed to
    prefix=$work/moved
    for f in include/gpuperf/gpuperf.hpp lib/cmake/gpuperf/gpuperfConfig.cmake lib/gpuperf/libgpuperf_cupti.so \
             bin/gpuperf share/gpuperf/ci/nightly.sh share/gpuperf/ci/premerge.sh share/gpuperf/ci/github-actions.yml \
             share/gpuperf/ci/gitlab-ci.yml share/gpuperf/ci/slurm-nightly.sbatch \
             share/gpuperf/examples/sample-history.json share/gpuperf/examples/CMakeLists.txt; do
      [[ -e $prefix/$f ]] || fail "the install lacks $f"
    done
    ! grep -rq "$work/stage" "$prefix/lib/cmake" || fail "the CMake package names the prefix it was installed to"
    ! [[ -e $prefix/include/gpuperf/profiler ]] || fail "private headers are installed"
    # A consumer writes <gpuperf/...> only: the installed headers include each other that way too.
    ! grep -rnE '#include "(core|kernels)/' "$prefix/include" || fail "an installed header includes a bare core/ or kernels/"
    ! grep -rnE '^[^#]*(nlohmann|CLI11)' "$prefix/lib/cmake/gpuperf" ||  # code, not the comments saying why
      fail "the CMake package asks a consumer for the CLI's private dependencies"
    # The consumer's machine has neither nlohmann_json nor CLI11: find_package of them fails, and including
    # their headers (or SQLite's) stops the compiler, so nothing of gpuperf's may need them.
    poison=$work/poison
    mkdir -p "$poison/nlohmann" "$poison/CLI"
    for h in nlohmann/json.hpp nlohmann/json_fwd.hpp CLI/CLI.hpp CLI/App.hpp sqlite3.h; do
      printf '#error "a consumer of gpuperf included <%s>: it is a private dependency"\n' "$h" >"$poison/$h"
    done
    hidden=(-DCMAKE_DISABLE_FIND_PACKAGE_nlohmann_json=ON -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON
            "-DCMAKE_CXX_FLAGS=-I$poison" "-DCMAKE_CUDA_FLAGS=-I$poison")
    cmake -S "$src/examples" -B "$work/examples" -DCMAKE_PREFIX_PATH="$prefix" "${hidden[@]}" >"$work/examples.log" 2>&1 ||
      { cat "$work/examples.log"; fail "configuring examples/ against the installed package"; }
    cmake --build "$work/examples" -j "$jobs" >>"$work/examples.log" 2>&1 ||
      { cat "$work/examples.log"; fail "building examples/ against the installed package"; }
    check_my_bench "$work/examples/my_bench"
    grep -q "$prefix/lib/gpuperf/libgpuperf_cupti.so" "$work/examples/gpuperf_installed_module.cpp" ||
      fail "the bench executable does not look for the CUPTI module where the package lies"
    expect 0 "^matmul/naive" "$prefix/bin/gpuperf" list
    # The installed CI jobs, called from a user repository with its own bench executable.
    user_repo=$work/user-repo
    mkdir -p "$user_repo"
    git -C "$user_repo" init -q -b main
    git -C "$user_repo" -c user.name=ci -c user.email=ci@example.invalid commit -q --allow-empty -m "first"
    python3 "$src/tests/ci/make_nights.py" "$work/nights" 2 9
    (cd "$user_repo" && expect 0 "done in" bash "$prefix/share/gpuperf/ci/nightly.sh" --bench "$work/examples/my_bench" \
      --db "$work/nightly.db" --artifacts "$work/nightly-art" --night 2026-10-01 --import "$work/nights/night-01.json")
    [[ -s $work/nightly-art/report.html && -s $work/nightly-art/summary.md ]] || fail "the installed nightly wrote no report"
    (cd "$user_repo" && expect 3 "no CUDA GPU" bash "$prefix/share/gpuperf/ci/nightly.sh" --bench "$work/examples/my_bench" \
      --db "$work/nightly.db" --artifacts "$work/nightly-art2" --night 2026-10-02)
    (cd "$user_repo" && expect 3 "no CUDA GPU" bash "$prefix/share/gpuperf/ci/premerge.sh" --bench "$work/examples/my_bench" \
      --db "$work/nightly.db" --artifacts "$work/premerge-art")
    # Without --bench the installed job runs its own prefix's gpuperf.
    (cd "$user_repo" && expect 0 "done in" bash "$prefix/share/gpuperf/ci/nightly.sh" --db "$work/own.db" \
      --artifacts "$work/own-art" --night 2026-10-01 --import "$work/nights/night-01.json")
    [[ -s $work/own-art/report.html ]] || fail "the installed nightly without --bench wrote no report"
    # A refusal makes nothing: no artifacts folder for a job that never started.
    (cd "$user_repo" && expect 2 "is missing or not executable" bash "$prefix/share/gpuperf/ci/nightly.sh" \
      --bench "$work/no-such-bench" --db "$work/refused/x.db" --artifacts "$work/refused-art")
    (cd "$user_repo" && expect 2 "is missing or not executable" bash "$prefix/share/gpuperf/ci/premerge.sh" \
      --bench "$work/no-such-bench" --db "$work/refused/x.db" --artifacts "$work/refused-art")
    [[ ! -e $work/refused-art && ! -e $work/refused ]] || fail "a refused job left an artifacts or database folder"
    ! bash "$prefix/share/gpuperf/ci/premerge.sh" --help | grep -q "set -euo" || fail "premerge.sh --help prints code"
    ! bash "$prefix/share/gpuperf/ci/nightly.sh" --help | grep -q "set -euo" || fail "nightly.sh --help prints code"
    # README's first screen: the installed sample history, imported, detected and reported with no GPU.
    sample=$prefix/share/gpuperf/examples/sample-history.json
    expect 0 "new" "$prefix/bin/gpuperf" --db "$work/sample.db" import "$sample"
    expect 0 "memory/coalesced.*duration.*regression" "$prefix/bin/gpuperf" --db "$work/sample.db" detect
    # README shows detect's whole answer on the sample: what a newcomer sees, word for word.
    "$prefix/bin/gpuperf" --db "$work/sample.db" detect >"$work/sample-detect.txt"
    python3 - "$src/README.md" >"$work/readme-detect.txt" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"`detect` lists change points.*?\n```\n(.*?)```", text, re.S)
print(m[1] if m else "(README has no detect output after '`detect` lists change points')", end="")
PY
    diff -u "$work/readme-detect.txt" "$work/sample-detect.txt" ||
      fail "README's detect output on the sample history is not what detect prints (diff above: README, then detect)"
    expect 0 "report.html" "$prefix/bin/gpuperf" --db "$work/sample.db" report --out "$work/sample-report"
    grep -q "memory/coalesced" "$work/sample-report/report.html" || fail "the sample's report lacks the regression"
    # README's answer, as written: one ack by the commit detect prints answers the step (its hints too).
    expect 1 "" "$prefix/bin/gpuperf" --db "$work/sample.db" detect --fail-on-regression
    expect 0 "acknowledged memory/coalesced .*[(]14 findings, duration" "$prefix/bin/gpuperf" --db "$work/sample.db" ack \
      --run ec456ab89b --benchmark memory/coalesced --reason 'tracked in #123'
    expect 0 "acknowledged: tracked in #123" "$prefix/bin/gpuperf" --db "$work/sample.db" detect --fail-on-regression
    # README's CMake snippet is complete: configured against the package, with no CMake warning.
    snippet=$work/readme-snippet
    mkdir -p "$snippet"
    python3 - "$src/README.md" >"$snippet/CMakeLists.txt" <<'PY'
import re, sys
blocks = re.findall(r"```cmake\n(.*?)```", open(sys.argv[1], encoding="utf-8").read(), re.S)
print(next((b for b in blocks if "cmake_minimum_required" in b), ""), end="")
PY
    grep -q "find_package(gpuperf" "$snippet/CMakeLists.txt" || fail "README has no complete CMake snippet"
    cp "$src/examples/saxpy.cu" "$src/examples/scale_inplace.cu" "$snippet/"
    nvcc=()  # the test machine's toolkit, where a user has nvcc on PATH
    [[ -x /usr/local/cuda/bin/nvcc ]] && nvcc=(-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)
    cmake -S "$snippet" -B "$snippet/build" -DCMAKE_PREFIX_PATH="$prefix" "${nvcc[@]}" >"$work/snippet.log" 2>&1 ||
      { cat "$work/snippet.log"; fail "configuring README's CMake snippet"; }
    ! grep -q "CMake Warning" "$work/snippet.log" || { cat "$work/snippet.log"; fail "README's CMake snippet warns"; }
    if ! { cmake -S "$here/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" "${hidden[@]}" &&
           cmake --build "$work/consumer" -j "$jobs"; } >"$work/consumer.log" 2>&1; then
      cat "$work/consumer.log"
      fail "building tests/package/consumer"
    fi
    expect 2 "registers no benchmark" "$work/consumer/empty_bench" list
    expect 2 "registers no benchmark" "$work/consumer/empty_bench" run
    expect 2 "'dup/same' is registered twice: at .*dup_[ab]\.cpp:8 and, first, at .*dup_[ab]\.cpp:8" \
      "$work/consumer/dup_bench" list
    ;;
  subdirectory)
    cmake -S "$here/subdir" -B "$work/subdir" -DGPUPERF_SOURCE_DIR="$src" -DCMAKE_BUILD_TYPE=Release \
      >"$work/subdir.log" 2>&1 || { cat "$work/subdir.log"; fail "configuring a project that adds gpuperf's source"; }
    ! grep -q "^GTest_DIR" "$work/subdir/CMakeCache.txt" || fail "gpuperf's tests are configured as a subproject"
    cmake --build "$work/subdir" -j "$jobs" --target my_bench >>"$work/subdir.log" 2>&1 ||
      { tail -40 "$work/subdir.log"; fail "building examples/ through add_subdirectory"; }
    check_my_bench "$work/subdir/examples/my_bench"
    # Its source lines are named relative to the project that added gpuperf (core/source_roots.hpp), not gpuperf's.
    # nm's whole output to a file first: `nm | grep -q` under pipefail fails when grep stops nm early (SIGPIPE).
    nm "$work/subdir/examples/my_bench" >"$work/my_bench.nm"
    grep -q " T gpuperf_project_source_root$" "$work/my_bench.nm" ||
      fail "my_bench defines no project source root (add_subdirectory)"
    grep -qaF "$here/subdir" "$work/subdir/examples/my_bench" ||
      fail "my_bench's project source root is not the project's top folder $here/subdir"
    ;;
  no-cupti)
    # A toolkit without CUPTI: links to the real toolkit's files, CUPTI and the profiler's host libraries left out.
    real=$(readlink -f "${CUDA_HOME:-/usr/local/cuda}")
    fake=$work/cuda
    mkdir -p "$fake/bin" "$fake/targets/x86_64-linux/lib"
    for f in "$real"/bin/*; do ln -s "$f" "$fake/bin/"; done
    for d in include nvvm; do [[ -e $real/$d ]] && ln -s "$real/$d" "$fake/$d"; done
    ln -s "$real/targets/x86_64-linux/include" "$fake/targets/x86_64-linux/include"
    for f in "$real"/targets/x86_64-linux/lib/*; do
      case $(basename "$f") in libcupti* | libnvperf* | libpcsampling* | libcheckpoint*) ;; *) ln -s "$f" "$fake/targets/x86_64-linux/lib/" ;; esac
    done
    ln -s targets/x86_64-linux/lib "$fake/lib"
    ln -s lib "$fake/lib64"
    [[ -e $real/version.json ]] && cp "$real/version.json" "$fake/"
    cmake --install "${2:?no-cupti needs the build folder}" --prefix "$work/prefix" >/dev/null
    mkdir -p "$work/user"
    printf 'cmake_minimum_required(VERSION 3.24)\nproject(user LANGUAGES CXX)\nfind_package(gpuperf CONFIG REQUIRED)\n' \
      >"$work/user/CMakeLists.txt"
    # CUPTI is opened at run time: a bench executable builds without it, and the package says what it lacks.
    expect 0 "has no CUPTI \\(libcupti\\); bench executables build" cmake -S "$work/user" -B "$work/user/build" \
      -DCMAKE_PREFIX_PATH="$work/prefix" -DCUDAToolkit_ROOT="$fake"
    ;;
  *) fail "unknown mode '$mode'" ;;
esac
echo "package ($mode): ok"
