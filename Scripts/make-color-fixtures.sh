#!/usr/bin/env bash
# Makes Tests/TesseraIOTests/Fixtures/color/: p3-wheel.png, a 64x48 image of saturated hues (full
# saturation at the top, fading to gray at the bottom) and a gray ramp, tagged with libvips' Display P3
# profile ("sP3C", CC0) by exiftool without touching the pixels; and p3-wheel-srgb-vips.png, what
# `vips icc_transform` (Little CMS, relative intent) makes of it in sRGB with libvips' own sRGB profile
# (a v2 profile with tabulated curves, embedded in the result), and p3-wheel-srgb-tificc.png, what
# Little CMS's `tificc` makes of it with its built-in sRGB (exact primaries, parametric curve). The
# colorSpace tests compare with each, within 1/255, converting to the same sRGB profile as the tool:
# the two sRGBs differ by up to 2/255 on saturated greens near 0. Needs libvips-tools,
# libimage-exiftool-perl, liblcms2-utils and python3-opencv.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/Scripts/install-deps.sh" libvips-tools libimage-exiftool-perl liblcms2-utils python3-opencv python3-numpy
out="$ROOT/Tests/TesseraIOTests/Fixtures/color"
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - "$work/wheel.png" <<'PY'
import sys, cv2, numpy as np
h, w = 48, 64
hue = np.tile(np.linspace(0, 179, w, dtype=np.float32), (h, 1))
sat = np.tile(np.linspace(255, 0, h, dtype=np.float32)[:, None], (1, w))
hsv = np.dstack([hue, sat, np.full((h, w), 255, np.float32)]).astype(np.uint8)
bgr = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
bgr[-4:, :, :] = np.linspace(0, 255, w).astype(np.uint8)[None, :, None]  # a gray ramp
cv2.imwrite(sys.argv[1], bgr)
PY
vips icc_transform "$work/wheel.png" "$work/p3.png" p3 --input-profile srgb
exiftool -q -b -ICC_Profile "$work/p3.png" > "$work/p3.icc"
cp "$work/wheel.png" "$out/p3-wheel.png"
exiftool -q -overwrite_original "-ICC_Profile<=$work/p3.icc" "$out/p3-wheel.png"
vips icc_transform "$out/p3-wheel.png" "$out/p3-wheel-srgb-vips.png" srgb --embedded --intent relative
vips copy "$out/p3-wheel.png" "$work/p3.tif"
tificc -e -o '*sRGB' "$work/p3.tif" "$work/tificc.tif"
vips copy "$work/tificc.tif" "$out/p3-wheel-srgb-tificc.png[strip]"
