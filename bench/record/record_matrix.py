#!/usr/bin/env python3
"""`gpuperf record` against real programs: each runs N times plain and N times recorded, and one table says
whether recording changed how it ended and whether every kernel record was kept.

    bench/record/record_matrix.py --gpuperf BIN --probe BIN [--runs 20] [--plain-runs N] [--jobs 4] [--only NAME,...]
                           [--out DIR] [--deadline S] [--metrics-args '--profile-launches 1']

Programs (bench/record/programs/ and tests/record/record_probe.cu): a PyTorch training loop in nested NVTX ranges,
the same with a CuPy RawKernel, a JAX `jit` program, a Triton kernel, PyTorch with a DataLoader of 2 worker
processes, a `torch.compile` program (the launches of its compiled steps, in an NVTX range, against
torch.profiler's count of the same steps), a C++ program launching from 4 threads that exits from a worker
thread, a C++ program that exits while its kernels still run, a C++ program replaying a captured CUDA graph
500 times, and a C++ program of steady launches killed with SIGKILL --kill-after seconds after it began
(it prints what it launched as it goes; the cell checks that every run kept all but at most the last flush
period's launches: the count it printed --period + 0.25 s before the kill), a DistributedDataParallel program
under torchrun on two GPUs (`torch-ddp`) and a transformers GPT-2 built from its config (`gpt2`); five of them
again with `--metrics default`. A program the machine lacks (no torch, jax, cupy, triton or transformers, or
fewer than two GPUs for torch-ddp) is shown as skipped.

torch-ddp is judged per rank: the launches stored in each rank's run (its GPU's) equal torch.profiler's count
on that rank (a plain run with --count), and with --metrics its communication kernels (NCCL's) have no
counters and every other identity has (a rank of a distributed job is replayed one pass a launch, so nothing a
peer wrote is restored: `record --profile-replay`, docs/record-ends.md; a summary that says kernel replay was
not used, as an older library's did, expects no counters at all). --metrics-args may name its own --metrics.
--run-timeout bounds each run: a run still going then is killed (its
process group) and counted as hung, a failure. For the --metrics cells the record files are kept and the
profiling time of each profiled launch (W lines) is summarized under the table: median and p95 per launch,
and the median wall time of a run against the plain runs'.

Columns: runs (finished by --deadline, if given), exit = plain (runs whose exit status, as the program's own
or as stored by record, equals the plain runs'), crashes (runs whose program was killed by a signal, also when
record stored nothing), not flushed (record's warning that a process ended without flushing its records),
metric errors (with --metrics: runs that warned of a failed profiled launch, that stored an identity whose
`instructions` read NaN, or whose identities with
counters plus those only CUDA graph replays ran are fewer than its identities; torch-ddp and gpt2: a compute
identity without counters, or a communication one with them), hung (runs killed at --run-timeout), counters (with --metrics:
identities with counters / identities, the worst run), launches (stored against the program's own count: "="
when every run matched, else the worst difference; for the SIGKILL cell "kept/made" of the worst run and
whether every run kept all but the last period's launches). The program's own count: what it counted itself (launches it made, or torch.profiler's kernel
events or jax.profiler's, in one extra plain run with --count, since a recorded run cannot hold a second CUPTI
profiler). Exit status 0 when every cell is clean.
"""
import argparse
import concurrent.futures as futures
import json
import math
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def have(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


def own_count(text, key="launches"):
    found = re.findall(rf"^{key} (\d+)$", text, re.M)
    return int(found[-1]) if found else None


# core/kernel_kind.cpp's built-in patterns: a kernel whose name holds one is communication (never profiled).
COMMUNICATION = ("ncclDevKernel", "ncclKernel", "nvshmem", "c10d::symmetric_memory", "deep_ep::intranode",
                 "deep_ep::internode")


def is_communication(name):
    return any(p in name for p in COMMUNICATION)


def rank_counts(text):
    """torch_ddp.py's per-rank lines `rank R launches N communication M` -> {R: N}; only real counts (N >= 0)."""
    return {int(r): int(n) for r, n, _ in re.findall(r"^rank (\d+) launches (-?\d+) communication (-?\d+)$", text, re.M)
            if int(n) >= 0}


def stored_ranks(stderr):
    """record's `stored run UUID (id N, program P, rank R of W ...` lines -> {uuid: rank}."""
    return {u: int(r) for u, r in re.findall(r"^stored run (\S+) \(id \d+, program [^,]*, rank (\d+)", stderr, re.M)}


def profile_times(folder):
    """The W lines (profiling wall time of each profiled launch, ns) of every process file kept in `folder`,
    less those of launches the watchdog gave up (G lines)."""
    out = []
    if not folder or not os.path.isdir(folder):
        return out
    for name in sorted(os.listdir(folder)):
        if not (name.startswith("process-") and name.endswith(".txt")):
            continue
        times, given_up = {}, set()
        with open(os.path.join(folder, name), errors="replace") as f:
            for line in f:
                if line.startswith("W "):
                    parts = line.split()
                    if len(parts) >= 3:
                        times[parts[1]] = int(parts[2])
                elif line.startswith("G "):
                    given_up.add(line.split()[1])
        out += [ns for corr, ns in times.items() if corr not in given_up]
    return out


def percentile(values, q):
    """The q-th percentile (0-100) of `values`, nearest rank; None when empty."""
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, math.ceil(q / 100 * len(v)) - 1))]


