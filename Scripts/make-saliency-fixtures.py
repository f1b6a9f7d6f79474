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
- `objectness-NAME.f32`: the objectness map as the node's doc describes it, computed here
  independently with Pillow, SciPy and NumPy (FastMBD written from the paper, in Python), stretched
  to 0...1.

And in Tests/TesseraEngineTests/Fixtures, for the example graphs on Examples/images/astronaut.png:

- `saliency-astronaut.png`: OpenCV's attention map of the photo at its size, stretched to 0...1
  (16-bit gray), which Graphs/heatmap.yaml tints;
- `spotlight-mask.png`: the objectness map (computed here, as below) enlarged to the photo by
  Pillow's bicubic resize, blurred by SciPy's exact Gaussian (sigma 20, edges repeated) and doubled,
  clamped to 0...1 (16-bit gray): the mask Graphs/spotlight.yaml lights the photo with;
- `autocrop-box.txt`: the most salient objectness box (x y width height, pixels) by the same
  independent computation, with the default threshold 0.4.
"""
import os

import cv2
import numpy as np
from PIL import Image
from scipy import ndimage

import f32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures/saliency")
GRAPHS = os.path.join(ROOT, "Tests/TesseraEngineTests/Fixtures")
PHOTOS = ["astronaut", "camera", "coffee", "chelsea", "rocket", "coins"]


def source(name):
    """The full-size photo, as 8-bit RGB."""
    if name == "astronaut":
        return Image.open(os.path.join(ROOT, "Examples/images/astronaut.png")).convert("RGB")
    import skimage.data

    return Image.fromarray(getattr(skimage.data, name)()).convert("RGB")


def barrier_distance(values, passes=3):
    """FastMBD: border cells are seeds at distance 0; raster passes, forward then backward, offer each
    inner cell the path through its two visited neighbours."""
    n = values.shape[0]
    distance = np.full((n, n), np.inf)
    distance[0, :] = distance[-1, :] = distance[:, 0] = distance[:, -1] = 0
    high = values.copy()
    low = values.copy()
    for p in range(passes):
        order = range(1, n - 1) if p % 2 == 0 else range(n - 2, 0, -1)
        step = -1 if p % 2 == 0 else 1
        for y in order:
            for x in order:
                v = values[y, x]
                for ny, nx in ((y + step, x), (y, x + step)):
                    h = max(high[ny, nx], v)
                    lo = min(low[ny, nx], v)
                    if h - lo < distance[y, x]:
                        distance[y, x], high[y, x], low[y, x] = h - lo, h, lo
    return distance


def objectness(path, size=64):
    """The node's objectness map: RGB shrunk to size x size (Pillow's antialiased bilinear, per channel
    in float), blurred with sigma 1 (edges repeated), FastMBD per channel, summed, stretched."""
    rgb = np.asarray(Image.open(path).convert("RGB")).astype(np.float32) / 255
    total = np.zeros((size, size))
    for c in range(3):
        small = np.asarray(Image.fromarray(rgb[:, :, c]).resize((size, size), Image.Resampling.BILINEAR))
        blurred = ndimage.gaussian_filter(small.astype(np.float64), 1, mode="nearest", truncate=4.0)
        total += barrier_distance(blurred)
    return (total - total.min()) / (total.max() - total.min())


def most_salient_box(saliency, threshold, width, height):
    """Boxes as the node makes them: 8-connected cells at or above the threshold, boxes merged while
    any overlap, ranked by the sum of their cells; the first, in image pixels."""
    labels, count = ndimage.label(saliency >= threshold, structure=np.ones((3, 3)))
    boxes = []
    for k in range(1, count + 1):
        ys, xs = np.nonzero(labels == k)
        boxes.append([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1, saliency[labels == k].sum()])
    merged = True
    while merged:
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                a, b = boxes[i], boxes[j]
                if max(a[0], b[0]) < min(a[2], b[2]) and max(a[1], b[1]) < min(a[3], b[3]):
                    boxes[i] = [min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]), a[4] + b[4]]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    best = max(boxes, key=lambda b: b[4])
    n = saliency.shape[0]
    return [best[0] * width / n, best[1] * height / n, (best[2] - best[0]) * width / n, (best[3] - best[1]) * height / n]


def write_gray16(path, values):
    Image.fromarray(np.round(np.clip(values, 0, 1) * 65535).astype(np.uint16)).save(path)


def graph_fixtures():
    photo = os.path.join(ROOT, "Examples/images/astronaut.png")
    ok, saliency = cv2.saliency.StaticSaliencySpectralResidual_create().computeSaliency(cv2.imread(photo))
    assert ok
    heat = (saliency - saliency.min()) / (saliency.max() - saliency.min())
    write_gray16(os.path.join(GRAPHS, "saliency-astronaut.png"), heat)
    height, width = heat.shape
    objects = objectness(photo)
    big = np.asarray(Image.fromarray(objects.astype(np.float32)).resize((width, height), Image.Resampling.BICUBIC))
    soft = ndimage.gaussian_filter(big.astype(np.float64), 20, mode="nearest", truncate=4.0)
    write_gray16(os.path.join(GRAPHS, "spotlight-mask.png"), np.clip(soft * 2, 0, 1))
    box = most_salient_box(objects, 0.4, width, height)
    with open(os.path.join(GRAPHS, "autocrop-box.txt"), "w") as f:
        f.write(" ".join(f"{v:g}" for v in box) + "\n")
    print("astronaut: objectness box", box)


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
        f32.write_f32(os.path.join(OUT, f"objectness-{name}.f32"), objectness(path))
        print(name, bgr.shape[1], "x", bgr.shape[0], "opencv", cv2.__version__)
    graph_fixtures()


if __name__ == "__main__":
    main()
