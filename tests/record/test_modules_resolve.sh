#!/usr/bin/env bash
# The libraries gpuperf loads at run time (the injected library, the CUPTI back end) are MODULEs: the linker
# lets them leave a symbol undefined, and the CUDA driver's dlopen then refuses the whole library, so `record`
# sees "0 processes recorded". Every gpuperf symbol they use must be defined inside them.
#   test_modules_resolve.sh MODULE...
set -euo pipefail
status=0
for module in "$@"; do
  missing=$(nm -D --undefined-only "$module" | awk '{print $NF}' | grep '^_ZN7gpuperf' | c++filt || true)
  if [[ -n $missing ]]; then
    echo "$(basename "$module") leaves gpuperf symbols undefined (add their source to its target):"
    while IFS= read -r symbol; do echo "  $symbol"; done <<<"$missing"
    status=1
  else
    echo "$(basename "$module"): every gpuperf symbol defined"
  fi
done
exit $status
