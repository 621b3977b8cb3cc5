#!/usr/bin/env bash
# The user project's commit (bench/gpu/lines_user_project_gpu.sh), applied to its copy of
# bench/detect/plants/polynomial.cu: a comment line above the helper (every line below moves down one) and the
# helper's multiply-add split in two, each operation rounded on its own, as a change to its rounding would.
set -euo pipefail
f=${1:-poly.cu}
sed -i 's|^__device__ __forceinline__ float horner_step|// Each operation rounded on its own.\n&|' "$f"
sed -i 's|  return acc \* x + c;.*|  return __fadd_rn(__fmul_rn(acc, x), c);|' "$f"
grep -q '__fadd_rn(__fmul_rn(acc, x), c)' "$f"
