"""The layout the Vision fixture scripts write their JSON in: one item of each list a line, so that a
regenerated fixture's diff shows which detection, hand or text line moved."""
import json


def dump(doc):
    lines = []
    for key, value in doc.items():
        if isinstance(value, list):
            items = ",\n    ".join(json.dumps(v, separators=(",", ":")) for v in value)
            lines.append(f'  "{key}": [\n    {items}\n  ]' if value else f'  "{key}": []')
        else:
            lines.append(f'  "{key}": {json.dumps(value)}')
    return "{\n" + ",\n".join(lines) + "\n}\n"
