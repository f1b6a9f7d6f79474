#!/usr/bin/env python3
"""Copies the node table from Docs/Nodes.md into README.md, between the nodes markers.

`make docs` runs this after regenerating Docs/Nodes.md; the engine tests check the README is current.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
nodes = (root / "Docs" / "Nodes.md").read_text()
match = re.search(r"^\| node \|.*?\n(?=\n)", nodes, re.S | re.M)
if not match:
    sys.exit("Docs/Nodes.md has no node table")
table = match.group(0).replace("](#", "](Docs/Nodes.md#")
readme_path = root / "README.md"
readme = readme_path.read_text()
begin, end = "<!-- nodes:begin -->\n", "<!-- nodes:end -->"
if begin not in readme or end not in readme:
    sys.exit("README.md has no <!-- nodes:begin --> ... <!-- nodes:end --> markers")
head, rest = readme.split(begin, 1)
_, tail = rest.split(end, 1)
readme_path.write_text(head + begin + table + end + tail)
