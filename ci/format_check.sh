#!/usr/bin/env bash
# The C++ and CUDA sources are formatted as .clang-format says (Google style at 120 columns, the project's).
#   bash ci/format_check.sh                  check every tracked source file
#   bash ci/format_check.sh --changed [REF]  check the files changed since REF (default: the merge base with
#                                            main), as a pre-merge job does
#   bash ci/format_check.sh --fix [--changed [REF]]   format them in place instead
# Exit 0 formatted, 1 a file is not (its name and the first lines of the difference are printed), 2 bad
# usage, 3 no clang-format of the pinned major version (CLANG_FORMAT=path picks another binary).
# Formatting differs between clang-format releases, so the version is pinned: Debian 12's clang-format, 14.
set -euo pipefail
cd "$(dirname "$0")/.."
want_major=14

fix=0 changed=0 ref=""
while (($#)); do
  case $1 in
    --fix) fix=1 ;;
    --changed)
      changed=1
      if [[ ${2:-} != "" && ${2:0:1} != "-" ]]; then ref=$2; shift; fi ;;
    -h | --help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "format_check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done

cf=${CLANG_FORMAT:-}
if [[ -z $cf ]]; then
  for c in clang-format-$want_major clang-format; do
    if command -v "$c" >/dev/null; then cf=$c; break; fi
  done
fi
if [[ -z $cf ]] || ! command -v "$cf" >/dev/null; then
  echo "format_check: clang-format $want_major not found (apt-get install clang-format-$want_major, or set CLANG_FORMAT)" >&2
  exit 3
fi
major=$("$cf" --version | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
if [[ $major != "$want_major" && -z ${CLANG_FORMAT:-} ]]; then
  echo "format_check: $cf is version $major; the tree is formatted with $want_major (set CLANG_FORMAT to use it anyway)" >&2
  exit 3
fi

patterns=('*.cpp' '*.hpp' '*.cu' '*.cuh' '*.h')
if ((changed)); then
  if [[ -z $ref ]]; then
    ref=$(git merge-base HEAD main 2>/dev/null || git merge-base HEAD origin/main 2>/dev/null) ||
      { echo "format_check: --changed needs a REF (no main or origin/main to compare with)" >&2; exit 2; }
  fi
  mapfile -t files < <(git diff --name-only --diff-filter=ACMR "$ref" -- "${patterns[@]}")
else
  mapfile -t files < <(git ls-files -- "${patterns[@]}")
fi
if ((${#files[@]} == 0)); then
  echo "format_check: no C++ files to check"
  exit 0
fi

if ((fix)); then
  "$cf" -i --style=file "${files[@]}"
  echo "format_check: formatted ${#files[@]} files with $("$cf" --version)"
  exit 0
fi

bad=0
for f in "${files[@]}"; do
  if ! diff_out=$("$cf" --style=file "$f" | diff -u --label "$f" --label "$f (formatted)" "$f" -); then
    ((bad += 1))
    echo "$diff_out" | head -20
  fi
done
if ((bad)); then
  echo "format_check: $bad of ${#files[@]} files are not formatted; run: bash ci/format_check.sh --fix" >&2
  exit 1
fi
echo "format_check: ${#files[@]} files formatted"
