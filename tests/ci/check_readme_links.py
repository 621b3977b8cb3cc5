#!/usr/bin/env python3
"""The links of README.md and of every page in docs/ hold: every in-page link (#anchor) names a heading, as
GitHub makes its anchors; every relative link or image names a file or folder of the repository (relative to
the page that links it); and a link into another Markdown page with an anchor (docs/record.md#the-programs-name,
../README.md#database) names a heading of that page. Exit 0 when they do, 1 listing each one that does not.

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


def anchors(text):
    out, seen, fence = set(), {}, False
    for line in text.split("\n"):
        if line.startswith("```"):
            fence = not fence
        elif not fence and re.match(r"#{1,6} ", line):
            base = slug(line.lstrip("#"))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def problems(text, root, name="README.md", page_dir=None, read=None):
    """The broken links of one page `name` (its text), whose relative links start at `page_dir`."""
    page_dir = root if page_dir is None else page_dir
    read = read or (lambda path: open(path, encoding="utf-8").read())
    own, out, fence = anchors(text), [], False
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            fence = not fence
            continue
        if fence:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, fragment = target.partition("#")
            if not path:
                if fragment not in own:
                    out.append(f"{name}:{number}: no heading has the anchor #{fragment}")
                continue
            full = os.path.normpath(os.path.join(page_dir, path))
            if not os.path.exists(full):
                out.append(f"{name}:{number}: {target} is not a file of the repository")
            elif fragment and full.endswith(".md") and fragment not in anchors(read(full)):
                out.append(f"{name}:{number}: {path} has no heading with the anchor #{fragment}")
    return out


def pages(root):
    """README.md and docs/*.md, as (name relative to the root, path)."""
    found = [("README.md", os.path.join(root, "README.md"))]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        found += [(f"docs/{f}", os.path.join(docs, f)) for f in sorted(os.listdir(docs)) if f.endswith(".md")]
    return found


def self_test():
    here = os.path.dirname(os.path.abspath(__file__))
    text = "# T\n## Recording a program: `gpuperf record`\n## Exit codes\n```\n## not a heading\n```\n" \
           "[a](#recording-a-program-gpuperf-record) [b](#exit-codes) [c](#not-a-heading) ![d](nowhere.png) " \
           "[e](https://example.invalid) `[f](#in-code)`\n" \
           "[g](other.md#kept) [h](other.md#gone) [i](check_readme_links.py)\n"
    other = "# Other\n## Kept\n"
    read = lambda path: other if path.endswith("other.md") else open(path, encoding="utf-8").read()
    real_exists = os.path.exists
    os.path.exists = lambda p: p.endswith("other.md") or real_exists(p)
    try:
        found = problems(text, here, read=read)
    finally:
        os.path.exists = real_exists
    expected = ["README.md:7: no heading has the anchor #not-a-heading",
                "README.md:7: nowhere.png is not a file of the repository",
                "README.md:8: other.md has no heading with the anchor #gone"]
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
    found = []
    for name, path in pages(root):
        with open(path, encoding="utf-8") as f:
            found += problems(f.read(), root, name, os.path.dirname(path))
    for p in found:
        print(p)
    if found:
        return 1
    print(f"{len(pages(root))} pages (README.md, docs/): every link holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
