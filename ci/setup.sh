#!/usr/bin/env bash
# Installs what gpuperf needs to build and test on Debian 12 / Ubuntu, when it is missing.
# The CUDA toolkit (nvcc, CUPTI, NVTX) is expected in /usr/local/cuda or on PATH; it is not installed here.
set -euo pipefail

# libpq-dev: the PostgreSQL client library and headers the PostgreSQL engine of the store links.
packages=(cmake g++ make libsqlite3-dev sqlite3 libgtest-dev nlohmann-json3-dev libcli11-dev libpq-dev)
# Test-only extras: headless Chromium for the HTML report test, yamllint and shellcheck for the CI recipes,
# clang-format-14 for ci/format_check.sh (its version is pinned there), and Debian's PostgreSQL server, whose
# binaries (/usr/lib/postgresql/<major>/bin: initdb, pg_ctl, postgres) the tests labelled `postgres` use to
# start throwaway clusters of their own (tests/support/pg_cluster.hpp, bench/store/pg_throwaway.sh).
test_mode=0
if [[ "${1:-}" == "--test" ]]; then
  test_mode=1
  packages+=(chromium yamllint shellcheck clang-format-14 postgresql)
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

# The server binaries are not on PATH in Debian; the tests find them by this glob (or GPUPERF_PG_BINDIR).
if ((test_mode)) && ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null && [[ -z ${GPUPERF_PG_BINDIR:-} ]]; then
  echo "gpuperf setup: PostgreSQL's server binaries are missing (no /usr/lib/postgresql/*/bin/initdb);" >&2
  echo "the tests labelled postgres fail in CI without them. Set GPUPERF_PG_BINDIR where they are elsewhere." >&2
  exit 3
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "gpuperf setup: the CUDA toolkit (nvcc, CUPTI) was not found in /usr/local/cuda or on PATH." >&2
  echo "Install the CUDA Toolkit 12.6 or newer, then run this again." >&2
  exit 3
fi
