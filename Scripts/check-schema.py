#!/usr/bin/env python3
"""Checks graph files against tessera.schema.json with an independent JSON Schema validator.

    check-schema.py SCHEMA --valid GRAPH... --invalid GRAPH...

Every --valid graph must be accepted and every --invalid graph rejected; prints one line per graph
and exits 1 otherwise. Needs python3-jsonschema (2020-12 support: 4.0 or later) and python3-yaml.
"""
import argparse
import json
import sys

import jsonschema
import yaml

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
        document = yaml.safe_load(f)  # JSON is YAML
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
