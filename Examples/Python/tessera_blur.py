#!/usr/bin/env python3
"""Runs Tessera graphs from Python with the `tessera` package (python/ in this repository).

    make python        # builds libtessera.so into the package; then `pip install ./python` (in a venv)
    python3 Examples/Python/tessera_blur.py OUTPUT.png [SIGMA]

Without installing, point TESSERA_LIBRARY at libtessera.so (`make libtessera` puts it in out/lib/);
the script finds the package beside it. It blurs the example photo and saves it as OUTPUT.png (SIGMA
overrides the blur as `tessera run --set soft.sigma=...` would), reads the photo's salient boxes back
as Python objects, then feeds a NumPy array to a graph's `input` node and gets the result as an array.
A mistake (a misspelt parameter) comes back as Tessera's own message.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, "..", "images", "astronaut.png")
try:
    import tessera
except ImportError:
    sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
    import tessera


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    output = os.path.abspath(sys.argv[1])
    print("tessera", tessera.version())

    graph = tessera.Graph.parse(f"""
version: 1
nodes:
  photo: {{ op: load, path: "{PHOTO}" }}
  soft:  {{ op: gaussianBlur, input: photo, sigma: 2 }}
  out:   {{ op: save, input: soft, path: "{output}" }}
  heat:  {{ op: saliency, input: photo, kind: objectness }}
""")
    if len(sys.argv) > 2:
        graph.set("soft.sigma", float(sys.argv[2]))
    # A misspelt parameter is refused with the validator's message, and the graph stays as it was.
    try:
        graph.set("soft.sigam", 3)
    except tessera.GraphError as error:
        print(f"set soft.sigam: {error}")
    result = graph.run(keep=["soft"])
    # Results that are not images come back as Python objects (the schemas are in Docs/schemas/).
    for box in result.values["heat.boxes"]["boxes"]:
        print("salient box: x {x} y {y} width {width} height {height} confidence {confidence}".format(**box))
    soft = result.images["soft"]
    print(f"soft: {soft.shape} {soft.dtype}, mean {soft.mean():.2f}")

    # An array in memory through an `input` node: a horizontal ramp, darkened by a color matrix.
    ramp = np.tile(np.linspace(0, 1, 64, dtype=np.float32), (32, 1))
    darker = tessera.Graph.parse("""
version: 1
nodes:
  ramp: { op: input, width: 64, height: 32, channels: 1 }
  half: { op: colorMatrix, input: ramp, r: [0.5, 0, 0, 0], g: [0, 0.5, 0, 0], b: [0, 0, 0.5, 0] }
""").run(inputs={"ramp": ramp}, keep=["half"]).images["half"]
    print(f"half: {darker.shape} {darker.dtype}, right edge {darker[0, -1, 0]:.2f}")
    print("wrote", *result.files)


if __name__ == "__main__":
    main()
