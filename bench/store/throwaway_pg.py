"""A throwaway PostgreSQL server for the benchmark scripts: bench/store/pg_throwaway.sh driven from Python.

    with ThrowawayServer(folder) as pg:        # initdb + start on a Unix socket in folder; stop and remove at exit
        uri = pg.create_database("bench1")     # postgresql:///bench1?host=...&port=...&user=postgres
        pg.psql(uri, "SELECT count(*) FROM runs")

start (or entering the with) raises ServerUnavailable (with pg_throwaway.sh's reason; its exit 3) when no
server can be started; server_binaries() raises it when there are no server binaries at all. Standard library only.
"""
import os
import shlex
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "pg_throwaway.sh")


class ServerUnavailable(RuntimeError):
    pass


def server_binaries():
    """The folder of initdb, pg_ctl and psql that pg_throwaway.sh would use; ServerUnavailable when there is none."""
    p = subprocess.run(["bash", "-c", '. "$1"; _pg_tw_bindir', "throwaway_pg", SCRIPT], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise ServerUnavailable(p.stderr.strip())
    return p.stdout.strip()


class ThrowawayServer:
    def __init__(self, folder):
        self.folder = folder
        self.env = {}

    def start(self):
        p = subprocess.run(["bash", SCRIPT, "start", self.folder, "postgres"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        if p.returncode != 0:
            raise ServerUnavailable(p.stderr.strip() or f"pg_throwaway.sh start exited {p.returncode}")
        for line in p.stdout.splitlines():
            if "=" in line:
                key, value = line.split("=", 1)
                self.env[key] = shlex.split(value)[0] if value else ""
        return self

    def stop(self):
        subprocess.run(["bash", SCRIPT, "stop", self.folder], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def cpu_seconds(self):
        """CPU seconds of the server's postmaster and the backends it has reaped (each connection's process,
        once it ends; not the background writers still running): the server's share of a batch of clients,
        as the difference of two calls around it."""
        with open(os.path.join(self.folder, "data", "postmaster.pid"), encoding="utf-8") as f:
            pid = f.readline().strip()
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        # utime, stime, cutime, cstime: fields 14-17 of proc(5), counted from after the command's ")".
        return sum(int(x) for x in fields[11:15]) / os.sysconf("SC_CLK_TCK")

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def uri(self, database):
        return f"postgresql:///{database}?host={self.env['PG_SOCKET_DIR']}&port={self.env['PG_PORT']}&user=postgres"

    def psql(self, uri, sql):
        """Runs sql, returns its unaligned, tuples-only output."""
        return subprocess.run([os.path.join(self.env["PG_BINDIR"], "psql"), "-XAtq", "-v", "ON_ERROR_STOP=1", uri,
                               "-c", sql], stdout=subprocess.PIPE, check=True, text=True).stdout

    def create_database(self, name):
        self.psql(self.uri("postgres"), f"CREATE DATABASE {name}")
        return self.uri(name)
