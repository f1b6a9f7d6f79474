#!/usr/bin/env python3
"""Checks JSON files against the value schemas in Docs/schemas with an independent validator.

    check-values.py SCHEMA FILE...

SCHEMA is a schema's path (Docs/schemas/boxes.schema.json, ...); FILE is a file of JSON, or - for
standard input. The schemas refer to each other by file name (run.schema.json to boxes.schema.json),
resolved in SCHEMA's folder. Prints one line per file and exits 1 when any is rejected. Needs
python3-jsonschema (2020-12 support: 4.0 or later).
"""
import json
import os
import sys

import jsonschema


def validator_for(path):
    folder = os.path.dirname(os.path.abspath(path))
    schemas = {}
    for name in os.listdir(folder):
        if name.endswith(".schema.json"):
            with open(os.path.join(folder, name)) as handle:
                schemas[name] = json.load(handle)
    schema = schemas[os.path.basename(path)]
    try:  # jsonschema 4.18 and later
        from referencing import Registry, Resource

        registry = Registry().with_resources(
            (name, Resource.from_contents(contents)) for name, contents in schemas.items()
        )
        return jsonschema.Draft202012Validator(schema, registry=registry)
    except ImportError:  # Debian 12's 4.10
        resolver = jsonschema.RefResolver("", schema, store=schemas)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    validator = validator_for(sys.argv[1])
    failed = False
    for path in sys.argv[2:]:
        text = sys.stdin.read() if path == "-" else open(path).read()
        errors = sorted(validator.iter_errors(json.loads(text)), key=lambda e: list(e.absolute_path))
        if errors:
            failed = True
            where = "/".join(str(part) for part in errors[0].absolute_path)
            print(f"{path}: rejected at '{where}': {errors[0].message}")
        else:
            print(f"{path}: valid")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
