#!/usr/bin/env python3
"""The OpenCV half of Scripts/saliency-speed.sh.

    saliency-speed-opencv.py make SOURCE.png OUT.tif   the 4K test photo (3840x2160, uncompressed TIFF)
    saliency-speed-opencv.py time PHOTO.tif RUNS       times imread and OpenCV contrib's saliency
"""
import sys
import time

import cv2
import numpy as np


def make(source, out):
    photo = cv2.imread(source, cv2.IMREAD_COLOR)
    big = cv2.resize(photo, (3840, 3840), interpolation=cv2.INTER_CUBIC)
    cv2.imwrite(out, big[840:840 + 2160], [cv2.IMWRITE_TIFF_COMPRESSION, 1])


def median_seconds(work, runs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
        return
    path, runs = sys.argv[2], int(sys.argv[3])
    photo = cv2.imread(path, cv2.IMREAD_COLOR)
    read = median_seconds(lambda: cv2.imread(path, cv2.IMREAD_COLOR), runs)
    spectral = cv2.saliency.StaticSaliencySpectralResidual_create()
    fine = cv2.saliency.StaticSaliencyFineGrained_create()
    spectral.computeSaliency(photo)
    sr = median_seconds(lambda: spectral.computeSaliency(photo), runs)
    fg = median_seconds(lambda: fine.computeSaliency(photo), max(1, runs // 2))
    print(f"{'opencv imread of the TIFF':<44} {read:8.3f}")
    print(f"{'opencv StaticSaliencySpectralResidual':<44} {sr:8.3f}   (decoded image in, map at photo size out)")
    print(f"{'opencv StaticSaliencyFineGrained':<44} {fg:8.3f}   (decoded image in, map at photo size out)")


if __name__ == "__main__":
    main()
