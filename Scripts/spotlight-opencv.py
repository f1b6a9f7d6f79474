#!/usr/bin/env python3
"""The OpenCV half of Scripts/batch-speed.sh's second job: Graphs/spotlight.yaml over many photos, as a
Python script would do it, one photo per task in a pool of 2 processes.

    spotlight-opencv.py OUTDIR PHOTO...     writes OUTDIR/STEM-spotlight.png for each PHOTO

Each task: cv2.imread, then the spotlight of Scripts/three-consumers-opencv.py (imported from there, so the
two stay the same): objectness as StaticSaliencyFineGrained on the 64x64 grid Tessera's minimum barrier
runs on (area shrink, blur sigma 1), stretched to 0...1, enlarged to the photo (bicubic), blurred with
sigma 20, mask = 2 * soft clipped to 0...1, the photo over black; then an 8-bit PNG at zlib level 6,
the level of the graph's `save` (OpenCV's own default, level 1 with the RLE strategy, is faster and
larger). Each worker runs OpenCV on one thread (cv2.setNumThreads(1)): the pool gives one process per
core; OPENCV_THREADS=N sets another count. Prints the number of files written.
"""
import importlib.util
import multiprocessing
import os
import sys
from pathlib import Path

import cv2

spec = importlib.util.spec_from_file_location("three_consumers", Path(__file__).with_name("three-consumers-opencv.py"))
three = importlib.util.module_from_spec(spec)
spec.loader.exec_module(three)

PNG = [cv2.IMWRITE_PNG_COMPRESSION, 6]


def start():
    cv2.setNumThreads(int(os.environ.get("OPENCV_THREADS", "1")))


def spotlight(job):
    path, out = job
    photo = cv2.imread(path, cv2.IMREAD_COLOR)
    if photo is None:
        raise RuntimeError(f"cannot read {path}")
    lit, _ = three.spotlight(photo)
    if not cv2.imwrite(out, lit, PNG):
        raise RuntimeError(f"cannot write {out}")
    return out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    outdir, photos = Path(sys.argv[1]), sys.argv[2:]
    outdir.mkdir(parents=True, exist_ok=True)
    jobs = [(p, str(outdir / f"{Path(p).stem}-spotlight.png")) for p in photos]
    with multiprocessing.Pool(int(os.environ.get("PROCESSES", "2")), initializer=start) as pool:
        written = sum(1 for _ in pool.imap_unordered(spotlight, jobs))
        pool.close()
        pool.join()  # waited for, so that GNU time's peak memory covers the workers
    print(written)


if __name__ == "__main__":
    main()
