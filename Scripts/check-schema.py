#!/usr/bin/env python3
"""Checks graph files against tessera.schema.json with an independent JSON Schema validator.

    check-schema.py SCHEMA --valid GRAPH... --invalid GRAPH...

Every --valid graph must be accepted and every --invalid graph rejected; prints one line per graph
and exits 1 otherwise. Needs python3-jsonschema (2020-12 support: 4.0 or later) and python3-yaml.

YAML is read by YAML 1.2's core schema, as Tessera and the YAML language server read it (PyYAML follows
YAML 1.1, where `aspectRatio: 4:3` is the base-60 number 243 and `yes` is true); JSON files by `json`.
"""
import argparse
import json
import re
import sys

import jsonschema
import yaml


class CoreSchemaLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2 core schema scalars: null, bool, int (decimal, 0o, 0x), float."""


def _int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text)


def _float(loader, node):
    text = loader.construct_scalar(node)
    special = {".inf": "inf", "+.inf": "inf", "-.inf": "-inf", ".nan": "nan"}
    return float(special.get(text.lower(), text))


CoreSchemaLoader.yaml_implicit_resolvers = {}
for tag, pattern, first in [
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    (
        "float",
        r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$",
        list("-+.0123456789"),
    ),
]:
    CoreSchemaLoader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(pattern), first)
CoreSchemaLoader.add_constructor("tag:yaml.org,2002:int", _int)
CoreSchemaLoader.add_constructor("tag:yaml.org,2002:float", _float)

parser = argparse.ArgumentParser()
parser.add_argument("schema")
parser.add_argument("--valid", nargs="*", default=[])
parser.add_argument("--invalid", nargs="*", default=[])
args = parser.parse_args()

with open(args.schema) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)

failures = 0
for path, should_pass in [(p, True) for p in args.valid] + [(p, False) for p in args.invalid]:
    with open(path) as f:
        document = json.load(f) if path.endswith(".json") else yaml.load(f, Loader=CoreSchemaLoader)
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    if should_pass and errors:
        failures += 1
        print(f"{path}: rejected, but should be accepted: {errors[0].message}")
    elif not should_pass and not errors:
        failures += 1
        print(f"{path}: accepted, but should be rejected")
    else:
        where = "/".join(str(p) for p in errors[0].absolute_path) if errors else ""
        print(f"{path}: " + ("accepted" if should_pass else f"rejected at '{where}': {errors[0].message}"))
sys.exit(1 if failures else 0)
