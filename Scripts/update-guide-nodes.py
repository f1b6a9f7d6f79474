#!/usr/bin/env python3
"""Copies the node table from Docs/Nodes.md into Docs/Guide.md, between the nodes markers.

`make docs` runs this after regenerating Docs/Nodes.md; the engine tests check the guide is current.
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
nodes = (root / "Docs" / "Nodes.md").read_text()
match = re.search(r"^\| node \|.*?\n(?=\n)", nodes, re.S | re.M)
if not match:
    sys.exit("Docs/Nodes.md has no node table")
# The guide is beside Nodes.md: its links name the file, Nodes.md's own only the anchor.
table = match.group(0).replace("](#", "](Nodes.md#")
guide_path = root / "Docs" / "Guide.md"
guide = guide_path.read_text()
begin, end = "<!-- nodes:begin -->\n", "<!-- nodes:end -->"
if begin not in guide or end not in guide:
    sys.exit("Docs/Guide.md has no <!-- nodes:begin --> ... <!-- nodes:end --> markers")
head, rest = guide.split(begin, 1)
_, tail = rest.split(end, 1)
guide_path.write_text(head + begin + table + end + tail)
