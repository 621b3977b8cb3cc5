#!/usr/bin/env python3
"""The store under faults (not a test: it prints a table). Runs the real `gpuperf` executable:

  backup kill -9     N kills at random moments of `db backup`: the destination is absent or whole, the retry works
  merge kill -9      kills of `merge --into NEW`: no file, or a whole one with every run
  import kill -9     kills of `import` into an existing database: all of the file's runs or none
  creation+readers   N creations by `import` while `runs` polls the same path: never "not a gpuperf database",
                     "truncated" or "corrupt"
  writers            N concurrent importers of files that take about 1 s each: all succeed
  read-only place    a database (file 444, folder 555, owned by root) read by another user (nobody)
  read-only mount    the same on a read-only bind mount, where mounting is allowed
  tiny disk          `ulimit -f` of 100 KB: import into a new file and backup fail, leaving no file
  full disk          a 1 MB tmpfs, where mounting is allowed

    python3 bench/store/store_faults.py [--gpuperf build/cli/gpuperf] [--backups 30] [--creations 200]
                                  [--writers 16] [--keep DIR]
"""
import argparse
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from import_throughput import make_document  # noqa: E402

BAD_WORDS = ("not a gpuperf database", "truncated", "corrupt", "malformed", "restore it", "not an SQLite")


def run(gp, args, cwd, env=None, user=None, timeout=600):
    cmd = [gp] + args
    if user is not None:
        cmd = ["setpriv", "--reuid=%d" % user, "--regid=%d" % user, "--clear-groups"] + cmd
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def write_doc(path, runs, instances, samples, seed):
    with open(path, "w") as f:
        json.dump(make_document(runs, instances, samples, 11, seed), f)


def count_runs(gp, db, cwd, user=None):
    r = run(gp, ["--db", db, "runs", "--format", "json"], cwd, user=user)
    return len(json.loads(r.stdout)) if r.returncode == 0 else None


def temporaries(folder):
    return [n for n in os.listdir(folder) if ".tmp-" in n]


