#!/usr/bin/env python3
"""The public Swift API, one sorted line per symbol: what `import Tessera` and `import TesseraPluginSDK`
give a program or a plugin, re-exported modules included.

    Scripts/api-symbols.py [BUILD_DIR] > Docs/API/public-symbols.txt   # regenerate (make api-list)
    Scripts/api-symbols.py --check [BUILD_DIR]                         # make api-check, run by make test
    Scripts/api-symbols.py --graphs DIR [BUILD_DIR]                    # Tessera's symbol graph, for DocC

It reads the modules a debug build left in BUILD_DIR (default: `swift build --show-bin-path`) with
swift-symbolgraph-extract, public symbols only, synthesized members left out. A line is

    MODULE  KIND  Type.member  declaration

where MODULE is the module that declares the symbol (TesseraCore, TesseraGraph, ...), so a symbol that
becomes public, stops being public or changes its signature is a line of the diff. `--check` compares
with the committed list and fails, printing the diff, until the list is regenerated: an API change is
a visible change in review. It also type-checks Examples/Embedding, the model embedding program, as a
program outside the package sees the modules (nothing `package`): it must need only the public API.

swift-symbolgraph-extract leaves out, by design, a type named after its module followed by `Version`
(Apple's `FooVersionNumber` convention): `TesseraVersion` is public but not listed.
"""

import difflib
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST = os.path.join(ROOT, "Docs", "API", "public-symbols.txt")
# The library products' modules, and the modules each re-exports (`@_exported import`).
PRODUCTS = {
    "Tessera": [
        "TesseraCore", "TesseraCatalog", "TesseraGraph", "TesseraPluginHost", "TesseraRunner", "TesseraIO",
        "TesseraScheduler",
    ],
    "TesseraPluginSDK": ["TesseraCore"],
    "TesseraTesting": [],
}
# The C modules the Swift modules import: system libraries (Sources/C*/module.modulemap) and C targets
# (their module maps are generated in the build folder).
SYSTEM_LIBRARIES = ["CPNG", "CTIFF", "CJPEG", "CLCMS2", "CWebP", "CGIF", "CHEIF"]
C_TARGETS = ["CImageShims", "CTesseraPlugin", "CTesseraSIMD"]


def module_of(symbol):
    """The module whose source declares the symbol (an extension's, not the extended type's)."""
    match = re.search(r"/Sources/([^/]+)/", symbol.get("location", {}).get("uri", ""))
    return match.group(1) if match else "?"


def triple():
    out = subprocess.run(["swiftc", "-print-target-info"], capture_output=True, text=True, check=True).stdout
    return json.loads(out)["target"]["triple"]


def extract(build, module, reexported, folder, synthesized=False):
    arguments = [
        "swift-symbolgraph-extract", "-module-name", module, "-target", triple(), *search_paths(build),
        "-minimum-access-level", "public", "-output-dir", folder,
        "-experimental-allowed-reexported-modules=" + ",".join(reexported),
    ]
    if not synthesized:
        arguments.append("-skip-synthesized-members")
    subprocess.run(arguments, check=True)


def search_paths(build):
    paths = ["-I", os.path.join(build, "Modules")]
    for name in C_TARGETS:
        paths += ["-I", os.path.join(build, name + ".build")]
    for name in SYSTEM_LIBRARIES:
        paths += ["-I", os.path.join(ROOT, "Sources", name)]
    # Yams' libyaml, which TesseraEngine imports (internally) for the graph parser's nesting limit.
    paths += ["-I", os.path.join(os.path.dirname(os.path.dirname(build)), "checkouts", "Yams", "Sources", "CYaml",
                                 "include")]
    return paths


def embedding_example_problems(build):
    """Type-checks Examples/Embedding as a program outside the package would see Tessera: without the
    package's name, so anything `package` is out of its reach. The errors, or an empty string."""
    source = os.path.join(ROOT, "Examples", "Embedding", "main.swift")
    result = subprocess.run(
        ["swiftc", "-typecheck", "-swift-version", "6", "-target", triple(), *search_paths(build), source],
        capture_output=True, text=True)
    return "" if result.returncode == 0 else result.stdout + result.stderr


def lines(build):
    found = set()
    with tempfile.TemporaryDirectory() as folder:
        for product, reexported in PRODUCTS.items():
            out = os.path.join(folder, product)
            os.mkdir(out)
            extract(build, product, reexported, out)
            for path in glob.glob(os.path.join(out, "*.symbols.json")):
                graph = json.load(open(path))
                # Implicit members (an enum's `init(rawValue:)`) have no location: their type's module.
                modules = {tuple(s["pathComponents"]): module_of(s) for s in graph["symbols"]}
                for symbol in graph["symbols"]:
                    kind = symbol["kind"]["identifier"].removeprefix("swift.")
                    path_components = symbol["pathComponents"]
                    module = module_of(symbol)
                    if module == "?":
                        module = modules.get(tuple(path_components[:-1]), "?")
                    declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
                    declaration = " ".join(declaration.split())
                    found.add(f"{module}  {kind}  {'.'.join(path_components)}  {declaration}")
    return sorted(found)


def main():
    args = sys.argv[1:]
    check = "--check" in args
    graphs = None
    if "--graphs" in args:
        at = args.index("--graphs")
        graphs = args[at + 1]
        del args[at : at + 2]
    args = [a for a in args if a != "--check"]
    build = args[0] if args else subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    if graphs:
        # For DocC (make api-docs): SwiftPM's own extraction leaves out what `Tessera` re-exports.
        os.makedirs(graphs, exist_ok=True)
        for old in glob.glob(os.path.join(graphs, "*.symbols.json")):
            os.remove(old)
        extract(build, "Tessera", PRODUCTS["Tessera"], graphs, synthesized=True)
        return 0
    current = lines(build)
    if not check:
        sys.stdout.write("".join(line + "\n" for line in current))
        return 0
    committed = open(LIST).read().splitlines() if os.path.exists(LIST) else []
    problems = embedding_example_problems(build)
    if problems:
        sys.stdout.write(problems)
        print("api-check: Examples/Embedding needs more than the public API (above)")
        return 1
    if committed == current:
        print(f"api-check: the public API is the committed one ({len(current)} symbols); "
              "Examples/Embedding builds with it alone")
        return 0
    sys.stdout.writelines(
        line + "\n" for line in difflib.unified_diff(committed, current, "Docs/API/public-symbols.txt", "built", n=0, lineterm="")
    )
    print("api-check: the public API changed; if that is meant, `make api-list` and commit the new list")
    return 1


if __name__ == "__main__":
    sys.exit(main())
