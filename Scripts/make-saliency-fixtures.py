#!/usr/bin/env python3
"""Makes the references of the saliency node's attention maps with OpenCV contrib's
StaticSaliencySpectralResidual.

Run from the repository root in a venv with `pip install opencv-contrib-python-headless scikit-image
pillow numpy` (Debian's python3-opencv has no contrib modules). The outputs are committed in
Tests/TesseraNodesTests/Fixtures/saliency:

- `photo-NAME.png`: six photos at most 320 pixels on the long side, the inputs both OpenCV and the
  test read. Made once from their sources (the example astronaut, and scikit-image's bundled sample
  photos: camera and coffee, CC0; chelsea, CC0; rocket, SpaceX, public domain; coins, Brooklyn Museum,
  no known restrictions) and then kept: the script reuses a committed one.
- `attention-NAME.f32`: OpenCV's saliency map of that PNG (its 64x64 map enlarged to the photo by
  OpenCV's bilinear resize) brought back to 64x64 by averaging (INTER_AREA), in the `.f32` format of
  Scripts/f32.py. The test compares the node's 64x64 heat map with it by Pearson correlation.
"""
import os

import cv2
import numpy as np
from PIL import Image

import f32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures/saliency")
PHOTOS = ["astronaut", "camera", "coffee", "chelsea", "rocket", "coins"]


def source(name):
    """The full-size photo, as 8-bit RGB."""
    if name == "astronaut":
        return Image.open(os.path.join(ROOT, "Examples/images/astronaut.png")).convert("RGB")
    import skimage.data

    return Image.fromarray(getattr(skimage.data, name)()).convert("RGB")


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in PHOTOS:
        path = os.path.join(OUT, f"photo-{name}.png")
        if not os.path.exists(path):
            image = source(name)
            scale = 320 / max(image.size)
            if scale < 1:
                image = image.resize((round(image.width * scale), round(image.height * scale)), Image.Resampling.LANCZOS)
            image.save(path, optimize=True)
        bgr = cv2.imread(path, cv2.IMREAD_COLOR)
        ok, saliency = cv2.saliency.StaticSaliencySpectralResidual_create().computeSaliency(bgr)
        assert ok
        small = cv2.resize(saliency, (64, 64), interpolation=cv2.INTER_AREA)
        f32.write_f32(os.path.join(OUT, f"attention-{name}.f32"), small)
        print(name, bgr.shape[1], "x", bgr.shape[0], "opencv", cv2.__version__)


if __name__ == "__main__":
    main()
