#!/usr/bin/env bash
# Installs what gpuperf needs to build and test on Debian 12 / Ubuntu, when it is missing.
# The CUDA toolkit (nvcc, CUPTI, NVTX) is expected in /usr/local/cuda or on PATH; it is not installed here.
set -euo pipefail

packages=(cmake g++ make libsqlite3-dev sqlite3 libgtest-dev nlohmann-json3-dev libcli11-dev)
# Test-only extras: headless Chromium for the HTML report test, yamllint and shellcheck for the CI recipes,
# clang-format-14 for ci/format_check.sh (its version is pinned there).
if [[ "${1:-}" == "--test" ]]; then
  packages+=(chromium yamllint shellcheck clang-format-14)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "gpuperf setup: installing ${missing[*]}" >&2
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "gpuperf setup: the CUDA toolkit (nvcc, CUPTI) was not found in /usr/local/cuda or on PATH." >&2
  echo "Install the CUDA Toolkit 12.6 or newer, then run this again." >&2
  exit 3
fi
