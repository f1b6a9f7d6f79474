#!/usr/bin/python3
"""Times detectContours against the same steps in OpenCV, side by side, on a 4K photo.

Usage: Scripts/compare-contours.py [RUNS]       (TESSERA=path/to/tessera to skip the release build)

The photo is Examples/images/astronaut.png upscaled x7.5 (bicubic) and cropped to 3840x2160, stored as
an uncompressed TIFF so that decoding costs little. Jobs, each run RUNS times (default 5), the tools
alternating, median reported:

- 512: luminance, downscale to 512 on the longer side, contrast 2 around 0.5, binarize, contours,
  simplification (epsilon 0.002 of the longer side, 1.02 px);
- full: the same at full resolution (no downscale);
- sweep: the contour-art tutorial's 78 settings (pivot 0.2...0.7 by 0.1, adjustment 0.5...3.0 by
  0.2) at 512, merged, IoU 0.9 dedupe, epsilon 0.01.

OpenCV (Debian's python3-opencv): Rec. 709 luminance with cv2.transform, cv2.resize INTER_AREA,
the contrast and threshold in NumPy (float32), findContours(RETR_TREE, CHAIN_APPROX_NONE), then
approxPolyDP on each contour; the sweep dedupes with the tutorial's O(n^2) loop only up to 9000
contours, as the tutorial does (it skips dedupe above that). Timed in-process from the loaded image.
Tessera: `tessera run --stats --threads 2`: the detectContours node's own time (--stats: luminance,
downscale and the steps above, not the waits for its input, whose TIFF decodes on the workers), as
OpenCV's starts from the decoded image; and the whole process's wall time (start-up, load, the node,
writing the JSON).
"""
import json
import os
import statistics
import subprocess
import sys
import time

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORK = os.environ.get("WORK", "/tmp/tessera-contours")
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5


def tessera_binary():
    if os.environ.get("TESSERA"):
        return os.environ["TESSERA"]
    subprocess.run(["swift", "build", "-c", "release", "--product", "tessera"], cwd=ROOT, check=True)
    path = subprocess.run(
        ["swift", "build", "-c", "release", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    return os.path.join(path, "tessera")


def make_photo(path):
    photo = cv2.imread(os.path.join(ROOT, "Examples/images/astronaut.png"), cv2.IMREAD_COLOR)
    big = cv2.resize(photo, (3840, 3840), interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(path, big[840:3000], [cv2.IMWRITE_TIFF_COMPRESSION, 1])


def opencv_job(bgr, max_dim, settings, epsilon, iou):
    """The detectContours steps; returns the number of contours."""
    gray = cv2.transform(bgr.astype(np.float32) / 255, np.array([[0.0722, 0.7152, 0.2126]], np.float32))
    h, w = gray.shape
    if max(w, h) > max_dim:
        scale = max_dim / max(w, h)
        gray = cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    eps = epsilon * max(gray.shape)
    merged = []
    for pivot, amount in settings:
        adjusted = np.clip((gray - np.float32(pivot)) * np.float32(amount) + np.float32(pivot), 0, 1)
        mask = (adjusted < 0.5).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
        merged += [cv2.approxPolyDP(c, eps, True) if eps > 0 else c for c in contours]
    if iou is not None and len(merged) < 9000:
        boxes = [cv2.boundingRect(c) for c in merged]
        kept = []
        for box in boxes:
            x, y, bw, bh = box
            duplicate = False
            for kx, ky, kw, kh in kept:
                iw = min(x + bw, kx + kw) - max(x, kx)
                ih = min(y + bh, ky + kh) - max(y, ky)
                if iw > 0 and ih > 0 and iw * ih / (bw * bh + kw * kh - iw * ih) >= iou:
                    duplicate = True
                    break
            if not duplicate:
                kept.append(box)
        return len(kept)
    return len(merged)


def tessera_job(tessera, graph):
    start = time.perf_counter()
    result = subprocess.run([tessera, "run", "--stats", "--quiet", "--threads", "2", graph], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(result.stderr)
    own = None
    for line in result.stderr.splitlines():
        columns = line.split()
        if len(columns) > 2 and columns[0] == "contours" and columns[1] == "detectContours":
            own = float(columns[2]) / 1000  # the stats table gives milliseconds
    return own, wall


def main():
    os.makedirs(WORK, exist_ok=True)
    photo_path = os.path.join(WORK, "photo4k.tif")
    if not os.path.exists(photo_path):
        make_photo(photo_path)
    tessera = tessera_binary()
    bgr = cv2.imread(photo_path, cv2.IMREAD_COLOR)
    pivots = [0.2 + 0.1 * i for i in range(6)]
    amounts = [0.5 + 0.2 * i for i in range(13)]
    jobs = [
        ("512", 512, [(0.5, 2.0)], 0.002, None, "epsilon: 0.002"),
        ("full", 8192, [(0.5, 2.0)], 0.002, None, "epsilon: 0.002, maximumImageDimension: 8192"),
        (
            "sweep",
            512,
            [(p, a) for p in pivots for a in amounts],
            0.01,
            0.9,
            "contrastPivotSweep: [0.2, 0.7, 0.1], contrastAdjustmentSweep: [0.5, 3.0, 0.2], iouThreshold: 0.9, "
            "epsilon: 0.01",
        ),
    ]
    print(f"{RUNS} runs each, median; {os.cpu_count()} cores; OpenCV {cv2.__version__}; load average "
          f"{os.getloadavg()[0]:.2f} at the start")
    print(f"{'job':6} {'OpenCV':>9} {'tessera node':>13} {'tessera run':>12} {'contours (cv / tessera)':>26}")
    for name, max_dim, settings, epsilon, iou, parameters in jobs:
        graph = os.path.join(WORK, f"contours-{name}.yaml")
        out = os.path.join(WORK, f"contours-{name}.json")
        with open(graph, "w") as f:
            f.write(
                "version: 1\nnodes:\n"
                f"  photo: {{ op: load, path: {photo_path} }}\n"
                f"  contours: {{ op: detectContours, input: photo, {parameters} }}\n"
                f"  out: {{ op: save, input: contours, path: {out} }}\n"
            )
        cv_times, node_times, run_times = [], [], []
        count = 0
        for _ in range(RUNS):
            start = time.perf_counter()
            count = opencv_job(bgr, max_dim, settings, epsilon, iou)
            cv_times.append(time.perf_counter() - start)
            own, wall = tessera_job(tessera, graph)
            node_times.append(own if own is not None else float("nan"))
            run_times.append(wall)
        with open(out) as f:
            found = len(json.load(f)["contours"])
        print(
            f"{name:6} {statistics.median(cv_times):8.3f}s {statistics.median(node_times):12.3f}s "
            f"{statistics.median(run_times):11.3f}s {count:>13} / {found}"
        )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


main()
