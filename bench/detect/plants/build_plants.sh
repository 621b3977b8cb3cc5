#!/usr/bin/env bash
# Builds the plants of docs/bound.md from a configured and built gpuperf tree, on a machine without a GPU:
# each plant is the `gpuperf` executable relinked with one kernel source changed, nothing else rebuilt.
#
#   bench/detect/plants/build_plants.sh BUILD OUTDIR
#
#   OUTDIR/poly-fma/gpuperf      the suite plus plant/polynomial (bench/detect/plants/polynomial.cu), nvcc's default
#                                FMA contraction
#   OUTDIR/poly-nofma/gpuperf    the same source compiled with -fmad=false: FMUL + FADD for every FFMA
#   OUTDIR/poly-deg4/gpuperf     the same source of degree 4 (-DGPUPERF_PLANT_DEGREE=4): memory-bound
#   OUTDIR/coalesced/gpuperf     the suite as built (memory/coalesced coalesced)
#   OUTDIR/uncoalesced/gpuperf   memory_access.cu with bench/detect/patches/lose_coalescing.patch applied
# Each folder also gets libgpuperf_cupti.so (the CUPTI back end is found beside the executable). The compile
# and link commands are CMake's own (compile_commands.json, cli/CMakeFiles/gpuperf.dir/link.txt).
set -euo pipefail
build=$(realpath "${1:?usage: build_plants.sh BUILD OUTDIR}")
out=${2:?usage: build_plants.sh BUILD OUTDIR}
repo=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cupti_module=$(find "$build" -name libgpuperf_cupti.so -print -quit)
[[ -n $cupti_module ]] || { echo "build_plants: no libgpuperf_cupti.so under $build" >&2; exit 2; }
archive=$(find "$build" -name libgpuperf_builtin_kernels.a -print -quit)
link_txt=$build/cli/CMakeFiles/gpuperf.dir/link.txt
[[ -f $archive && -f $link_txt ]] || { echo "build_plants: build gpuperf in $build first" >&2; exit 2; }

# compile SOURCE OBJECT [NVCC FLAGS...]: SOURCE with the flags CMake gave kernels/memory_access.cu.
compile() {
  local src=$1 obj=$2
  shift 2
  python3 - "$build/compile_commands.json" "$repo/kernels/memory_access.cu" "$src" "$obj" "$@" <<'EOF' >"$work/cmd"
import json, shlex, sys
db, template, src, obj, extra = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
entry = next(e for e in json.load(open(db)) if e["file"] == template)
args = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
out = []
skip = False
for a in args:
    if skip:
        skip = False
        continue
    if a == "-o":
        skip = True
        continue
    if a == "-x" or a.startswith("-MF") or a in ("-MD", "-MT"):
        out.append(a)  # kept: nvcc needs "-x cu"
        continue
    out.append(src if a == template else a)
# -MD/-MT/-MF write dependency files: drop them and their arguments.
clean = []
i = 0
while i < len(out):
    if out[i] in ("-MD",):
        i += 1
        continue
    if out[i] in ("-MT", "-MF"):
        i += 2
        continue
    clean.append(out[i])
    i += 1
print(entry["directory"])
print(shlex.join(clean[:1] + extra + clean[1:] + ["-o", obj]))
EOF
  local dir cmd
  dir=$(sed -n 1p "$work/cmd")
  cmd=$(sed -n 2p "$work/cmd")
  (cd "$dir" && eval "$cmd")
}

# relink NAME [ARCHIVE_REPLACEMENT] [EXTRA_OBJECT]: OUTDIR/NAME/gpuperf with CMake's link command.
relink() {
  local name=$1 new_archive=${2:-} extra=${3:-}
  mkdir -p "$out/$name"
  local cmd
  cmd=$(cat "$link_txt")
  local rel_archive
  rel_archive=$(realpath --relative-to="$build/cli" "$archive")
  if [[ -n $new_archive ]]; then cmd=${cmd//$rel_archive/$new_archive}; fi
  # The output name: "-o gpuperf" in link.txt.
  cmd=${cmd/-o gpuperf/-o $out/$name/gpuperf $extra}
  (cd "$build/cli" && eval "$cmd")
  cp "$cupti_module" "$out/$name/"
}

compile "$repo/bench/detect/plants/polynomial.cu" "$work/poly_fma.o"
compile "$repo/bench/detect/plants/polynomial.cu" "$work/poly_nofma.o" -fmad=false
relink poly-fma "" "$work/poly_fma.o"
relink poly-nofma "" "$work/poly_nofma.o"
compile "$repo/bench/detect/plants/polynomial.cu" "$work/poly_deg4.o" -DGPUPERF_PLANT_DEGREE=4
relink poly-deg4 "" "$work/poly_deg4.o"

cp "$repo/kernels/memory_access.cu" "$work/memory_access.cu"
(cd "$work" && patch -s -p2 memory_access.cu <"$repo/bench/detect/patches/lose_coalescing.patch")
compile "$work/memory_access.cu" "$work/memory_access.cu.o"
cp "$archive" "$work/uncoalesced.a"
ar r "$work/uncoalesced.a" "$work/memory_access.cu.o"
relink coalesced
relink uncoalesced "$work/uncoalesced.a"
strip "$out"/*/gpuperf
ls -l "$out"/*/gpuperf
