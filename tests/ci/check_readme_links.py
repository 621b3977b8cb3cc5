#!/usr/bin/env python3
"""README.md's links hold: every in-page link (#anchor) names a heading, as GitHub makes its anchors, and
every relative link or image names a file of the repository. Exit 0 when they do, 1 listing each one that
does not.

    check_readme_links.py REPO_ROOT
    check_readme_links.py --self-test
"""
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading):
    """GitHub's anchor of a heading: lower case, markup and punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)  # backticks, colons, parentheses, commas, dots go
    return text.replace(" ", "-")


def problems(readme_text, root):
    anchors, seen, out = set(), {}, []
    fence = False
    lines = readme_text.split("\n")
    for line in lines:
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", line):
            base = slug(line.lstrip("#"))
            n = seen.get(base, 0)
            seen[base] = n + 1
            anchors.add(base if n == 0 else f"{base}-{n}")
    fence = False
    for number, line in enumerate(lines, 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            if target.startswith("#"):
                if target[1:] not in anchors:
                    out.append(f"README.md:{number}: no heading has the anchor {target}")
            elif not os.path.exists(os.path.join(root, target.split("#")[0])):
                out.append(f"README.md:{number}: {target} is not a file of the repository")
    return out


def self_test():
    text = "# T\n## Recording a program: `gpuperf record`\n## Exit codes\n```\n## not a heading\n```\n" \
           "[a](#recording-a-program-gpuperf-record) [b](#exit-codes) [c](#not-a-heading) ![d](nowhere.png) " \
           "[e](https://example.invalid) `[f](#in-code)`\n"
    found = problems(text, os.path.dirname(os.path.abspath(__file__)))
    expected = ["README.md:7: no heading has the anchor #not-a-heading",
                "README.md:7: nowhere.png is not a file of the repository"]
    if found != expected:
        print("self-test failed:\n  found    " + repr(found) + "\n  expected " + repr(expected))
        return 1
    print("check_readme_links self-test: ok")
    return 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = sys.argv[1]
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        found = problems(f.read(), root)
    for p in found:
        print(p)
    if found:
        return 1
    print("README.md: every link holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
