#!/usr/bin/python3
"""peers-opencv.py: one compare-peers job in OpenCV: read the TIFF(s), run the operation, write the TIFF.

Usage: peers-opencv.py blur SIGMA IN OUT
       peers-opencv.py colormatrix MATRIX_FILE IN OUT      (a 3x3 matrix, rows of r g b weights)
       peers-opencv.py crop X Y WIDTH HEIGHT IN OUT
       peers-opencv.py blend MASK IN BACKGROUND OUT        (MASK 255 gives IN, 0 gives BACKGROUND)

Prints one line, `read OP write total` in seconds as timed inside the process, so that the operation
alone can be told apart from Python's start-up and the codec. Outputs are uncompressed TIFF (OpenCV's
default is LZW). Runs with OpenCV's default threads (one per core), as the other tools do.
"""
import sys
import time

import cv2
import numpy as np

# libtiff's code for no compression; OpenCV writes LZW unless told.
TIFF_NONE = [cv2.IMWRITE_TIFF_COMPRESSION, 1]


def read(path):
    image = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if image is None:
        sys.exit(f"peers-opencv: cannot read {path}")
    return image


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    job, args = argv[1], argv[2:]
    start = time.perf_counter()
    if job == "blur":
        sigma, source, out = float(args[0]), args[1], args[2]
        image = read(source)
        t_read = time.perf_counter()
        # ksize (0, 0): OpenCV sizes the kernel from sigma (6 sigma + 1 taps for 8-bit images, 8 sigma + 1
        # for float) and, for 8-bit, convolves in 16-bit fixed point.
        result = cv2.GaussianBlur(image, (0, 0), sigma, borderType=cv2.BORDER_REPLICATE)
    elif job == "colormatrix":
        matrix = np.loadtxt(args[0], dtype=np.float32).reshape(3, 3)
        source, out = args[1], args[2]
        image = read(source)
        t_read = time.perf_counter()
        # OpenCV holds BGR: reverse the rows and columns to apply the same RGB matrix. Float output, as
        # vips recomb gives: values are not clamped, and the TIFF is 32-bit float.
        result = cv2.transform(image.astype(np.float32), matrix[::-1, ::-1].copy())
    elif job == "crop":
        x, y, width, height = (int(v) for v in args[:4])
        source, out = args[4], args[5]
        image = read(source)
        t_read = time.perf_counter()
        # A view, as numpy slicing gives; imwrite copies the rows out.
        result = image[y : y + height, x : x + width]
    elif job == "blend":
        mask_path, source, background_path, out = args
        mask = read(mask_path)
        image = read(source)
        background = read(background_path)
        t_read = time.perf_counter()
        # out = a*m + b*(1-m) with m = mask/255, in one multi-threaded OpenCV call on 8-bit data.
        weights = mask.astype(np.float32) * np.float32(1 / 255)
        result = cv2.blendLinear(image, background, weights, 1 - weights)
    else:
        sys.exit(f"peers-opencv: unknown job {job!r}\n{__doc__}")
    t_op = time.perf_counter()
    if not cv2.imwrite(out, result, TIFF_NONE):
        sys.exit(f"peers-opencv: cannot write {out}")
    end = time.perf_counter()
    print(f"{t_read - start:.4f} {t_op - t_read:.4f} {end - t_op:.4f} {end - start:.4f}")


if __name__ == "__main__":
    main(sys.argv)
