#!/usr/bin/python3
"""Measures gaussianBlur against SciPy's ndimage.gaussian_filter on whole photos, at many sigmas.

Usage: Scripts/blur-accuracy.py [TESSERA] [IMAGE...]
    TESSERA defaults to .build/release/tessera; IMAGE defaults to Examples/images/astronaut.png.

Each image is decoded to 8 bits, written as PNG, blurred by `tessera run` (a load, gaussianBlur, save
graph; float TIFF output) and by SciPy in float64 (truncate=4.0, mode 'nearest' for edge: clamp,
'constant' with cval 0 for edge: transparent). Prints the mean and largest absolute difference over
the color channels, in 1/255.
"""
import os
import subprocess
import sys
import tempfile

import cv2
import numpy as np
from scipy import ndimage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIGMAS = [0.5, 0.8, 1, 1.5, 2, 3, 4, 4.5, 5, 6, 8, 12, 16, 20, 30, 40, 50]


def main():
    tessera = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build/release/tessera")
    images = sys.argv[2:] or [os.path.join(ROOT, "Examples/images/astronaut.png")]
    work = tempfile.mkdtemp(prefix="blur-accuracy-")
    for path in images:
        bgr = cv2.imread(path, cv2.IMREAD_COLOR)
        source = os.path.join(work, "in.png")
        cv2.imwrite(source, bgr)
        rgb = bgr[:, :, ::-1].astype(np.float64) / 255
        print(f"{os.path.basename(path)} ({rgb.shape[1]}x{rgb.shape[0]}), differences in 1/255")
        print(f"{'sigma':>6} {'clamp mean':>11} {'clamp max':>10} {'transp. mean':>13} {'transp. max':>12}")
        for sigma in SIGMAS:
            row = [f"{sigma:>6g}"]
            for edge, mode in [("clamp", "nearest"), ("transparent", "constant")]:
                reference = ndimage.gaussian_filter(rgb, (sigma, sigma, 0), truncate=4.0, mode=mode, cval=0.0)
                ours = run(tessera, work, source, sigma, edge)
                difference = np.abs(ours - reference) * 255
                row += [f"{difference.mean():>11.4f}" if edge == "clamp" else f"{difference.mean():>13.4f}",
                        f"{difference.max():>10.4f}" if edge == "clamp" else f"{difference.max():>12.4f}"]
            print(" ".join(row), flush=True)


def run(tessera, work, source, sigma, edge):
    graph = os.path.join(work, "blur.yaml")
    output = os.path.join(work, "out.tif")
    with open(graph, "w") as f:
        f.write("version: 1\nnodes:\n"
                f"  photo: {{ op: load, path: {source} }}\n"
                f"  blur: {{ op: gaussianBlur, input: photo, sigma: {sigma}, edge: {edge} }}\n"
                f"  out: {{ op: save, input: blur, path: {output}, depth: float }}\n")
    subprocess.run([tessera, "run", graph, "--quiet"], check=True)
    blurred = cv2.imread(output, cv2.IMREAD_UNCHANGED)
    return blurred[:, :, 2::-1].astype(np.float64)


if __name__ == "__main__":
    main()
