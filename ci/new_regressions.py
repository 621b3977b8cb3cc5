#!/usr/bin/env python3
"""Which regressions of tonight's `gpuperf detect` were not there before tonight's run.

    new_regressions.py BEFORE.json AFTER.json [--markdown FILE]

Both files are `gpuperf detect --format json` output: BEFORE from the backup taken before tonight's run,
AFTER from the database with it. A change is identified by (machine, benchmark, params, metric, commit):
the same change found again tomorrow is not new. Prints the new regressions and exits 1 when there are any,
0 when there are none, 2 on unreadable input. Standard library only.
"""
import json
import sys


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        return doc["changes"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"new_regressions: {path}: not gpuperf detect JSON ({e})", file=sys.stderr)
        sys.exit(2)


def key(c):
    return (c.get("machine"), c.get("benchmark"), json.dumps(c.get("params", {}), sort_keys=True),
            c.get("metric"), c.get("commit"))


def instance(c):
    params = c.get("params") or {}
    inner = ",".join(f"{k}={params[k]}" for k in sorted(params))
    return f"{c.get('benchmark')}[{inner}]" if inner else str(c.get("benchmark"))


def md_cell(text):
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ").replace("<", "&lt;")


def main(argv):
    args = [a for a in argv if not a.startswith("--")]
    markdown = None
    if "--markdown" in argv:
        i = argv.index("--markdown")
        if i + 1 >= len(argv):
            print("new_regressions: --markdown needs a file", file=sys.stderr)
            return 2
        markdown = argv[i + 1]
        args = [a for a in args if a != markdown]
    if len(args) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    before = {key(c) for c in load(args[0]) if c.get("kind") == "regression"}
    new = [c for c in load(args[1]) if c.get("kind") == "regression" and key(c) not in before]

    lines = []
    if new:
        lines.append(f"**{len(new)} new regression{'s' if len(new) != 1 else ''} tonight**")
        lines.append("")
        lines.append("| instance | metric | change | commit | since | hints |")
        lines.append("|---|---|---|---|---|---|")
        for c in new:
            pct = c.get("change_pct")
            change = f"{pct:+.1f}%" if isinstance(pct, (int, float)) else "n/a"
            lines.append("| " + " | ".join(md_cell(x) for x in (
                instance(c), c.get("metric"), change, (c.get("commit") or "")[:10],
                (c.get("previous_commit") or "")[:10], "; ".join(c.get("hints") or []))) + " |")
    else:
        lines.append("No new regressions tonight.")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if markdown:
        with open(markdown, "w", encoding="utf-8") as f:
            f.write(text)
    return 1 if new else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
