#!/usr/bin/env python3
"""The OpenCV half of Scripts/three-consumers.sh: the three-consumer graph
(Tests/TesseraEngineTests/Fixtures/three-consumers.yaml) as a Python script.

    three-consumers-opencv.py make SOURCE OUT.jpg    the 6400x4270 test photo (Lanczos, center crop, Q90)
    three-consumers-opencv.py run PHOTO.jpg OVERLAY.jpg SPOTLIGHT.jpg CROP.jpg

`run` does what the graph does, step for step, with OpenCV's nearest tools:
- attention: StaticSaliencySpectralResidual, the method of the graph's `saliency` attention (its map
  comes at the photo's size, bilinear), stretched to 0...1, tinted yellow (r = g = heat, b = 0) and
  laid over the photo at 70% opacity, as the graph's colorMatrix (alpha 0.7) and composite do: salient
  parts glow yellow, the rest darkens.
- objectness: Tessera's is the minimum barrier distance on a 64x64 grid of the photo (antialiased
  shrink, blur sigma 1). OpenCV has no minimum barrier; its closest, StaticSaliencyFineGrained (the
  one Scripts/saliency-speed-opencv.py times), runs on the same grid (an area shrink, which reads
  every pixel as Tessera's does, blur sigma 1). Then as the graph: stretched, enlarged to the photo
  (bicubic), blurred with sigma 20 at full size, mask = 2 * soft clipped to 0...1, photo over black.
- crop: the objectness grid's cells at or above 0.4, 8-connected; the region of the largest summed
  value (the graph's most confident box; Tessera also merges overlapping boxes, which does not change
  the top one on ordinary photos), in the photo's pixels, grown by 16 px, grown to 4:3 around its
  center, kept inside the photo.
JPEGs are written at quality 90, as the graph's `save` does.
"""
import math
import sys

import cv2
import numpy as np

WIDTH, HEIGHT = 6400, 4270  # the 27 MP photo of issue 15
GRID = 64  # the saliency node's default size


def make(source, out):
    photo = cv2.imread(source, cv2.IMREAD_COLOR)
    scale = max(WIDTH / photo.shape[1], HEIGHT / photo.shape[0])
    size = (max(WIDTH, round(photo.shape[1] * scale)), max(HEIGHT, round(photo.shape[0] * scale)))
    big = cv2.resize(photo, size, interpolation=cv2.INTER_LANCZOS4)
    x, y = (big.shape[1] - WIDTH) // 2, (big.shape[0] - HEIGHT) // 2
    cv2.imwrite(out, big[y:y + HEIGHT, x:x + WIDTH], [cv2.IMWRITE_JPEG_QUALITY, 90])


def crop_rect(x0, y0, x1, y1, margin, ratio, width, height):
    """Crop.region of Sources/TesseraNodes/Geometry/Crop.swift: margin, then the ratio around the center."""
    x0, y0, x1, y1 = x0 - margin, y0 - margin, x1 + margin, y1 + margin
    w, h = x1 - x0, y1 - y0
    if w / h < ratio:
        w = h * ratio
    else:
        h = w / ratio
    fit = min(1, width / w, height / h)
    w, h = max(1, round(w * fit)), max(1, round(h * fit))
    x = min(max(round((x0 + x1) / 2 - w / 2), 0), width - w)
    y = min(max(round((y0 + y1) / 2 - h / 2), 0), height - h)
    return max(x, 0), max(y, 0), min(x + w, width), min(y + h, height)


def overlay(photo):
    """attention: the heat map, tinted yellow, laid over the photo at 70% opacity."""
    _, attention = cv2.saliency.StaticSaliencySpectralResidual_create().computeSaliency(photo)
    level = cv2.normalize(attention, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U)
    yellow = cv2.merge([np.zeros_like(level), level, level])
    return cv2.addWeighted(yellow, 0.7, photo, 0.3, 0)


def spotlight(photo):
    """objectness: the photo lit by its blurred map over black; and the map, for the crop."""
    height, width = photo.shape[:2]
    grid = cv2.GaussianBlur(cv2.resize(photo, (GRID, GRID), interpolation=cv2.INTER_AREA), (0, 0), 1)
    _, objects = cv2.saliency.StaticSaliencyFineGrained_create().computeSaliency(grid)
    objects = cv2.normalize(objects, None, 0, 1, cv2.NORM_MINMAX, cv2.CV_32F)
    big = cv2.resize(objects, (width, height), interpolation=cv2.INTER_CUBIC)
    mask = np.clip(cv2.GaussianBlur(big, (0, 0), 20) * 2, 0, 1)
    return cv2.blendLinear(photo, np.zeros_like(photo), mask, 1 - mask), objects


def auto_crop(photo, objects):
    """The photo cut 4:3 around the map's most salient region."""
    height, width = photo.shape[:2]
    count, labels, stats, _ = cv2.connectedComponentsWithStats((objects >= 0.4).astype(np.uint8), connectivity=8)
    weights = np.bincount(labels.ravel(), objects.ravel(), count)
    weights[0] = 0  # label 0: the cells below the threshold
    x, y, w, h = stats[int(weights.argmax()), :4]
    sx, sy = width / GRID, height / GRID
    box = (math.floor(x * sx), math.floor(y * sy), math.ceil((x + w) * sx), math.ceil((y + h) * sy))
    x0, y0, x1, y1 = crop_rect(*box, margin=16, ratio=4 / 3, width=width, height=height)
    return photo[y0:y1, x0:x1]


def run(path, overlay_path, spotlight_path, crop_path):
    jpeg = [cv2.IMWRITE_JPEG_QUALITY, 90]
    photo = cv2.imread(path, cv2.IMREAD_COLOR)
    cv2.imwrite(overlay_path, overlay(photo), jpeg)
    lit, objects = spotlight(photo)
    cv2.imwrite(spotlight_path, lit, jpeg)
    cv2.imwrite(crop_path, auto_crop(photo, objects), jpeg)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "run":
        run(*sys.argv[2:])
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main()
