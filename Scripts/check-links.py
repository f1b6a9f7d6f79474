#!/usr/bin/env python3
"""Checks that every relative link in the front-door Markdown files resolves.

A link to a file must name a file or folder of the repository; a link with an anchor (`Nodes.md#crop`,
`#limits-on-sizes`) must name a heading of its target, slugged as GitHub slugs them. Web links are not
followed. Prints one line per broken link (FILE:LINE: TARGET: why) and exits 1 if there is any.

Usage: check-links.py [FILE.md ...]   (default: README.md, Docs/*.md and the READMEs of the folders)
The engine tests run it (Tests/TesseraEngineTests/DocumentationTests.swift).
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
DOCS = sorted(str(p.relative_to(root)) for p in (root / "Docs").glob("*.md") if not p.name.startswith("."))
DEFAULT = ["README.md"] + DOCS + [
    "Graphs/README.md", "Examples/README.md", "Plugins/README.md", "Plugins/Vision/README.md",
    "python/README.md", "Benchmarks/README.md",
]
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(heading):
    """GitHub's anchor for a heading: its text lower case, punctuation but `-` and `_` removed, spaces as
    hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        found, seen, fenced = set(), {}, False
        for line in path.read_text(encoding="utf-8").splitlines():
            if FENCE.match(line):
                fenced = not fenced
            if fenced:
                continue
            match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
            if match:
                base = slug(match.group(1))
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            found.update(re.findall(r"<a\s+(?:name|id)=\"([^\"]+)\"", line))
        cache[path] = found
    return cache[path]


def check(name):
    source = root / name
    problems, fenced = [], False
    for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        if fenced:
            continue
        for target in LINK.findall(re.sub(r"`[^`]*`", "", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            path, _, anchor = target.partition("#")
            file = (source.parent / path).resolve() if path else source
            if root not in file.parents and file != root:
                problems.append(f"{name}:{number}: {target}: outside the repository")
            elif not file.exists():
                problems.append(f"{name}:{number}: {target}: no such file")
            elif anchor and file.suffix == ".md" and anchor not in anchors(file):
                problems.append(f"{name}:{number}: {target}: no heading '#{anchor}' in {file.relative_to(root)}")
    return problems


def main(names):
    problems = [problem for name in names for problem in check(name)]
    for problem in problems:
        print(problem)
    print(f"{len(names)} files checked, {len(problems)} broken links")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or DEFAULT))
