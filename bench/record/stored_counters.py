"""What the record benches read back: a database's stored identities with their samples (`gpuperf export`), and
Nsight Compute's `--csv` rows, for values_agree.py, ncu_record_compare.py and l2_state_gpu.sh."""
import csv
import json
import subprocess

# ncu's byte units, to bytes; any other unit (%, a ratio) is kept as it is.
NCU_SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}


def stored_identities(gpuperf, db):
    """Each stored identity of the database's runs: (benchmark, params, {metric: samples}); a deterministic
    metric's samples are its one value."""
    text = subprocess.run([gpuperf, "--db", db, "export"], check=True, capture_output=True, text=True).stdout
    for run in json.loads(text)["runs"]:
        for r in run["results"]:
            metrics = {}
            for name, m in r.get("metrics", {}).items():
                if "samples" in m:
                    metrics[name] = m["samples"]
                elif "value" in m:
                    metrics[name] = [m["value"]]
            yield r["benchmark"], r.get("params", {}), metrics


def ncu_rows(path):
    """Each metric row of an `ncu --csv` output (its own lines skipped): (kernel name, grid as "XxYxZ", metric,
    value in bytes for a byte unit, else as ncu gives it)."""
    with open(path) as f:
        lines = [line for line in f if line.startswith('"')]
    for r in csv.DictReader(lines):
        grid = "x".join(x.strip() for x in r.get("Grid Size", "").strip("()").split(","))
        value = float(r["Metric Value"].replace(",", "")) * NCU_SCALE.get(r.get("Metric Unit", ""), 1)
        yield r.get("Kernel Name", ""), grid, r.get("Metric Name", ""), value