def kill_during(gp, args, cwd, delay):
    p = subprocess.Popen([gp] + args, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    p.kill()
    p.wait()
    return p.returncode


def seeded(gp, work, folder, db, shape, seed):
    """A new folder under `work` holding database `db` with `shape` (runs, instances, samples) imported."""
    d = os.path.join(work, folder)
    os.makedirs(d)
    write_doc(os.path.join(d, "seed.json"), *shape, seed)
    run(gp, ["--db", db, "import", "seed.json"], d)
    return d, count_runs(gp, db, d)


def backups(gp, work, n):
    d, want = seeded(gp, work, "backup", "src.db", (30, 40, 1250), 7)
    t0 = time.time()
    run(gp, ["--db", "src.db", "db", "backup", "timing.db"], d)
    took = time.time() - t0
    absent = whole = broken = retries_ok = 0
    for _ in range(n):
        kill_during(gp, ["--db", "src.db", "db", "backup", "copy.db"], d, random.uniform(0, took * 1.2))
        if not os.path.exists(os.path.join(d, "copy.db")):
            absent += 1
        elif run(gp, ["--db", "copy.db", "db", "check"], d).returncode == 0 and count_runs(gp, "copy.db", d) == want:
            whole += 1
        else:
            broken += 1
        if os.path.exists(os.path.join(d, "copy.db")):
            os.remove(os.path.join(d, "copy.db"))
        r = run(gp, ["--db", "src.db", "db", "backup", "copy.db"], d)
        retries_ok += r.returncode == 0 and count_runs(gp, "copy.db", d) == want
        os.remove(os.path.join(d, "copy.db"))
    left = len(temporaries(d))
    ok = broken == 0 and retries_ok == n and left == 0
    return ("backup kill -9", n, "absent %d, whole %d, broken %d; retries ok %d; temporaries left %d "
            "(backup takes %.2f s)" % (absent, whole, broken, retries_ok, left, took), ok)


def merge_kills(gp, work, n):
    d = os.path.join(work, "merge")
    os.makedirs(d)
    for i in range(3):
        write_doc(os.path.join(d, "s%d.json" % i), 10, 40, 1250, 100 + i)
        run(gp, ["--db", "s%d.db" % i, "import", "s%d.json" % i], d)
    t0 = time.time()
    run(gp, ["merge", "s0.db", "s1.db", "s2.db", "--into", "timing.db"], d)
    took = time.time() - t0
    want = count_runs(gp, "timing.db", d)
    absent = whole = broken = 0
    for _ in range(n):
        kill_during(gp, ["merge", "s0.db", "s1.db", "s2.db", "--into", "m.db"], d, random.uniform(0, took * 1.2))
        if not os.path.exists(os.path.join(d, "m.db")):
            absent += 1
        elif count_runs(gp, "m.db", d) == want and run(gp, ["--db", "m.db", "db", "check"], d).returncode == 0:
            whole += 1
        else:
            broken += 1
        for f in glob.glob(os.path.join(d, "m.db*")):
            os.remove(f)
    return ("merge kill -9 (new file)", n, "absent %d, whole %d, partial or broken %d (merge takes %.2f s)"
            % (absent, whole, broken, took), broken == 0)


def import_kills(gp, work, n):
    d, before = seeded(gp, work, "import", "i.db", (2, 10, 100), 200)
    all_or_none = bad = 0
    for k in range(n):
        write_doc(os.path.join(d, "k.json"), 5, 40, 1250, 300 + k)
        kill_during(gp, ["--db", "i.db", "import", "k.json"], d, random.uniform(0.05, 1.0))
        now = count_runs(gp, "i.db", d)
        check = run(gp, ["--db", "i.db", "db", "check"], d).returncode == 0
        if now in (before, before + 5) and check:
            all_or_none += 1
        else:
            bad += 1
        before = now if now is not None else before
    return ("import kill -9 (existing db)", n, "all or nothing %d, partial %d" % (all_or_none, bad), bad == 0)


def creations(gp, work, n):
    d = os.path.join(work, "create")
    os.makedirs(d)
    write_doc(os.path.join(d, "w1.json"), 2, 40, 300, 400)
    reads = missing = bad = 0
    examples = []
    for _ in range(n):
        for f in glob.glob(os.path.join(d, "r.db*")):
            os.remove(f)
        p = subprocess.Popen([gp, "-q", "--db", "r.db", "import", "w1.json"], cwd=d)
        while p.poll() is None:
            r = run(gp, ["--db", "r.db", "runs", "--format", "json"], d)
            reads += 1
            if r.returncode == 0:
                continue
            if "no database at" in r.stderr:
                missing += 1
            else:
                bad += 1
                examples.append(r.stderr.strip())
        if p.returncode != 0:
            bad += 1
            examples.append("import exited %d" % p.returncode)
    note = "%d polls: %d while the file did not exist yet, %d reported a sound file as broken" % (reads, missing, bad)
    if examples:
        note += "; e.g. " + examples[0][:120]
    return ("creation + polling readers", n, note, bad == 0 and not any(w in " ".join(examples) for w in BAD_WORDS))


def writers(gp, work, n):
    d = os.path.join(work, "writers")
    os.makedirs(d)
    write_doc(os.path.join(d, "probe.json"), 10, 40, 1250, 500)
    t0 = time.time()
    run(gp, ["--db", "probe.db", "import", "probe.json"], d)
    per_run = (time.time() - t0) / 10
    runs = max(1, int(round(1.0 / per_run)))
    for i in range(n):
        write_doc(os.path.join(d, "w%d.json" % i), runs, 40, 1250, 1000 + i * 100)
    t0 = time.time()
    procs = [subprocess.Popen([gp, "-q", "--db", "c.db", "import", "w%d.json" % i], cwd=d,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True) for i in range(n)]
    codes = [p.wait() for p in procs]
    wall = time.time() - t0
    errors = [p.stderr.read().strip() for p in procs if p.returncode != 0]
    stored = count_runs(gp, "c.db", d)
    ok = codes.count(0) == n and stored == n * runs
    note = "%d of %d exit 0; %s of %d runs stored; one import alone %.1f s, all %.1f s" % (
        codes.count(0), n, stored, n * runs, per_run * runs, wall)
    if errors:
        note += "; e.g. " + errors[0][:120]
    return ("%d writers at once" % n, n, note, ok)


def read_only_place(gp, work):
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return ("read-only place, other user", 0, "skipped: needs root and setpriv to become another user", True)
    top = os.path.join(work, "ro")
    os.makedirs(os.path.join(top, "shared"))
    os.chmod(work, 0o755)
    os.chmod(top, 0o755)
    write_doc(os.path.join(top, "h.json"), 3, 10, 100, 600)
    db = os.path.join(top, "shared", "history.db")
    run(gp, ["--db", db, "import", os.path.join(top, "h.json")], top)
    os.chmod(db, 0o444)
    os.chmod(os.path.join(top, "shared"), 0o555)
    nobody = 65534
    results = []
    out = "/tmp/gpuperf-faults-report-%d" % os.getpid()  # somewhere nobody may write
    for args in (["runs"], ["db", "info"], ["db", "check"], ["export"], ["report", "--format", "md", "--out", out]):
        r = run(gp, ["--db", db] + args, "/", user=nobody)
        results.append((args[0] if args[0] != "db" else " ".join(args), r.returncode))
    shutil.rmtree(out, ignore_errors=True)
    w = run(gp, ["--db", db, "import", os.path.join(top, "h.json")], "/", user=nobody)
    left = sorted(os.listdir(os.path.join(top, "shared")))
    ok = all(code == 0 for _, code in results) and w.returncode == 3 and left == ["history.db"]
    note = ", ".join("%s %d" % rc for rc in results) + "; import exit %d (%s); folder holds %s" % (
        w.returncode, w.stderr.strip().replace("gpuperf: error: ", "")[:70], left)
    return ("read-only place, other user", len(results) + 1, note, ok)


def try_mount(args):
    return subprocess.run(["mount"] + args, capture_output=True).returncode == 0


def read_only_mount(gp, work):
    src = os.path.join(work, "ro", "shared")
    mnt = os.path.join(work, "ro-mount")
    os.makedirs(mnt)
    if not os.path.isdir(src) or not try_mount(["--bind", src, mnt]):
        return ("read-only mount", 0, "skipped: mounting is not allowed here", True)
    try:
        if not try_mount(["-o", "remount,bind,ro", mnt]):
            return ("read-only mount", 0, "skipped: a read-only remount is not allowed here", True)
        r = run(gp, ["--db", os.path.join(mnt, "history.db"), "runs"], "/")
        return ("read-only mount", 1, "runs exit %d %s" % (r.returncode, r.stderr.strip()[:80]), r.returncode == 0)
    finally:
        subprocess.run(["umount", mnt], capture_output=True)


def tiny_disk(gp, work):
    d, _ = seeded(gp, work, "tiny", "src.db", (5, 40, 1250), 700)
    shell = 'ulimit -f 100; exec "$@"'
    a = subprocess.run(["bash", "-c", shell, "bash", gp, "--db", "d.db", "import", "seed.json"], cwd=d,
                       capture_output=True, text=True)
    b = subprocess.run(["bash", "-c", shell, "bash", gp, "--db", "src.db", "db", "backup", "copy.db"], cwd=d,
                       capture_output=True, text=True)
    left = sorted(set(os.listdir(d)) - {"seed.json", "src.db", "src.db-wal", "src.db-shm"})
    reader = run(gp, ["--db", "d.db", "runs"], d)
    ok = a.returncode != 0 and b.returncode != 0 and not left and "no database at" in reader.stderr
    note = "import exit %d, backup exit %d (SIGXFSZ is 128+25); left behind: %s; a reader then says: %s" % (
        a.returncode if a.returncode >= 0 else 128 - a.returncode,
        b.returncode if b.returncode >= 0 else 128 - b.returncode, left or "nothing",
        reader.stderr.strip().replace("gpuperf: error: ", "")[:60])
    return ("tiny disk (ulimit -f 100 KB)", 2, note, ok)


def full_disk(gp, work):
    d = os.path.join(work, "full")
    os.makedirs(d)
    if not try_mount(["-t", "tmpfs", "-o", "size=1m", "tmpfs", d]):
        return ("full disk (1 MB tmpfs)", 0, "skipped: mounting is not allowed here", True)
    try:
        write_doc(os.path.join(work, "full.json"), 5, 40, 1250, 800)
        r = run(gp, ["--db", os.path.join(d, "d.db"), "import", os.path.join(work, "full.json")], d)
        left = os.listdir(d)
        return ("full disk (1 MB tmpfs)", 1, "import exit %d (%s); left behind: %s" % (
            r.returncode, r.stderr.strip()[-60:], left or "nothing"), r.returncode == 3 and not left)
    finally:
        subprocess.run(["umount", d], capture_output=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuperf", default="build/cli/gpuperf")
    ap.add_argument("--backups", type=int, default=30)
    ap.add_argument("--merges", type=int, default=10)
    ap.add_argument("--imports", type=int, default=10)
    ap.add_argument("--creations", type=int, default=200)
    ap.add_argument("--writers", type=int, default=16)
    ap.add_argument("--keep", help="work in this folder and keep it")
    a = ap.parse_args()
    gp = os.path.abspath(a.gpuperf)
    work = a.keep or tempfile.mkdtemp(prefix="gpuperf-faults-")
    os.makedirs(work, exist_ok=True)
    os.environ.pop("GPUPERF_DB", None)
    random.seed(1)
    rows = []
    steps = [lambda: backups(gp, work, a.backups), lambda: merge_kills(gp, work, a.merges),
             lambda: import_kills(gp, work, a.imports), lambda: creations(gp, work, a.creations),
             lambda: writers(gp, work, a.writers), lambda: read_only_place(gp, work),
             lambda: read_only_mount(gp, work), lambda: tiny_disk(gp, work), lambda: full_disk(gp, work)]
    try:
        for step in steps:
            t0 = time.time()
            name, trials, note, ok = step()
            rows.append((name, trials, "%.0f s" % (time.time() - t0), "yes" if ok else "NO", note))
            print("%-30s %s" % (name, "ok" if ok else "FAILED"), file=sys.stderr, flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("| scenario | trials | wall | holds | outcome |")
    print("|---|---:|---:|---|---|")
    for r in rows:
        print("| %s | %d | %s | %s | %s |" % r)
    return 0 if all(r[3] == "yes" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
