#!/usr/bin/python3
"""Makes the contour fixtures with OpenCV: binary masks, what findContours(RETR_TREE, CHAIN_APPROX_NONE)
finds on them, approxPolyDP (closed) of those contours at three epsilons, and their lengths and areas.

Run once from the repository root with OpenCV 4.6: Debian's python3-opencv (apt-get install
python3-opencv), or pip's opencv-python-headless==4.6.0.66 with numpy<2 in a virtual environment (the
same files, byte for byte). OpenCV 4.10 and later simplify some contours differently (see
Docs/HowItWorks.md). The outputs are committed in Tests/TesseraNodesTests/Fixtures/contours. For each
mask NAME:

- NAME.png: the mask, 8-bit gray, 0 or 255 (OpenCV treats every non-zero pixel as foreground);
- NAME.json: {"width", "height", "contours": [[[x, y], ...], ...] in OpenCV's order,
  "hierarchy": [[next, previous, firstChild, parent], ...] as OpenCV gives it,
  "approx": {"EPSILON": [[[x, y], ...], ...]}: approxPolyDP(contour, EPSILON, closed=True) of each,
  "arcLength": [arcLength(contour, closed=True) of each], "contourArea": [contourArea(contour) of each],
  "filtered": [{"minimumLength", "minimumArea", "kept": [indices of the contours whose arcLength and
  contourArea are at least those], "parent": [each kept contour's nearest kept ancestor, as an index
  into kept, or -1]}, ...] for the pairs in FILTERS}.

The photo masks also write the detectContours reference of the node test (photo-contrast.png: the gray
of Tests/TesseraNodesTests/Fixtures/photo.png with Rec. 709 weights, contrast 1.5 around 0.4, foreground
where the result is below 0.5: dark on light).
"""
import json
import os

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures/contours")
EPSILONS = [1.0, 2.5, 6.0]
# (minimumLength, minimumArea) pairs: a length alone, an area alone, both; 60 and 200 drop borders of the
# comb mask that enclose longer ones.
FILTERS = [(10.0, 0.0), (0.0, 4.0), (30.0, 20.0), (60.0, 0.0), (200.0, 0.0)]


def filtered(hierarchy, lengths, areas, minimum_length, minimum_area):
    """The contours detectContours keeps with these minimums, and the tree that is left: a kept contour
    whose parent was dropped hangs from its nearest kept ancestor."""
    kept = [i for i in range(len(lengths)) if lengths[i] >= minimum_length and areas[i] >= minimum_area]
    index = {old: new for new, old in enumerate(kept)}
    parents = []
    for i in kept:
        parent = hierarchy[i][3]
        while parent >= 0 and parent not in index:
            parent = hierarchy[parent][3]
        parents.append(index[parent] if parent >= 0 else -1)
    return {"minimumLength": minimum_length, "minimumArea": minimum_area, "kept": kept, "parent": parents}


def save(name, mask):
    mask = (np.asarray(mask) != 0).astype(np.uint8) * 255
    cv2.imwrite(os.path.join(OUT, name + ".png"), mask)
    contours, hierarchy = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
    tree = [] if hierarchy is None else hierarchy.reshape(-1, 4).tolist()
    lengths = [cv2.arcLength(c, True) for c in contours]
    areas = [cv2.contourArea(c) for c in contours]
    record = {
        "width": int(mask.shape[1]),
        "height": int(mask.shape[0]),
        "contours": [c.reshape(-1, 2).tolist() for c in contours],
        "hierarchy": tree,
        "approx": {
            str(eps): [cv2.approxPolyDP(c, eps, True).reshape(-1, 2).tolist() for c in contours] for eps in EPSILONS
        },
        "arcLength": lengths,
        "contourArea": areas,
        "filtered": [filtered(tree, lengths, areas, length, area) for length, area in FILTERS],
    }
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        json.dump(record, f, separators=(",", ":"))
    print(f"{name}: {mask.shape[1]}x{mask.shape[0]}, {len(contours)} contours")


os.makedirs(OUT, exist_ok=True)

# 1. Nested: a square with a hole holding a square with a hole, three levels of holes, plus two
# islands side by side in the innermost hole and a ring beside the nest.
m = np.zeros((64, 80), np.uint8)
for level, inset in enumerate([4, 10, 16, 22]):
    m[inset : 60 - inset, inset : 60 - inset] = 1 if level % 2 == 0 else 0
    m[inset + 3 : 60 - inset - 3, inset + 3 : 60 - inset - 3] = 0
m[26:29, 26:29] = 1
m[31:34, 31:33] = 1
m[10:30, 64:76] = 1
m[14:26, 68:72] = 0
m[18:22, 69:71] = 1
save("nested", m)

# 2. Shapes touching the image border: a frame around the whole image with a hole, corners, an edge
# run along the bottom, and a shape crossing the right edge.
m = np.zeros((40, 50), np.uint8)
m[0, :] = 1
m[:, 0] = 1
m[0:6, 44:50] = 1
m[39, 10:40] = 1
m[35:40, 20:25] = 1
m[15:25, 45:50] = 1
m[18:22, 47:49] = 0
m[10:20, 0:8] = 1
m[13:16, 2:5] = 0
save("border", m)

