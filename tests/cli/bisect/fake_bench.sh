#!/bin/sh
# A fake bench executable for bisect's tests (no GPU): answers `BENCH ... run ... --commit SHA ...
# --format json` with one run of memory/coalesced[n=1024] in gpuperf's interchange format. Its level.txt
# (copied next to it by the test repository's build) holds the duration level in ns and gld_efficiency, and
# optionally the kernel's code fingerprint (then the result carries it, as `run` stores one);
# the 11 duration samples spread +-1% around the level, the same at every call. Each call appends the
# commit to $FAKE_BENCH_LOG when set.
commit=""
while [ $# -gt 0 ]; do
  case "$1" in
    --commit) commit=$2; shift 2 ;;
    *) shift ;;
  esac
done
read -r level gld code < "$(dirname "$0")/level.txt"
identity=""
[ -n "$code" ] && identity=", \"code\": {\"fingerprint\": \"$code\", \"launch\": \"grid=4x1x1 block=256x1x1 smem=0\"}"
[ -n "$FAKE_BENCH_LOG" ] && echo "$commit" >> "$FAKE_BENCH_LOG"
samples=""
for k in -10 -8 -6 -4 -2 0 2 4 6 8 10; do
  samples="$samples${samples:+, }$((level * (1000 + k) / 1000))"
done
cat <<JSON
{"format": "gpuperf-results", "version": 1, "runs": [
 {"uuid": "$(cat /proc/sys/kernel/random/uuid)", "started_at": "$(date -u +%Y-%m-%dT%H:%M:%SZ)",
  "commit": "$commit", "branch": "bisect", "label": "bisect",
  "machine": {"hostname": "$(uname -n)", "gpu_name": "Fake GPU", "gpu_uuid": "GPU-fake-0"},
  "results": [{"benchmark": "memory/coalesced", "params": {"n": 1024}, "status": "ok"$identity,
               "metrics": {"duration": {"unit": "ns", "samples": [$samples]},
                           "gld_efficiency": {"unit": "%", "value": $gld}}}]}]}
JSON
