#!/usr/bin/env python3
"""Which regressions of tonight's `gpuperf detect` were not there before tonight's run.

    new_regressions.py BEFORE.json AFTER.json [--markdown FILE] [--json FILE] [--bisect-list FILE]

Both files are `gpuperf detect --format json` output (or several runs' of it, their "changes" joined):
BEFORE as the history stood before tonight's runs (`detect --before-run`, per machine, in nightly.sh),
AFTER as it stands with them (`detect --as-of`). A change is the same change when its series (machine,
benchmark, params, metric) matches and it starts at the same run or one run apart: an unconfirmed change
reported last night that the segmentation confirms tonight, perhaps placed one run over, is not new. (Runs
are matched by their database ids.)

What is new is listed as findings, as the report does: a duration change with the counters of the same
instance that changed at the same run (one run apart for a noisy metric) as its hints, and a counter that
changed without a duration change on its own, marked so. Only regressions of gated metrics (detect's
"gated": duration, the deterministic counters, and what `--gate` adds; an older file without the field
gates every change) fail the night: the others are listed under the table, not failed. Prints the new
regressions and exits 1 when there are gated ones, 0 when there are none, 2 on unreadable input. --json writes
them as {"findings": [...]}: each the change as detect gave it, its "hints" those of the table. The source lines
that moved at a finding (detect's "lines", when the runs collected them) are listed under the table, one a line.
A change that the team has answered (`gpuperf ack`: detect's "acknowledgement") is never new: it is listed under
the table as acknowledged or accepted, with its reason, and fails nothing; --json lists it under "acknowledged".
--bisect-list writes one line per new finding for
`gpuperf bisect` (nightly.sh --bisect): instance regex, metric, last good commit, first bad commit, tab-separated.
Standard library only.
"""
import json
import re
import sys

