#!/usr/bin/env python3
"""Makes the reference fixtures of the resize node with Pillow's Image.resize.

Run once from the repository root with a python3 that has Pillow, NumPy and OpenCV (pip install pillow
numpy opencv-python-headless);
the outputs are committed in Tests/TesseraNodesTests/Fixtures with a `resize-` prefix. References are
float32 arrays in the `.f32` format the tests read (see Scripts/make-node-fixtures.py): three
little-endian uint32 (width, height, channels), then the samples row by row, interleaved.

Pillow resizes float32 images (mode "F") one channel at a time, in double precision, with the
kernels and edge handling the node copies: pixel centers aligned, the filter stretched by the scale
when shrinking, weights outside the image dropped and the rest renormalized. Upscaled references
keep only the first channel (red), to keep the files small; the node computes every channel the
same way, which the downscaled RGB references check.
"""
import os

import numpy as np

import f32
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures")

FILTERS = {
    "nearest": Image.Resampling.NEAREST,
    "bilinear": Image.Resampling.BILINEAR,
    "bicubic": Image.Resampling.BICUBIC,
    "lanczos3": Image.Resampling.LANCZOS,
}


def write_f32(name, array):
    f32.write_f32(os.path.join(FIXTURES, name), array)


def resize(channels, size, interpolation):
    """Each channel (a 2-D float32 array) resized by Pillow as a mode "F" image, stacked again."""
    return np.dstack(
        [np.asarray(Image.fromarray(c.astype(np.float32)).resize(size, FILTERS[interpolation])) for c in channels]
    )


def resize_straight_alpha(rgba, size, interpolation):
    """What the node does with alpha: premultiply, resize, divide by the resized alpha where it is
    positive (color 0 elsewhere), clamp alpha to 0...1."""
    alpha = rgba[:, :, 3]
    premultiplied = [rgba[:, :, c] * alpha for c in range(3)] + [alpha]
    out = resize(premultiplied, size, interpolation)
    a = out[:, :, 3]
    safe = np.where(a > 0, a, 1).astype(np.float32)
    color = np.where((a > 0)[:, :, None], out[:, :, :3] / safe[:, :, None], 0)
    return np.dstack([color, np.clip(a, 0, 1)])


def main():
    # What Tessera decodes: 8-bit samples over 255.
    photo = np.asarray(Image.open(os.path.join(FIXTURES, "photo.png")).convert("RGB")).astype(np.float32) / 255
    h, w, _ = photo.shape
    assert (w, h) == (96, 72), (w, h)
    rgb = [photo[:, :, c] for c in range(3)]
    for interpolation in FILTERS:
        # Non-integer factors both ways, and the two integer ones.
        write_f32(f"resize-{interpolation}-37x29.f32", resize(rgb, (37, 29), interpolation))
        write_f32(f"resize-{interpolation}-211x157.f32", resize(rgb[:1], (211, 157), interpolation))
        write_f32(f"resize-{interpolation}-half.f32", resize(rgb, (48, 36), interpolation))
        write_f32(f"resize-{interpolation}-double.f32", resize(rgb[:1], (192, 144), interpolation))

    # Alpha: the photo with alpha falling from 1 (top) to 0 (bottom row), shrunk, and stretched in x
    # while shrunk in y.
    rgba = np.asarray(Image.open(os.path.join(FIXTURES, "photo-alpha.png")).convert("RGBA")).astype(np.float32) / 255
    write_f32("resize-alpha-bicubic-37x29.f32", resize_straight_alpha(rgba, (37, 29), "bicubic"))
    write_f32("resize-alpha-lanczos3-160x40.f32", resize_straight_alpha(rgba, (160, 40), "lanczos3"))
    # The shrink without antialiasing that saliency uses: OpenCV's bilinear resize on float32, which
    # samples two pixels a side at each output pixel's center (needs opencv-python; any version).
    import cv2

    write_f32("resize-opencv-bilinear-37x29.f32", np.dstack([cv2.resize(c, (37, 29), interpolation=cv2.INTER_LINEAR) for c in rgb]))
    write_f32("resize-opencv-bilinear-11x7.f32", np.dstack([cv2.resize(c, (11, 7), interpolation=cv2.INTER_LINEAR) for c in rgb]))
    print("wrote", sorted(n for n in os.listdir(FIXTURES) if n.startswith("resize-")))


if __name__ == "__main__":
    main()
