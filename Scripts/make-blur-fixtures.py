#!/usr/bin/python3
"""Makes the reference fixtures of the gaussianBlur node with SciPy's ndimage.gaussian_filter.

Run once from the repository root with Debian's python3-scipy and python3-opencv; the outputs are
committed in Tests/TesseraNodesTests/Fixtures with a `blur-` prefix. References are computed in float64
from the 8-bit inputs (as Tessera decodes them: value / 255), with truncate=4.0 and mode 'nearest'
(edge: clamp) or 'constant' with cval 0 (edge: transparent), and written in the `.f32` format of
make-node-fixtures.py: three little-endian uint32 (width, height, channels), then float32 samples row by
row, interleaved.

To keep the fixtures small, each reference holds every `step`-th pixel of every `step`-th row (the name
says the step: `...-step2.f32`); the tests subsample Tessera's output the same way. Blurred images are
smooth, so little is lost.
"""
import os
import cv2
import numpy as np

import f32
from scipy import ndimage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures")


def write_f32(name, array):
    f32.write_f32(os.path.join(OUT, name), array)


def read(name):
    """An 8-bit fixture as float64 RGB(A) / 255."""
    image = cv2.imread(os.path.join(OUT, name), cv2.IMREAD_UNCHANGED)
    order = [2, 1, 0, 3] if image.shape[2] == 4 else [2, 1, 0]
    return image[:, :, order].astype(np.float64) / 255


def blur(image, sigma, edge):
    mode = "nearest" if edge == "clamp" else "constant"
    return ndimage.gaussian_filter(image, (sigma, sigma, 0), truncate=4.0, mode=mode, cval=0.0)


def blur_alpha(image, sigma, edge):
    """Straight-alpha RGBA blurred premultiplied, as the node does: color times alpha, blurred, divided
    by the blurred alpha (0 where that is 0)."""
    alpha = image[:, :, 3:4]
    sums = blur(np.dstack([image[:, :, :3] * alpha, alpha]), sigma, edge)
    blurred_alpha = sums[:, :, 3:4]
    safe = np.where(blurred_alpha > 0, blurred_alpha, 1)
    color = np.where(blurred_alpha > 0, sums[:, :, :3] / safe, 0)
    return np.dstack([color, blurred_alpha])


def name(sigma, edge, step, stem="photo"):
    return f"blur-{stem}-{sigma:g}-{edge}-step{step}.f32"


os.makedirs(OUT, exist_ok=True)
# photo.png is make-node-fixtures.py's 96x72 crop of the example photo (face and suit). Sigma 50 needs a
# larger picture: a 256x192 crop around it.
photo = read("photo.png")
astronaut = cv2.imread(os.path.join(ROOT, "Examples/images/astronaut.png"), cv2.IMREAD_COLOR)
cv2.imwrite(os.path.join(OUT, "blur-photo-large.png"), astronaut[60:252, 96:352])
large = read("blur-photo-large.png")

for sigma in [0.5, 1, 2, 3, 5, 10, 20]:
    write_f32(name(sigma, "clamp", 2), blur(photo, sigma, "clamp")[::2, ::2])
for sigma in [1, 5, 20]:
    write_f32(name(sigma, "transparent", 2), blur(photo, sigma, "transparent")[::2, ::2])
for edge in ["clamp", "transparent"]:
    write_f32(name(50, edge, 8, "photo-large"), blur(large, 50, edge)[::8, ::8])
# photo-alpha.png: the same crop with alpha falling from 1 at the top to 0 at the bottom row.
photo_alpha = read("photo-alpha.png")
for sigma in [2, 10]:
    write_f32(name(sigma, "clamp", 2, "photo-alpha"), blur_alpha(photo_alpha, sigma, "clamp")[::2, ::2])
print("wrote", sorted(f for f in os.listdir(OUT) if f.startswith("blur-")))