COUNTER_ONLY = "counter only: no duration change detected"


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        return list(doc["changes"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"new_regressions: {path}: not gpuperf detect JSON ({e})", file=sys.stderr)
        sys.exit(2)


def instance_key(c):
    return (c.get("machine"), c.get("benchmark"), json.dumps(c.get("params", {}), sort_keys=True))


def series_key(c):
    return instance_key(c) + (c.get("metric"),)


def same_start(a, b):
    """The same run, or one run apart (one's first run at the new level is the other's last at the old)."""
    if "run_id" not in a or "run_id" not in b:
        return a.get("commit") == b.get("commit")  # detect JSON without run ids
    return (a["run_id"] == b["run_id"] or a["run_id"] == b.get("previous_run_id")
            or a.get("previous_run_id") == b["run_id"])


def seen(c, before):
    return any(series_key(b) == series_key(c) and same_start(b, c) for b in before)


def duration_of(c, changes):
    """The duration change of c's instance that c belongs to, or None."""
    for d in changes:
        if d.get("metric") != "duration" or instance_key(d) != instance_key(c):
            continue
        if d.get("run_id") == c.get("run_id") or (not c.get("deterministic", True) and same_start(d, c)):
            return d
    return None


def findings(after, before):
    """New findings of AFTER: (change, hints) for each new regression, counters folded into durations."""
    out = []
    for c in after:
        if c.get("kind") != "regression" or seen(c, before) or c.get("acknowledgement"):
            continue
        if c.get("metric") == "duration":
            out.append((c, list(c.get("hints") or [])))
        elif duration_of(c, after) is None:
            out.append((c, [COUNTER_ONLY]))
        # else: a counter that moved with a duration change, which names it in its hints
    return out


def answered(after):
    """The regressions of AFTER the team has acknowledged (gpuperf ack), new tonight or not."""
    return [c for c in after if c.get("kind") == "regression" and c.get("acknowledgement")]


def answer_line(c):
    a = c["acknowledgement"]
    pct = c.get("change_pct")
    change = f"{pct:+.1f}%" if isinstance(pct, (int, float)) else "n/a"
    word = "accepted as the new baseline" if a.get("accepted") else "acknowledged"
    link = f" ({a['link']})" if a.get("link") else ""
    return md_cell(f"{instance(c)} {c.get('metric')} {change}: {word}: {a.get('reason', '')}{link} "
                   f"(by {a.get('by', '')}, {a.get('at', '')})")


def instance(c):
    params = c.get("params") or {}
    inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return f"{c.get('benchmark')}[{inner}]" if inner else str(c.get("benchmark"))


def state(c):
    if not c.get("unconfirmed"):
        return "confirmed"
    n = c.get("runs_after", 0)
    return f"unconfirmed ({n} run{'' if n == 1 else 's'})"


def md_cell(text):
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    files = {}
    for option in ("--markdown", "--json", "--bisect-list"):
        if option in argv:
            i = argv.index(option)
            if i + 1 >= len(argv):
                print(f"new_regressions: {option} needs a file", file=sys.stderr)
                return 2
            files[option] = argv[i + 1]
            args = [a for a in args if a != argv[i + 1]]
    markdown, bisect_list, json_out = files.get("--markdown"), files.get("--bisect-list"), files.get("--json")
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    after_changes = load(args[1])
    found = findings(after_changes, load(args[0]))
    acked = answered(after_changes)
    new = [f for f in found if f[0].get("gated", True)]
    ungated = [f for f in found if not f[0].get("gated", True)]

    lines = []
    if new:
        lines.append(f"**{len(new)} new regression{'s' if len(new) != 1 else ''} tonight**")
        lines.append("")
        # Several GPUs (several machines) in one night: which one, as detect's own table says it.
        machines = len({c.get("machine") for c, _ in new}) > 1
        lines.append("| " + ("machine | " if machines else "") + "instance | metric | change | state | commit | since | hints |")
        lines.append("|" + "---|" * (8 if machines else 7))
        for c, hints in new:
            pct = c.get("change_pct")
            change = f"{pct:+.1f}%" if isinstance(pct, (int, float)) else "n/a"
            cells = ([c.get("machine")] if machines else []) + [
                instance(c), c.get("metric"), change, state(c), (c.get("commit") or "")[:10],
                (c.get("previous_commit") or "")[:10], "; ".join(hints)]
            lines.append("| " + " | ".join(md_cell(x) for x in cells) + " |")
        # The source lines that moved at each finding, as detect's JSON names them ("lines", a "summary" each).
        moved = [(c, line) for c, _ in new for line in (c.get("lines") or []) if isinstance(line, dict)]
        if moved:
            lines.append("")
            lines.append("Source lines that moved:")
            lines.append("")
            for c, line in moved:
                lines.append(f"- {md_cell(instance(c))} {md_cell(c.get('metric'))}: {md_cell(line.get('summary', ''))}")
        if any(c.get("unconfirmed") for c, _ in new):
            lines.append("")
            lines.append("_Unconfirmed: the newest runs differ, too few yet for the change-point test; "
                         "tomorrow's runs confirm it or withdraw it. It is not reported again when confirmed._")
    else:
        lines.append("No new regressions tonight.")
    if ungated:
        lines.append("")
        lines.append("Also new, of metrics that do not gate (listed, not failed; `--gate METRIC` fails on them): " +
                     "; ".join(md_cell(f"{instance(c)} {c.get('metric')} " +
                                       (f"{c['change_pct']:+.1f}%" if isinstance(c.get('change_pct'), (int, float))
                                        else "n/a")) for c, _ in ungated) + ".")
    if acked:
        lines.append("")
        lines.append("Answered (not open):")
        lines.append("")
        lines.extend(f"- {answer_line(c)}" for c in acked)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if markdown:
        with open(markdown, "w", encoding="utf-8") as f:
            f.write(text)
    if json_out:
        with open(json_out, "w", encoding="utf-8") as f:
            json.dump({"findings": [dict(c, hints=hints) for c, hints in new],
                       "ungated": [dict(c, hints=hints) for c, hints in ungated],
                       "acknowledged": acked}, f, indent=1)
            f.write("\n")
    if bisect_list:
        with open(bisect_list, "w", encoding="utf-8") as f:
            for c, _ in new:
                if c.get("commit") and c.get("previous_commit"):
                    f.write("\t".join(("^" + re.escape(instance(c)) + "$", str(c.get("metric")),
                                        c["previous_commit"], c["commit"])) + "\n")
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
