#!/usr/bin/env python3
"""What `gpuperf record --metrics default` costs a program: per profiled launch (median and p95 of the wall time
the injection library's trace gives each one, GPUPERF_RECORD_PROFILE_TRACE=1), the identities that got
counters, and the wall time against a plain run of the same program.

    bench/record/profile_cost.py --gpuperf BIN --probe BIN [--out DIR] [--only NAME,...] [--deadline S]
                                 [--run-timeout S] [--stall-seconds S] [--setting NAME=ARGS]... [--settings-only]
    bench/record/profile_cost.py --from-log DIR        (the table again from a finished --out folder)

Programs: the transformers GPT-2 (bench/record/programs/transformers_gpt2.py), a Llama-style decoder trained eager
then its forward torch.compile'd (transformers_decoder.py), the PyTorch training loop, JAX
`jit` (XLA_PYTHON_CLIENT_PREALLOCATE=false: kernel replay saves the memory a kernel can reach), the C++ CUDA graph
probe (`record_probe graph 500`) and the C++ 4-thread probe. Each runs plain once, then recorded with
`--metrics default` as the library does by default (the session kept enabled between profiled launches, the
metric set split into groups over an identity's profiled launches), and the probes also as before
("per-launch": GPUPERF_RECORD_PROFILE_KEEP=0 and --profile-groups 1), on the same machine. One at a
time: profiling serialises the GPU, and a second program would change both wall times.

Columns: exit (the recorded run's, and the plain run's), profiled (launches with a trace line), per launch
median / p95 (ms; "first" is the first profiled launch of the process, with the context's set-up, left out of
both), sessions (begun / restarted), counters (the summary's "counters for X of Y identities", with partial ones),
wall recorded / plain (s). Under the table, per cell: what launches cost by metric group, begun and restarted
apart (median total, begin and call), and how many took at most 100 ms. Exit 0 when every recorded run exited as
its plain run did.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

# The library as it was before (a session begun and ended per profiled launch, every metric in each).
BEFORE = ({"GPUPERF_RECORD_PROFILE_KEEP": "0"}, ["--profile-groups", "1"])
NOW = ({}, [])
HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")

TRACE = re.compile(r"^gpuperf-profile (.*): ((?:[a-z_0-9]+ -?[0-9.]+ ?)+)ms(?: \(group (\d+), (\w+)\))?$", re.M)
SESSIONS = re.compile(
    r"^gpuperf-profile sessions: (?:([0-9.]+) ms ending kept ones; )?(\d+) begun, (\d+) restarted; ended by(.*)$", re.M)
COUNTERS = re.compile(r"counters for (\d+) of (\d+) identities")
OLD_PARTIAL = re.compile(r"and partial counters for (\d+)")
PARTIAL = re.compile(r"identities \([^)]*\), (\d+) of them partial")


def launch_costs(text):
    """Per traced launch: (total ms, setup ms, group, "begun" or "restarted", its phases in ms)."""
    out = []
    for m in TRACE.finditer(text):
        parts = m.group(2).split()
        phases = {parts[i]: float(parts[i + 1]) for i in range(0, len(parts) - 1, 2)}
        out.append((sum(phases.values()), phases.get("setup", 0.0), m.group(3), m.group(4), phases))
    return out


def by_group(costs):
    """What the launches of each metric group cost, begun and restarted apart (the process's first left out):
    "group G begun: N, median T ms (begin B, call C)"; and how many took at most 100 ms (the issue's target)."""
    rest = costs[1:]
    cells = {}
    for total, _, group, kind, phases in rest:
        if group is None:
            continue
        cells.setdefault((int(group), kind or "?"), []).append((total, phases.get("begin", 0.0), phases.get("call", 0.0)))
    parts = []
    for (group, kind), xs in sorted(cells.items()):
        med = [statistics.median(x[i] for x in xs) for i in range(3)]
        parts.append(f"group {group} {kind}: {len(xs)}, median {med[0]:.1f} ms (begin {med[1]:.1f}, call {med[2]:.1f})")
    under = sum(1 for c in rest if c[0] <= 100.0)
    return parts, f"{under} of {len(rest)} launches at most 100 ms"


def pct(values, q):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def summarize(tag, log, plain_log):
    text = open(log).read() if os.path.exists(log) else ""
    plain = open(plain_log).read() if os.path.exists(plain_log) else ""
    costs = launch_costs(text)
    rest = [c[0] for c in costs[1:]]
    first = costs[0][0] if costs else float("nan")
    sess = SESSIONS.search(text)
    counters = COUNTERS.findall(text)
    wall = re.findall(r"^# wall ([0-9.]+) exit (-?\d+)$", text, re.M)
    pwall = re.findall(r"^# wall ([0-9.]+) exit (-?\d+)$", plain, re.M)
    c = counters[-1] if counters else None
    partial = PARTIAL.findall(text) or OLD_PARTIAL.findall(text)
    if c and not PARTIAL.findall(text) and partial:  # the first build's summary counted partial ones apart
        c = (str(int(c[0]) + int(partial[-1])), c[1])
    groups, under = by_group(costs)
    return {
        "cell": tag,
        "groups": groups,
        "under": under,
        "exit": f"{wall[-1][1] if wall else '?'} / {pwall[-1][1] if pwall else '?'}",
        "same_exit": bool(wall and pwall and wall[-1][1] == pwall[-1][1]),
        "profiled": len(costs),
        "median": statistics.median(rest) if rest else float("nan"),
        "p95": pct(rest, 0.95),
        "first": first,
        "sessions": f"{sess.group(2)} / {sess.group(3)}" if sess else "-",
        "ends": (sess.group(4).strip() + (f"; {sess.group(1)} ms ending kept sessions" if sess.group(1) else ""))
        if sess else "",
        "counters": (f"{c[0]}/{c[1]}" + (f" ({partial[-1]} partial)" if partial else "")) if c else "-",
        "wall": f"{float(wall[-1][0]):.1f} / {float(pwall[-1][0]):.1f}" if wall and pwall else "-",
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpuperf")
    ap.add_argument("--probe")
    ap.add_argument("--out", default="out/profile-cost")
    ap.add_argument("--only", default="")
    ap.add_argument("--deadline", type=float, default=0, help="start no program after S seconds")
    ap.add_argument("--from-log", help="print the table of a finished --out folder")
    ap.add_argument("--run-timeout", type=float, default=None, help="kill a program after S seconds")
    ap.add_argument("--stall-seconds", type=float, default=None,
                    help="a recorded run silent this long has stopped: its stacks go to <log>.stacks, then it is killed "
                         "(more than the program runs plain: once profiling ends, the trace writes nothing)")
    ap.add_argument("--setting", action="append", default=[], metavar="NAME=ARGS",
                    help="one more cell per program, recorded with these record arguments besides --metrics default "
                         "(split on spaces), e.g. groups2='--profile-groups 2'; repeatable")
    ap.add_argument("--settings-only", action="store_true",
                    help="record each program with the --setting cells only, not as the library does by default")
    a = ap.parse_args()
    py = sys.executable
    more = []
    for s in a.setting:
        name, sep, args = s.partition("=")
        if not sep or not name:
            ap.error(f"--setting '{s}' is not NAME=ARGS")
        more.append((name, ({}, args.split())))
    cells = [
        ("gpt2", [py, os.path.join(PROGRAMS, "transformers_gpt2.py")], {}, [("now", NOW)]),
        ("decoder", [py, os.path.join(PROGRAMS, "transformers_decoder.py")], {}, [("now", NOW)]),
        ("cpp-graph", [a.probe or "record_probe", "graph", "500"], {}, [("now", NOW), ("per-launch", BEFORE)]),
        ("jax-jit", [py, os.path.join(PROGRAMS, "jax_jit.py")], {"XLA_PYTHON_CLIENT_PREALLOCATE": "false"},
         [("now", NOW)]),
        ("torch-train", [py, os.path.join(PROGRAMS, "torch_train.py")], {}, [("now", NOW)]),
        ("cpp-4-threads", [a.probe or "record_probe", "threads", "4"], {}, [("now", NOW), ("per-launch", BEFORE)]),
    ]
    cells = [(name, cmd, env, (more if a.settings_only else settings + more)) for name, cmd, env, settings in cells]
    only = set(x for x in a.only.split(",") if x)
    out = a.from_log or a.out
    os.makedirs(out, exist_ok=True)
    rows = []
    begun = time.monotonic()
    for name, cmd, env, settings in cells:
        if only and name not in only:
            continue
        plain_log = os.path.join(out, f"{name}-plain.log")
        if a.from_log and not os.path.exists(plain_log):
            continue
        if not a.from_log:
            if a.deadline and time.monotonic() - begun > a.deadline:
                print(f"profile_cost: {name}: skipped, past --deadline", file=sys.stderr)
                continue
            run(cmd, dict(os.environ, **env), plain_log, a.run_timeout)
        for setting, (extra, args) in settings:
            log = os.path.join(out, f"{name}-{setting}.log")
            if not a.from_log:
                if a.deadline and time.monotonic() - begun > a.deadline:
                    continue
                db = os.path.join(out, f"{name}-{setting}.db")
                full = [a.gpuperf, "--db", db, "record", "--metrics", "default", *args, "--", *cmd]
                run(full, dict(os.environ, **env, **extra, GPUPERF_RECORD_PROFILE_TRACE="1"), log, a.run_timeout,
                    a.stall_seconds)
            rows.append(summarize(f"{name} {setting}", log, plain_log))
    head = ["cell", "exit", "profiled", "median ms", "p95 ms", "first ms", "sessions begun / restarted",
            "counters", "wall s recorded / plain"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print(f"| {r['cell']} | {r['exit']} | {r['profiled']} | {r['median']:.1f} | {r['p95']:.1f} | {r['first']:.1f} | "
              f"{r['sessions']} | {r['counters']} | {r['wall']} |")
    for r in rows:
        if r["ends"]:
            print(f"{r['cell']}: sessions ended by {r['ends']}")
    for r in rows:
        if r["groups"]:
            print(f"{r['cell']}: {'; '.join(r['groups'])}; {r['under']}")
    return 0 if all(r["same_exit"] for r in rows) else 1


def run(cmd, env, log, timeout=None, stall=None):
    """Runs one program, its output and wall time into `log`; past `timeout` s its process group is killed
    (exit -9 in the log), so a hang costs one cell, not the call. With `stall`, a run whose output (the trace
    writes a line a profiled launch) has not grown for that many seconds has stopped: the stacks of its processes
    go to `log`.stacks (stack_dump) before it is killed the same way."""
    t = time.monotonic()
    with open(log, "w") as out:
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, text=True, start_new_session=True)
        size, still_since, why = -1, time.monotonic(), None
        while p.poll() is None:
            time.sleep(0.5)
            now = time.monotonic()
            grown = os.path.getsize(log)
            if grown != size:
                size, still_since = grown, now
            if timeout is not None and now - t > timeout:
                why = f"killed after {timeout} s"
            elif stall is not None and now - still_since > stall:
                why = f"silent for {stall} s, stacks in {os.path.basename(log)}.stacks; killed after {now - t:.1f} s"
                stack_dump(p.pid, log + ".stacks")
            if why:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                break
        rc = -9 if why else p.returncode
    with open(log, "a") as f:
        f.write((f"\n# {why}\n" if why else "") + f"\n# wall {time.monotonic() - t:.3f} exit {rc}\n")


def stack_dump(pid, path):
    """Where the processes of `pid`'s group are: each one's command line and, per thread, its name, state and
    kernel wait channel (/proc), then its native stacks by gdb (or cuda-gdb), where one is installed."""
    group = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getpgid(int(entry)) == pid:
                    group.append(int(entry))
            except OSError:
                pass
    debugger = next((d for d in ("gdb", "cuda-gdb") if shutil.which(d)), None)
    with open(path, "w") as f:
        for q in sorted(group):
            try:
                with open(f"/proc/{q}/cmdline") as c:
                    f.write(f"=== pid {q}: {c.read().replace(chr(0), ' ').strip()[:200]}\n")
                for t in sorted(os.listdir(f"/proc/{q}/task"), key=int):
                    base = f"/proc/{q}/task/{t}"
                    comm = open(f"{base}/comm").read().strip()
                    state = open(f"{base}/stat").read().rsplit(")", 1)[1].split()[0]
                    wchan = open(f"{base}/wchan").read().strip() if os.path.exists(f"{base}/wchan") else "?"
                    f.write(f"thread {t} {comm}: state {state}, wchan {wchan}\n")
            except OSError as e:
                f.write(f"pid {q}: {e}\n")
                continue
            if debugger:
                f.flush()
                try:
                    subprocess.run([debugger, "-p", str(q), "-batch", "-ex", "thread apply all bt 30"], stdout=f,
                                   stderr=subprocess.STDOUT, timeout=120)
                except subprocess.TimeoutExpired:
                    f.write(f"{debugger} did not answer within 120 s\n")


if __name__ == "__main__":
    sys.exit(main())