def gpu_count():
    p = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True) if shutil.which("nvidia-smi") else None
    return sum(1 for line in p.stdout.splitlines() if line.startswith("GPU ")) if p and p.returncode == 0 else 0


RUNNING = set()  # the process groups of runs still going (run_bounded), for kill_running at a deadline


def run_bounded(cmd, timeout, env=None):
    """subprocess.run with the whole process group killed at `timeout` s (0: none): returns (CompletedProcess,
    hung). A recorded torchrun is gpuperf, torchrun and its ranks: all of them go."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                         env=env)
    RUNNING.add(p.pid)
    try:
        out, err = p.communicate(timeout=timeout if timeout > 0 else None)
        return subprocess.CompletedProcess(cmd, p.returncode, out, err), False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, 9)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        return subprocess.CompletedProcess(cmd, p.returncode, out, err + f"\n# killed at --run-timeout {timeout} s\n"), True
    finally:
        RUNNING.discard(p.pid)


def kill_running():
    """Kills the process group of every run still going (left at --deadline): they would hold the GPUs (and
    their counters) into whatever runs next."""
    for pid in list(RUNNING):
        try:
            os.killpg(pid, 9)
        except ProcessLookupError:
            pass


def executable(option, given):
    """The absolute path of a program given as a path or, like a shell, a bare name found on PATH; exits with a
    message naming the option if there is none (before any run starts, not from a run's thread)."""
    path = given if os.sep in given else shutil.which(given)
    if path is None or not (os.path.isfile(path) and os.access(path, os.X_OK)):
        sys.exit(f"record_matrix: {option} {given}: no such executable"
                 f"{'' if os.sep in given else ' on PATH'}")
    return os.path.abspath(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", required=True)
    ap.add_argument("--probe", required=True, help="tests/record/record_probe built for this GPU")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--runs-metrics", type=int, default=-1,
                    help="--metrics runs per program (default: --runs); they go one at a time")
    ap.add_argument("--gpu-sets", default="",
                    help="';'-separated CUDA_VISIBLE_DEVICES values, e.g. '0,1;2,3': profiled runs go one at a time "
                         "per set, each with its set's GPUs, so two torchrun jobs on four GPUs profile at once "
                         "(default: one at a time on every GPU)")
    ap.add_argument("--run-timeout", type=float, default=0,
                    help="seconds: a run still going then is killed and counted as hung (0: none)")
    ap.add_argument("--plain-runs", type=int, default=-1,
                    help="plain runs per program, the reference exit status and count (default: --runs)")
    ap.add_argument("--jobs", type=int, default=4, help="programs run at once (exit behaviour, not timing)")
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--out", default="")
    ap.add_argument("--deadline", type=float, default=0,
                    help="seconds: judge the runs finished by then and leave the rest (0: wait for all)")
    ap.add_argument("--kill-after", type=float, default=4.0, help="SIGKILL cell: seconds of launches before the kill")
    ap.add_argument("--period", type=float, default=1.0, help="the injection library's flush period (s)")
    ap.add_argument("--metrics-args", default="",
                    help="more `record` options for the --metrics cells, e.g. '--profile-launches 1' (shown in the "
                         "setting's name)")
    args = ap.parse_args()
    probe, gpuperf = executable("--probe", args.probe), executable("--gpuperf", args.gpuperf)
    out = args.out or tempfile.mkdtemp(prefix="record_matrix-")
    os.makedirs(out, exist_ok=True)
    py = sys.executable

    # name, command, modules it needs, how its own count is known: "print" (it prints `launches N`, the
    # launches it made of its own kernels, matched against the stored launches of `kernel`, or of all
    # kernels when None), "profiler" (a plain run with --count prints the framework profiler's count of
    # every kernel: torch.profiler, jax.profiler)
    torch_train = [py, os.path.join(PROGRAMS, "torch_train.py")]
    programs = [
        ("torch-nvtx", torch_train, ["torch"], "profiler", None),
        ("torch-nvtx+cupy", torch_train + ["--cupy"], ["torch", "cupy"], "profiler", None),
        ("jax-jit", [py, os.path.join(PROGRAMS, "jax_jit.py")], ["jax"], "profiler", None),
        ("triton", [py, os.path.join(PROGRAMS, "triton_add.py")], ["torch", "triton"], "print", "add_kernel"),
        ("torch-dataloader", [py, os.path.join(PROGRAMS, "torch_loader.py")], ["torch"], "profiler", None),
        ("torch-compile", [py, os.path.join(PROGRAMS, "torch_compile.py")], ["torch", "triton"], "profiler",
         "nvtx:measured"),
        ("cpp-4-threads", [probe, "threads", "200"], [], "print", None),
        ("cpp-exit-running", [probe, "exit-running", "8"], [], "print", None),
        ("cpp-graph", [probe, "graph", "500"], [], "print", None),
        ("cpp-sigkill", [probe, "steady", "60"], [], "kill", None),
        # torchrun's standalone rendezvous takes a free port, so runs may overlap; "ranks": judged per rank.
        ("torch-ddp", [py, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2",
                       os.path.join(PROGRAMS, "torch_ddp.py")], ["torch", "2 GPUs"], "ranks", None),
        ("gpt2", [py, os.path.join(PROGRAMS, "transformers_gpt2.py")], ["torch", "transformers"], "profiler", None),
    ]
    metric_runs = {"jax-jit", "cpp-4-threads", "cpp-graph", "torch-ddp", "gpt2"}
    # Judged by kind: every compute identity has counters, no communication one has (a whole model's
    # identities, or a job's collectives).
    kind_judged = {"torch-ddp", "gpt2"}
    # Profiled runs go one at a time; JAX's take about a minute each (XLA's autotuner profiles its candidates),
    # so they queue after the others' rather than holding them back by a minute a round.
    slow_metrics = {"jax-jit"}
    only = set(filter(None, args.only.split(",")))
    if only:
        programs = [p for p in programs if p[0] in only]
    # Only what the chosen programs need is looked for (importing torch or jax takes seconds).
    needed = {m for p in programs for m in p[2]}
    missing = {m: not have(m) for m in needed - {"2 GPUs"}}
    if "2 GPUs" in needed:
        missing["2 GPUs"] = gpu_count() < 2
    metric_runs_n = args.runs if args.runs_metrics < 0 else args.runs_metrics

    def run_killed(full):
        """Runs a `record_probe steady` (maybe under gpuperf record), SIGKILLs the probe --kill-after seconds
        after its first launch, and returns (rc, stdout, stderr, [(seconds before the kill, launched)])."""
        p = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        pid, first, kill_at, seen = None, None, None, []
        for line in p.stdout:
            now = time.monotonic()
            if line.startswith("pid "):
                pid = int(line.split()[1])
            elif line.startswith("launched ") and kill_at is None:
                first = first or now
                seen.append((now, int(line.split()[1])))
                if now - first >= args.kill_after and pid is not None:
                    kill_at = time.monotonic()
                    os.kill(pid, 9)
            if kill_at is not None:
                break
        rest, err = p.communicate()
        lines = [(kill_at - t, n) for t, n in seen] if kill_at else []
        return p.returncode, rest, err, lines

    def run_plain(cmd, tag, how=None):
        started_at = time.monotonic()
        hung = False
        if how == "kill":
            rc, stdout, stderr, lines = run_killed(cmd)
            p = subprocess.CompletedProcess(cmd, rc, stdout, stderr)
        else:
            p, hung = run_bounded(cmd, args.run_timeout)
        with open(os.path.join(out, tag + ".log"), "w") as f:
            f.write(p.stdout + p.stderr + f"# exit {p.returncode}\n")
        return p.returncode, p.stdout, time.monotonic() - started_at, hung

    def run_recorded(cmd, extra, tag, how=None, kind_judged_cell=False):
        db = os.path.join(out, tag + ".db")
        for stale in (db, db + "-wal", db + "-shm"):  # an --out folder used before: judge this run alone
            if os.path.exists(stale):
                os.remove(stale)
        records = os.path.join(out, tag + "-records") if extra else ""
        if records:
            shutil.rmtree(records, ignore_errors=True)
        full = [gpuperf, "--db", db, "record", *extra, *(["--keep-records", records] if records else []), "--", *cmd]
        lines = []
        started_at = time.monotonic()
        hung = False
        gpu_set = gpu_sets.get() if extra and gpu_sets is not None else None  # this profiled run's GPUs
        try:
            env = dict(os.environ, CUDA_VISIBLE_DEVICES=gpu_set) if gpu_set is not None else None
            if how == "kill":
                rc, stdout, stderr, lines = run_killed(full)
                p = subprocess.CompletedProcess(full, rc, stdout, stderr)
            else:
                p, hung = run_bounded(full, args.run_timeout, env)
        finally:
            if gpu_set is not None:
                gpu_sets.put(gpu_set)
        wall = time.monotonic() - started_at
        with open(os.path.join(out, tag + ".log"), "w") as f:
            f.write(p.stdout + p.stderr)
        runs = []
        if os.path.exists(db):
            e = subprocess.run([gpuperf, "--db", db, "export"], capture_output=True, text=True)
            if e.returncode == 0:
                runs = json.loads(e.stdout)["runs"]
        statuses = {r.get("exit_status") for r in runs if "exit_status" in r}
        stored_exit = statuses.pop() if len(statuses) == 1 else None
        launches = {}
        ranks = stored_ranks(p.stderr)
        by_rank = {}  # rank -> launches stored in its run (torch-ddp: one run per rank, its GPU's)
        for r in runs:
            rank = r.get("rank", ranks.get(r.get("uuid")))
            for res in r["results"]:
                v = res["metrics"].get("launches", {}).get("value")
                if v is not None:
                    key = (res["benchmark"], json.dumps(res.get("params", {}), sort_keys=True))
                    launches[key] = launches.get(key, 0) + int(v)
                    if rank is not None:
                        by_rank[rank] = by_rank.get(rank, 0) + int(v)
        # A kernel of a --metrics run with nothing but its timing under every identity: its profiled launches
        # gave no counters. (Its first --profile-launches launches are profiled, so only the identities
        # (launch shapes, NVTX paths) they fell in have counters.)
        timing_only = {"duration", "launches", "gpu_time_total", "gpu_time_share"}
        # By run (a rank's, in torch-ddp), so that one rank's counters never cover the other's identity; a kernel
        # name counts as profiled in a run when any of its identities there has counters.
        profiled = {}
        for k, r in enumerate(runs):
            rank = r.get("rank", ranks.get(r.get("uuid")))
            run_name = "run %d" % k if rank is None else "rank %s" % rank
            for res in r["results"]:
                name = (run_name, res["benchmark"])
                profiled[name] = profiled.get(name, False) or bool(set(res["metrics"]) - timing_only)
        summary = re.search(r"gpuperf: metrics: counters for (\d+) of (\d+) identities", p.stderr)
        graph_only = re.search(r"(\d+) ran only in CUDA graph replays", p.stderr)
        counters = (int(summary.group(1)), int(summary.group(2))) if summary else None
        uncovered = (counters is None or counters[0] + (int(graph_only.group(1)) if graph_only else 0) < counters[1])
        # By kind (torch-ddp, gpt2): a compute identity without counters, or a communication one with them. A
        # process whose summary says kernel replay was not used (an older library's ranks) may have none.
        # A counter every kernel has read NaN ("not applicable: CUPTI evaluated ... = -nan"): a profiled launch
        # whose values CUPTI never filled (a session restarted with another configuration did that).
        nan_counters = sum(1 for r in runs for res in r["results"]
                           if "nan" in res["metrics"].get("instructions", {}).get("message", ""))
        unreplayed = "where kernel replay is not used" in p.stderr
        wrong_kind = sorted(f"{run_name}: {name}" for (run_name, name), has in profiled.items()
                            if (has if unreplayed else has == is_communication(name)))
        killed = re.search(r": signal (\d+) after ", p.stderr)
        return {"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr, "exit": stored_exit,
                "signal": int(killed.group(1)) if killed else None, "launches": launches, "kill_lines": lines,
                "not_flushed": "without flushing" in p.stderr, "counters": counters, "by_rank": by_rank,
                "hung": hung, "wall": wall, "profile_ns": profile_times(records), "wrong_kind": wrong_kind,
                "metric_errors": bool(extra) and ("hardware metrics" in p.stderr or "given up" in p.stderr or
                                                  nan_counters > 0 or
                                                  (bool(wrong_kind) if kind_judged_cell else uncovered))}

    # Everything is submitted at once and judged at the end: runs with --metrics hold the GPU's counters for
    # the whole profiled launch (two such programs at once get CUPTI_ERROR_HARDWARE_BUSY), so they go one at
    # a time through their own queue, alongside the others. Runs are submitted in rounds (the i-th run of
    # every cell, then the (i+1)-th), so that with a --deadline every cell has its share of the runs finished.
    started = time.time()
    pool = futures.ThreadPoolExecutor(max_workers=args.jobs)
    sets = [g.strip() for g in args.gpu_sets.split(";") if g.strip()]
    gpu_sets = None
    if sets:
        gpu_sets = queue.Queue()
        for g in sets:
            gpu_sets.put(g)
    serial = futures.ThreadPoolExecutor(max_workers=max(1, len(sets)))
    plain_runs = args.runs if args.plain_runs < 0 else args.plain_runs
    pending, cells, judged_by_kind = [], [], set()
    for name, cmd, needs, how, kernel in programs:
        if any(missing[m] for m in needs):
            pending.append((name, "-", "skipped: no " + ",".join(m for m in needs if missing[m])))
            continue
        settings = [("record", [])]
        if name in metric_runs:
            extra_args = args.metrics_args.split()
            # --metrics-args may name its own --metrics (the set the runs profile) instead of the default one.
            base = [] if "--metrics" in extra_args else ["--metrics", "default"]
            settings.append((" ".join(["record", *base, *extra_args]), [*base, *extra_args]))
        item = (name, [], [None], how, kernel, {setting: [] for setting, _ in settings})
        if name in kind_judged:
            judged_by_kind.add(name)
        pending.append(item)
        cells.append((item, cmd, settings))
    for i in range(max(args.runs, plain_runs, metric_runs_n)):
        for (name, plain, count, how, kernel, recorded), cmd, settings in cells:
            if i < plain_runs:
                plain.append(pool.submit(run_plain, cmd, f"{name}-plain-{i}", how))
            if i == 0 and how in ("profiler", "ranks"):
                count[0] = pool.submit(run_plain, cmd + ["--count"], f"{name}-count")
            for setting, extra in settings:
                if i >= (metric_runs_n if extra else args.runs):
                    continue
                if extra and name in slow_metrics:
                    continue  # queued after the other cells' profiled runs, below
                runner = serial if extra else pool
                recorded[setting].append(runner.submit(run_recorded, cmd, extra,
                                                       f"{name}-{setting.replace(' ', '')}-{i}", how,
                                                       name in judged_by_kind))
    for (name, plain, count, how, kernel, recorded), cmd, settings in cells:
        for setting, extra in settings:
            if extra and name in slow_metrics:
                recorded[setting] += [serial.submit(run_recorded, cmd, extra,
                                                    f"{name}-{setting.replace(' ', '')}-{i}", how,
                                                    name in judged_by_kind)
                                      for i in range(metric_runs_n)]
    pending = [(p[0], p[1], p[2][0], *p[3:]) if len(p) > 3 else p for p in pending]
    every = [f for item in pending if len(item) > 3 for f in
             item[1] + ([item[2]] if item[2] else []) + [g for fs in item[5].values() for g in fs]]
    futures.wait(every, timeout=max(0.0, args.deadline - (time.time() - started)) if args.deadline > 0 else None)
    for f in every:
        f.cancel()
    done = lambda fs: [f.result() for f in fs if f.done() and not f.cancelled()]
    rows, costs = [], []
    for item in pending:
        if len(item) == 3:
            rows.append(item)
            continue
        name, plain_f, count_f, how, kernel, recorded = item
        plain = done(plain_f)
        plain_codes = sorted({rc for rc, *_ in plain})
        counted = done([count_f]) if count_f is not None else []
        if how == "ranks":
            reference = rank_counts(counted[0][1]) if counted else None
        else:
            reference = own_count(counted[0][1]) if counted else None
        rows.append((name, "plain", summarize_plain(plain_codes, plain, len(plain), reference, how)))
        plain_wall = percentile([w for _, _, w, hung in plain if not hung], 50)
        for setting, fs in recorded.items():
            finished = done(fs)
            rows.append((name, setting, judge(finished, plain_codes, how, kernel, reference, args.period)))
            if setting != "record":
                costs.append((name, setting, finished, plain_wall))
    # Runs still going at the deadline are killed once the table is printed (kill_running).
    pool.shutdown(wait=args.deadline <= 0, cancel_futures=True)
    serial.shutdown(wait=args.deadline <= 0, cancel_futures=True)

    print(f"\n{'program':18} {'setting':26} {'runs':>4} {'exit = plain':>12} {'crashes':>7} {'not flushed':>11} "
          f"{'metric errors':>13} {'hung':>4} {'counters':>9} {'launches stored / own':>24}")
    bad = 0
    for name, setting, cell in rows:
        if isinstance(cell, str):
            print(f"{name:18} {setting:26} {cell}")
            continue
        print(f"{name:18} {setting:26} {cell['runs']:>4} {cell['exit_equal']:>12} {cell['crashes']:>7} "
              f"{cell['not_flushed']:>11} {cell['metric_errors']:>13} {cell.get('hung', '-'):>4} "
              f"{cell.get('counters', '-'):>9} {cell['launches']:>24}")
        bad += cell["bad"]
    for line in describe_costs(costs):
        print(line)
    print(f"\nrecord_matrix: {len(rows)} cells, {bad} problem(s), {time.time() - started:.0f} s; logs in {out}",
          flush=True)
    kill_running()
    os._exit(1 if bad else 0)  # without waiting for runs left at the deadline (killed above)


def describe_costs(costs):
    """Lines under the table for the --metrics cells: what profiling cost per profiled launch (W lines) and the
    run's wall time against the plain runs'."""
    out = []
    for name, setting, finished, plain_wall in costs:
        per_launch = [ns for r in finished for ns in r.get("profile_ns", [])]
        walls = [r["wall"] for r in finished if "wall" in r and not r.get("hung")]
        if not per_launch and not walls:
            continue
        text = f"{name} {setting}: "
        if per_launch:
            text += (f"profiling per launch median {percentile(per_launch, 50) / 1e6:.1f} ms, p95 "
                     f"{percentile(per_launch, 95) / 1e6:.1f} ms ({len(per_launch)} profiled launches in "
                     f"{len(finished)} runs)")
        else:
            text += "no profiled launch"
        if walls:
            text += f"; wall median {percentile(walls, 50):.1f} s"
            if plain_wall:
                text += f" against {plain_wall:.1f} s plain ({percentile(walls, 50) / plain_wall:.2f}x)"
        # Launches whose counters CUPTI failed to give, their groups given back to a later launch (the summary).
        lost = [sum(int(n) for n in re.findall(r"(\d+) profiled launch\(es\) lost their counters", r.get("stderr", "")))
                for r in finished]
        if any(lost):
            text += (f"; {sum(lost)} profiled launches lost their counters and were given back, in "
                     f"{sum(1 for n in lost if n)} of {len(finished)} runs")
        out.append(text)
    return out


def summarize_plain(codes, plain, runs, reference, how=None):
    crashes = sum(1 for rc, *_ in plain if rc < 0 and not (how == "kill" and rc == -9))  # the SIGKILL is the test
    hung = sum(1 for _, _, _, h in plain if h)
    if how == "ranks":
        own = [f"rank {r}: {n}" for r, n in sorted(reference.items())] if reference else []
        own_text = "own " + ", ".join(own) if own else "-"
    else:
        own = [reference] if reference is not None else sorted({own_count(text) for _, text, *_ in plain} - {None})
        own_text = "own " + ",".join(map(str, own)) if own else "-"
    return {"runs": runs, "exit_equal": f"exit {','.join(map(str, codes))}", "crashes": crashes,
            "not_flushed": "-", "metric_errors": "-", "hung": hung, "launches": own_text,
            "bad": int(len(codes) != 1 or crashes > 0 or hung > 0)}


def judge_killed(recorded, period):
    """The SIGKILL cell: each run must keep at least what the program had printed `period` + 0.25 s before
    the kill (what the last flush could not take is at most the last period's launches), and no more than it
    launched (its last line, plus the batch of 100 in flight)."""
    worst, worst_text, bad_runs = None, "-", 0
    for r in recorded:
        kept = sum(r["launches"].values())
        lines = r["kill_lines"]
        made = lines[-1][1] if lines else None
        floor = max((n for before, n in lines if before >= period + 0.25), default=0)
        ok = made is not None and floor <= kept <= made + 100 and r["exit"] == -9 and r["not_flushed"]
        bad_runs += not ok
        if made:
            ratio = kept / made
            if worst is None or ratio < worst:
                worst, worst_text = ratio, f"{kept}/{made}"
    return bad_runs, worst_text


def judge(recorded, plain_codes, how, kernel, reference, period=1.0):
    runs = len(recorded)
    if runs == 0:
        return {"runs": 0, "exit_equal": "-", "crashes": "-", "not_flushed": "-", "metric_errors": "-",
                "launches": "none finished", "bad": 1}
    # The program's exit status: as stored by record, else (nothing stored) record's own exit code.
    exits = [r["exit"] if r["exit"] is not None else r["rc"] for r in recorded]
    exit_equal = sum(1 for e in exits if len(plain_codes) == 1 and e == plain_codes[0])
    # A signal the program was not sent (the SIGKILL cell's 9 is the test, not a crash).
    sent = -9 if how == "kill" else None
    crashes = sum(1 for r, e in zip(recorded, exits)
                  if (r["signal"] is not None and -r["signal"] != sent) or (e is not None and e < 0 and e != sent))
    if how == "kill":
        bad_runs, worst = judge_killed(recorded, period)
        return {"runs": runs, "exit_equal": f"{exit_equal}/{runs}", "crashes": crashes, "not_flushed": "expected",
                "metric_errors": "-", "launches": f"{runs - bad_runs}/{runs} within a period, worst {worst}",
                "bad": int(bad_runs > 0 or crashes > 0 or exit_equal != runs)}
    not_flushed = sum(1 for r in recorded if r["not_flushed"])
    metric_errors = sum(1 for r in recorded if r["metric_errors"])
    hung = sum(1 for r in recorded if r.get("hung"))
    diffs = []
    for r in recorded:
        total = sum(r["launches"].values())
        if how == "ranks":  # every rank of the reference, its own run's launches against its own count
            by_rank = r.get("by_rank", {})
            if not reference or set(by_rank) != set(reference):
                diffs.append(None)
            else:
                diffs.append(max((by_rank[k] - reference[k] for k in reference), key=abs))
        elif how == "print":
            own = own_count(r["stdout"])
            stored = total if kernel is None else sum(v for (b, _), v in r["launches"].items() if kernel in b)
            diffs.append(None if own is None else stored - own)
        else:  # profiler: every launch, or (kernel "nvtx:PREFIX") those whose NVTX path begins with PREFIX
            if kernel is not None and kernel.startswith("nvtx:"):
                total = sum(v for (_, params), v in r["launches"].items()
                            if json.loads(params).get("nvtx", "").startswith(kernel[5:]))
            diffs.append(None if reference is None else total - reference)
    if all(d == 0 for d in diffs):
        launches = "= (every run)"
    else:
        worst = max((abs(d) for d in diffs if d is not None), default=None)
        unknown = sum(1 for d in diffs if d is None)
        launches = f"{sum(1 for d in diffs if d != 0)} differ, worst {worst}" + (f", {unknown} unknown" if unknown else "")
    bad = int(exit_equal != runs or crashes or not_flushed or metric_errors or hung or any(d != 0 for d in diffs))
    counted = [r["counters"] for r in recorded if r["counters"] is not None]
    counters = "-"
    if counted:
        low = min(counted, key=lambda c: (c[0] / c[1] if c[1] else 1.0))
        counters = f"{low[0]}/{low[1]}"
    return {"runs": runs, "exit_equal": f"{exit_equal}/{runs}", "crashes": crashes, "not_flushed": not_flushed,
            "metric_errors": metric_errors, "hung": hung, "counters": counters, "launches": launches, "bad": bad}


if __name__ == "__main__":
    sys.exit(main())
