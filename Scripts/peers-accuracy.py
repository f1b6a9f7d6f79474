#!/usr/bin/python3
"""peers-accuracy.py: how far each tool's Gaussian blur is from an exact one.

Usage: peers-accuracy.py INPUT SIGMA LABEL=OUTPUT [LABEL=OUTPUT ...]

The reference is SciPy's gaussian_filter (truncate 4, mode 'nearest', float64) of INPUT's 8-bit values,
computed over two windows of 1024x1024: the top-left corner (where edge handling shows) and the
centre. Each window is filtered with a margin of the kernel's radius around it, which gives exactly
what filtering the whole image would, at a fraction of the cost. Prints, per output, the largest and
the mean absolute difference in 8-bit levels (outputs are 8-bit TIFFs of INPUT's size).
"""
import sys

import cv2
import numpy as np
from scipy.ndimage import gaussian_filter

WINDOW = 1024


def read_rgb(path):
    image = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if image is None:
        sys.exit(f"peers-accuracy: cannot read {path}")
    return image[..., ::-1] if image.ndim == 3 else image


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    source = read_rgb(argv[1]).astype(np.float64)
    sigma = float(argv[2])
    outputs = [arg.split("=", 1) for arg in argv[3:]]
    height, width = source.shape[:2]
    # SciPy's own radius for truncate 4.
    radius = int(4 * sigma + 0.5)
    windows = {
        "corner": (0, 0),
        "centre": ((height - WINDOW) // 2, (width - WINDOW) // 2),
    }
    references = {}
    for name, (y, x) in windows.items():
        y0, x0 = max(0, y - radius), max(0, x - radius)
        y1, x1 = min(height, y + WINDOW + radius), min(width, x + WINDOW + radius)
        padded = source[y0:y1, x0:x1]
        # Clipped at the image's edges only, where 'nearest' is the edge rule being compared.
        blurred = np.stack(
            [gaussian_filter(padded[..., c], sigma, mode="nearest", truncate=4.0) for c in range(padded.shape[2])],
            axis=-1,
        )
        references[name] = blurred[y - y0 : y - y0 + WINDOW, x - x0 : x - x0 + WINDOW]
    print(f"{'output':<40} {'window':<7} {'max |d|':>8} {'mean |d|':>9}   (8-bit levels vs SciPy float64)")
    for label, path in outputs:
        image = read_rgb(path).astype(np.float64)
        if image.shape != source.shape:
            sys.exit(f"peers-accuracy: {path} is {image.shape}, not {source.shape}")
        for name, (y, x) in windows.items():
            d = np.abs(image[y : y + WINDOW, x : x + WINDOW] - references[name])
            print(f"{label:<40} {name:<7} {d.max():8.3f} {d.mean():9.4f}")
    # Rounding to 8 bits alone costs up to 0.5 level, about 0.25 on average: the floor of any 8-bit output.
    print(f"(an exact blur rounded to 8 bits: max 0.5, mean about 0.25; kernel radius {radius} px = 4 sigma)")


if __name__ == "__main__":
    main(sys.argv)
