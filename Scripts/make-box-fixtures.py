#!/usr/bin/python3
"""Makes the drawBoxes reference fixtures in NumPy, by point sampling: each pixel is split into
SAMPLES x SAMPLES points, a point is in a box's stroke when it lies within half the line width of the
box's edges (inside the box grown by half the width, outside the box shrunk by half the width: a
rectangle stroked with square corners), and the pixel's coverage is the share of its points in the
stroke. Boxes combine by the largest coverage times their opacity (the confidence, with
confidenceAsOpacity), and the color is laid over by coverage times its alpha, source over.

drawBoxes computes each pixel's covered area exactly instead; point sampling counts the area to within
half a sample's spacing on each side of each edge crossing the pixel, so the two agree to within about
1/SAMPLES of coverage per edge (the test states its tolerance).

Run once from the repository root with NumPy and OpenCV (for reading the photo; pip's
opencv-python-headless or Debian's python3-opencv): the outputs are committed in
Tests/TesseraNodesTests/Fixtures:

- drawBoxes.json: the boxes and the two cases' parameters, which the test reads;
- drawBoxes-photo.f32: the boxes over photo.png (the node fixtures' 96x72 crop), RGB;
- drawBoxes-plain.f32: the boxes over a half-transparent plain background of that size, RGBA.
"""
import json
import os

import cv2
import numpy as np

import f32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures")
SAMPLES = 64

# [x, y, width, height, confidence]: fractional edges, an overlap, a box across the image's top and
# right edges, a negative size (spanning back from x, y), one smaller than the line (filled), one of zero
# width (nothing drawn), one wholly outside, one at confidence 0.
BOXES = [
    [10.3, 8.7, 30.4, 20.2, 0.9],
    [25.5, 15.25, 40.0, 30.0, 0.6],
    [80.6, -5.2, 30.0, 25.0, 1.0],
    [60.2, 70.1, -20.5, -15.3, 0.4],
    [5.2, 60.1, 1.3, 0.9, 1.0],
    [50.0, 10.0, 0.0, 20.0, 1.0],
    [200.0, 200.0, 10.0, 10.0, 1.0],
    [70.0, 40.0, 12.0, 12.0, 0.0],
]
CASES = {
    "photo": {"color": [1.0, 0.2, 0.1, 0.8], "lineWidth": 2.5, "confidenceAsOpacity": True},
    "plain": {"color": [0.0, 0.0, 1.0, 1.0], "lineWidth": 1.0, "confidenceAsOpacity": False,
              "background": [0.2, 0.3, 0.4, 0.5]},
}


def coverage(width, height, line_width, confidence_as_opacity):
    """Per pixel, the largest over the boxes of (sampled stroke coverage) x opacity."""
    offsets = (np.arange(SAMPLES) + 0.5) / SAMPLES
    xs = (np.arange(width)[:, None] + offsets[None, :]).reshape(-1)  # sample x coordinates
    ys = (np.arange(height)[:, None] + offsets[None, :]).reshape(-1)
    px, py = np.meshgrid(xs, ys)
    result = np.zeros((height, width))
    half = line_width / 2
    for x, y, w, h, confidence in BOXES:
        x0, x1 = min(x, x + w), max(x, x + w)
        y0, y1 = min(y, y + h), max(y, y + h)
        if x1 <= x0 or y1 <= y0:
            continue
        opacity = min(max(confidence, 0), 1) if confidence_as_opacity else 1
        outer = (px >= x0 - half) & (px < x1 + half) & (py >= y0 - half) & (py < y1 + half)
        inner = (px >= x0 + half) & (px < x1 - half) & (py >= y0 + half) & (py < y1 - half)
        stroke = outer & ~inner
        share = stroke.reshape(height, SAMPLES, width, SAMPLES).mean(axis=(1, 3))
        result = np.maximum(result, share * opacity)
    return result


def over(color, alpha, below, below_alpha):
    """Straight-alpha source over: color at alpha over below at below_alpha; returns RGB and alpha."""
    out_alpha = alpha + below_alpha * (1 - alpha)
    mixed = (color[None, None, :] * alpha[..., None] + below * (below_alpha * (1 - alpha))[..., None])
    safe = np.where(out_alpha > 0, out_alpha, 1)
    return np.where(out_alpha[..., None] > 0, mixed / safe[..., None], 0), out_alpha


photo = cv2.cvtColor(cv2.imread(os.path.join(OUT, "photo.png"), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
photo = photo.astype(np.float64) / 255
height, width, _ = photo.shape

case = CASES["photo"]
color = np.array(case["color"][:3])
alpha = coverage(width, height, case["lineWidth"], case["confidenceAsOpacity"]) * case["color"][3]
rgb, _ = over(color, alpha, photo, np.ones((height, width)))
f32.write_f32(os.path.join(OUT, "drawBoxes-photo.f32"), rgb)

case = CASES["plain"]
color = np.array(case["color"][:3])
alpha = coverage(width, height, case["lineWidth"], case["confidenceAsOpacity"]) * case["color"][3]
background = np.broadcast_to(np.array(case["background"][:3]), (height, width, 3))
rgb, out_alpha = over(color, alpha, background, np.full((height, width), case["background"][3]))
f32.write_f32(os.path.join(OUT, "drawBoxes-plain.f32"), np.dstack([rgb, out_alpha]))

with open(os.path.join(OUT, "drawBoxes.json"), "w") as f:
    json.dump({"width": width, "height": height, "boxes": BOXES, "cases": CASES}, f, indent=1)
print(f"drawBoxes: {width}x{height}, {len(BOXES)} boxes, {SAMPLES}x{SAMPLES} samples a pixel")
