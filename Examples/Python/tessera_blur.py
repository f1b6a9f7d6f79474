#!/usr/bin/env python3
"""Runs a Tessera graph from Python through the C API (libtessera.so) with ctypes.

    python3 Examples/Python/tessera_blur.py LIBRARY OUTPUT.png [SIGMA]

LIBRARY is libtessera.so (`make libtessera` puts it in out/lib/). The graph blurs the example photo
and saves it as OUTPUT.png; SIGMA overrides the blur as `tessera run --set soft.sigma=...` would.
It also finds the photo's salient objects and prints their boxes, read back as JSON. A mistake
(here, a misspelt parameter) comes back as Tessera's own message.
"""
import ctypes
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PHOTO = os.path.join(HERE, "..", "images", "astronaut.png")


def load(library):
    lib = ctypes.CDLL(library)
    lib.tessera_version.restype = ctypes.c_char_p
    lib.tessera_last_error.restype = ctypes.c_char_p
    lib.tessera_graph_parse.restype = ctypes.c_void_p
    lib.tessera_graph_parse.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    lib.tessera_graph_set.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.tessera_graph_run.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.tessera_graph_outputs.restype = ctypes.c_char_p
    lib.tessera_graph_outputs.argtypes = [ctypes.c_void_p]
    lib.tessera_graph_value_json.restype = ctypes.c_char_p
    lib.tessera_graph_value_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.tessera_graph_free.argtypes = [ctypes.c_void_p]
    return lib


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    lib = load(sys.argv[1])
    output = os.path.abspath(sys.argv[2])
    print("tessera", lib.tessera_version().decode())

    text = f"""
version: 1
nodes:
  photo: {{ op: load, path: "{PHOTO}" }}
  soft:  {{ op: gaussianBlur, input: photo, sigma: 2 }}
  out:   {{ op: save, input: soft, path: "{output}" }}
  heat:  {{ op: saliency, input: photo, kind: objectness }}
"""
    graph = lib.tessera_graph_parse(text.encode(), None)
    if not graph:
        sys.exit("error: " + lib.tessera_last_error().decode())
    try:
        if len(sys.argv) > 3 and lib.tessera_graph_set(graph, f"soft.sigma={sys.argv[3]}".encode()) != 0:
            sys.exit("error: " + lib.tessera_last_error().decode())
        # A misspelt parameter is refused with the validator's message, and the graph stays as it was.
        status = lib.tessera_graph_set(graph, b"soft.sigam=3")
        print(f"set soft.sigam: status {status}: {lib.tessera_last_error().decode()}")
        if lib.tessera_graph_run(graph, 0) != 0:
            sys.exit("error: " + lib.tessera_last_error().decode())
        # Results that are not images come back as JSON (the schemas are in Docs/schemas/).
        text = lib.tessera_graph_value_json(graph, b"heat.boxes")
        if text is None:
            sys.exit("error: " + lib.tessera_last_error().decode())
        for box in json.loads(text)["boxes"]:
            print("salient box: x {x} y {y} width {width} height {height} confidence {confidence}".format(**box))
        print("wrote", lib.tessera_graph_outputs(graph).decode())
    finally:
        lib.tessera_graph_free(graph)


if __name__ == "__main__":
    main()
