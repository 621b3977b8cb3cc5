#!/usr/bin/env bash
# The pre-merge gate on a GPU, as a user meets it (docs/regressions.md, "What fails a job"): A/A checks of an
# unchanged build must exit 0 with no row slower or faster, and a plant that halves a kernel's occupancy must
# still exit 1 with achieved occupancy among the duration finding's hints. About 4-5 minutes on an H100
# with the defaults (the default suite takes about 15 s a run).
#
#   bench/detect/gate_aa_gpu.sh --gpuperf BIN [--patched BIN] [--out DIR] [--nightlies N] [--checks N] [--filter RE]
#
# 1. a fresh database; N (default 3) nightly runs of BIN as branch main (one commit: the same build);
# 2. --checks (default 10) times `gpuperf check --baseline branch:main` with the same BIN; each exit code and
#    its rows slower/faster, gated and not, are kept (JSON in DIR/check-K.json);
# 3. with --patched (BIN built with bench/detect/patches/lose_occupancy.patch applied: stencil1d/shared holds 44 KB
#    more static shared memory, theoretical occupancy 100% -> 50%), one check of it: it must exit 1, and the
#    duration row of stencil1d/shared that fails it must name achieved_occupancy in its hints.
# BIN: a gpuperf executable with its libgpuperf_cupti.so beside it (build/cli/ of a build tree). DIR
# (default $OUT, else ./gate-aa) gets the database, the logs and table.txt; the table is printed last.
# Exit: 0 when every A/A check exited 0 with no slower or faster row and the plant (if given) was caught
# as described; 1 otherwise; 2 bad arguments.
set -uo pipefail
gpuperf=""
patched=""
out=${OUT:-$PWD/gate-aa}
nightlies=3
checks=10
filter=()
die() { echo "gate_aa_gpu: $*" >&2; exit 2; }
while (($#)); do
  case "$1" in
    --gpuperf) gpuperf=${2:?--gpuperf needs a path}; shift 2 ;;
    --patched) patched=${2:?--patched needs a path}; shift 2 ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --nightlies) nightlies=${2:?--nightlies needs a number}; shift 2 ;;
    --checks) checks=${2:?--checks needs a number}; shift 2 ;;
    --filter) filter=(--filter "${2:?--filter needs a regex}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -uo pipefail/{/^#/p}' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -x $gpuperf ]] || die "--gpuperf '$gpuperf' is missing or not executable"
[[ -z $patched || -x $patched ]] || die "--patched '$patched' is missing or not executable"
[[ $nightlies =~ ^[1-9][0-9]*$ && $checks =~ ^[1-9][0-9]*$ ]] || die "--nightlies and --checks take counts"
mkdir -p "$out" || die "cannot make $out"
db=$out/aa.db
rm -f "$db" "$db-wal" "$db-shm" "$out"/check-*.json "$out"/*.log
start=$(date +%s)
log() { echo "[gate-aa $(($(date +%s) - start)) s] $*" >&2; }

# One JSON of `check` -> "slower_gated slower_ungated faster_gated faster_ungated ambiguous" and, in the log,
# the rows that were not same.
tally() {
  python3 - "$1" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except (OSError, ValueError) as e:
    print("- - - - -"); print(f"unreadable: {e}", file=sys.stderr); sys.exit(0)
n = {k: 0 for k in ("sg", "su", "fg", "fu", "amb")}
for r in doc.get("rows", []):
    v, g = r.get("verdict"), r.get("gated")
    if v == "slower": n["sg" if g else "su"] += 1
    elif v == "faster": n["fg" if g else "fu"] += 1
    elif v == "ambiguous": n["amb"] += 1
    if v not in ("same",):
        p = r.get("params") or {}
        name = r["benchmark"] + ("[" + ",".join(f"{k}={p[k]}" for k in sorted(p)) + "]" if p else "")
        pct = r.get("change_pct")
        pct = f"{pct:+.2f}%" if isinstance(pct, (int, float)) else "n/a"
        print(f"  {name} {r['metric']} {v}{'' if g else ' (not gated)'} {pct} {r.get('note', '')}", file=sys.stderr)
print(n["sg"], n["su"], n["fg"], n["fu"], n["amb"])
PY
}

main_sha=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
for ((i = 1; i <= nightlies; i++)); do
  log "nightly run $i of $nightlies"
  rc=0
  "$gpuperf" -q --db "$db" run "${filter[@]}" --branch main --label nightly --commit "$main_sha" \
    >"$out/nightly-$i.log" 2>&1 || rc=$?
  ((rc == 0)) || { log "nightly run $i exited $rc (see $out/nightly-$i.log)"; exit 1; }
done

rows=()
aa_ok=1
for ((k = 1; k <= checks; k++)); do
  log "A/A check $k of $checks"
  rc=0
  "$gpuperf" -q --db "$db" check --baseline branch:main "${filter[@]}" --branch aa-check --commit "$main_sha" \
    --format json >"$out/check-$k.json" 2>"$out/check-$k.log" || rc=$?
  read -r sg su fg fu amb < <(tally "$out/check-$k.json" 2>>"$out/check-$k.log")
  rows+=("A/A $k|$rc|$sg|$su|$fg|$fu|$amb|")
  if ((rc != 0)) || [[ $sg != 0 || $su != 0 || $fg != 0 || $fu != 0 ]]; then aa_ok=0; fi
done

plant_ok=1
if [[ -n $patched ]]; then
  log "check of the patched build (lose_occupancy)"
  rc=0
  "$patched" -q --db "$db" check --baseline branch:main "${filter[@]}" --branch plant --commit \
    bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb --format json >"$out/check-plant.json" 2>"$out/check-plant.log" || rc=$?
  read -r sg su fg fu amb < <(tally "$out/check-plant.json" 2>>"$out/check-plant.log")
  hint=$(python3 - "$out/check-plant.json" <<'PY'
import json, sys
try:
    rows = json.load(open(sys.argv[1])).get("rows", [])
except (OSError, ValueError):
    rows = []
d = [r for r in rows if r["benchmark"] == "stencil1d/shared" and r["metric"] == "duration"]
if not d:
    print("no stencil1d/shared duration row")
else:
    r = d[0]
    named = "achieved_occupancy" in r.get("note", "")
    print(f"duration {r['verdict']} {r.get('change_pct', 0):+.1f}%, gated {r.get('gated')}; "
          f"achieved_occupancy {'named' if named else 'NOT named'} in its hints: {r.get('note', '')}")
PY
)
  rows+=("plant|$rc|$sg|$su|$fg|$fu|$amb|$hint")
  [[ $rc == 1 && $hint == *"duration slower"*"achieved_occupancy named"* ]] || plant_ok=0
fi

{
  echo "gate A/A on $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1): $nightlies nightly" \
    "runs of main, then $checks checks --baseline branch:main, same build ($(($(date +%s) - start)) s)"
  printf '%-8s %4s %13s %15s %13s %15s %9s  %s\n' check exit slower,gated slower,ungated faster,gated \
    faster,ungated ambiguous note
  for row in "${rows[@]}"; do
    IFS='|' read -r name rc sg su fg fu amb note <<<"$row"
    printf '%-8s %4s %13s %15s %13s %15s %9s  %s\n' "$name" "$rc" "$sg" "$su" "$fg" "$fu" "$amb" "$note"
  done
  echo "A/A: $([[ $aa_ok == 1 ]] && echo "every check exit 0, no row slower or faster" || echo "FAILED (rows in check-K.log)")"
  [[ -z $patched ]] || echo "plant: $([[ $plant_ok == 1 ]] && echo "exit 1, achieved_occupancy in the duration's hints" || echo "NOT caught as expected")"
} | tee "$out/table.txt"
[[ $aa_ok == 1 && $plant_ok == 1 ]]