# 3. Everything foreground: the outer border is the image's own edge.
save("full", np.ones((12, 17), np.uint8))

# 4. One-pixel lines and single pixels: horizontal, vertical, diagonal, an L, a plus, a one-pixel
# ring, isolated pixels, including at the corners.
m = np.zeros((48, 48), np.uint8)
m[5, 3:20] = 1
m[8:30, 25] = 1
for i in range(12):
    m[30 + i, 2 + i] = 1
    m[40 - i, 30 + i] = 1
m[12:20, 5] = 1
m[19, 5:12] = 1
m[36:45, 40] = 1
m[40, 36:45] = 1
m[10:18, 30:42] = 1
m[11:17, 31:41] = 0
for y, x in [(0, 0), (0, 47), (47, 0), (47, 47), (2, 44), (22, 15), (23, 17), (45, 20)]:
    m[y, x] = 1
save("lines", m)

# 5. Diagonal-only connections: a checkerboard patch, diagonal staircases, pixels meeting at corners
# around holes (a hole whose border is 8-connected through corners), a diamond outline.
m = np.zeros((40, 40), np.uint8)
m[2:12, 2:12] = (np.indices((10, 10)).sum(axis=0) % 2 == 0)
for i in range(8):
    m[15 + i, 2 + i] = 1
    m[15 + i, 3 + i] = 1 if i % 3 == 0 else 0
for y, x in [(20, 20), (21, 21), (22, 20), (21, 19), (25, 25), (26, 26), (27, 27), (26, 28), (25, 29)]:
    m[y, x] = 1
c = 30
for i in range(7):
    m[c - 7 + i, 14 + i] = m[c + 7 - i, 14 + i] = m[c - 7 + i, 28 - i] = m[c + 7 - i, 28 - i] = 1
m[c, 21] = 1
m[2:10, 25:35] = 1
m[4, 27] = m[5, 28] = m[6, 29] = m[5, 30] = 0
m[7, 31] = 0
save("diagonal", m)

# 6. Random noise: hundreds of contours with holes in holes (more than 127, where OpenCV's 8-bit
# labels wrap), in a deterministic pattern.
rng = np.random.default_rng(5)
m = (rng.random((120, 160)) < 0.45).astype(np.uint8)
save("noise", m)

# 7. Blobs: smoothed noise thresholded, large shapes with many holes.
noise = rng.random((150, 200)).astype(np.float32)
blobs = cv2.GaussianBlur(noise, (0, 0), 3)
save("blobs", blobs > np.median(blobs))

# 8-10. The example photo's luminance (Rec. 709 on the stored values) thresholded at three pivots,
# dark on light: foreground where it is darker.
photo = cv2.cvtColor(cv2.imread(os.path.join(ROOT, "Examples/images/astronaut.png"), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
rgb = photo.astype(np.float32) / 255
luma = 0.2126 * rgb[:, :, 0] + 0.7152 * rgb[:, :, 1] + 0.0722 * rgb[:, :, 2]
for pivot in [0.3, 0.5, 0.7]:
    save(f"photo-{pivot}", luma < pivot)

# 11. Empty: no contours.
save("empty", np.zeros((9, 7), np.uint8))

# 12. Combs: borders longer than the border around them, so a length filter drops a parent and keeps
# its child. A square ring with spikes outside (A) whose hole (B) holds a comb (C): at 200, B is dropped
# and C hangs from A. A small ring (E) whose hole has teeth poking in: at 60, E is dropped and its hole
# is left with no parent.
m = np.zeros((48, 66), np.uint8)
m[4:44, 4:44] = 1
m[8:40, 8:40] = 0
for x in range(6, 42, 2):
    m[1:4, x] = 1
m[10, 10:38] = 1
for x in range(10, 38, 2):
    m[10:38, x] = 1
m[4:16, 50:62] = 1
m[6:14, 52:60] = 0
for x in (53, 55, 57):
    m[6:13, x] = 1
save("comb", m)

# The detectContours node test: the 96x72 photo crop of the node fixtures, gray with Rec. 709 weights,
# contrast 1.5 around pivot 0.4 (clamped), foreground where below 0.5. Values within 1e-5 of 0.5 are
# written to a list of ambiguous pixels the test may disagree on (Float32 rounding).
crop = cv2.cvtColor(
    cv2.imread(os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures/photo.png"), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
crgb = crop.astype(np.float32) / 255
cl = np.float32(0.2126) * crgb[:, :, 0] + np.float32(0.7152) * crgb[:, :, 1] + np.float32(0.0722) * crgb[:, :, 2]
adjusted = np.clip((cl - np.float32(0.4)) * np.float32(1.5) + np.float32(0.4), 0, 1)
print("photo-contrast ambiguous pixels:", int(np.sum(np.abs(adjusted - 0.5) < 1e-5)))
save("photo-contrast", adjusted < 0.5)
