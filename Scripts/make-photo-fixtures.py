#!/usr/bin/python3
"""Makes the reference fixtures of the photo nodes (exposure, colorControls, vibrance, levels, toneCurve,
flip, rotate, pad) with NumPy, SciPy and OpenCV, independently of Tessera.

Run once from the repository root with Debian's python3-opencv, python3-scipy and python3-pil; the
outputs are committed in Tests/TesseraNodesTests/Fixtures with a `photo-` prefix and read by
Tests/TesseraNodesTests/PhotoNodeTests.swift. Inputs are the node fixtures' 96x72 crop of the example
photo (photo.png, photo-alpha.png, from Scripts/make-node-fixtures.py) and a 48x36 crop of it made here.
Float references are in the `.f32` format (Scripts/f32.py); exact references (flip, quarter turns, pad)
are PNG files, which keep 8-bit pixels bit for bit.

Where Core Image defines a node (exposure, colorControls, vibrance), the reference is the documented
formula written out in NumPy from Apple's definition (see each node's doc for the formula and for what
Apple leaves open: the luma weights and the order of the steps).
"""
import os

import cv2
import numpy as np
from PIL import Image
from scipy import ndimage
from scipy.interpolate import PchipInterpolator

import f32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures")
REC709 = np.array([0.2126, 0.7152, 0.0722], np.float64)


def write_f32(name, array):
    f32.write_f32(os.path.join(FIXTURES, "photo-" + name), array)


def write_png(name, array8):
    Image.fromarray(array8).save(os.path.join(FIXTURES, "photo-" + name))


def load(name, mode):
    """8-bit pixels and what Tessera decodes: samples over 255."""
    pixels = np.asarray(Image.open(os.path.join(FIXTURES, name)).convert(mode))
    return pixels, pixels.astype(np.float64) / 255


def with_alpha(rgb, alpha):
    return np.dstack([rgb, alpha])


photo8, photo = load("photo.png", "RGB")
rgba8, rgba = load("photo-alpha.png", "RGBA")
h, w, _ = photo.shape
assert (w, h) == (96, 72), (w, h)
ones = np.ones((h, w))

# exposure: v * 2^ev on color (CIExposureAdjust), alpha kept.
for ev in (0.7, -1.5):
    write_f32(f"exposure-{ev}.f32", with_alpha(rgba[:, :, :3] * 2.0**ev, rgba[:, :, 3]))


# colorControls (CIColorControls): mix with Rec. 709 gray by saturation, add brightness, then contrast
# about 0.5; no clamping.
def color_controls(rgb, saturation, brightness, contrast):
    gray = (rgb * REC709).sum(axis=2, keepdims=True)
    c = gray + (rgb - gray) * saturation
    c = c + brightness
    return (c - 0.5) * contrast + 0.5


write_f32("colorControls-vivid.f32", with_alpha(color_controls(photo, 1.4, 0.05, 1.2), ones))
write_f32("colorControls-muted.f32", with_alpha(color_controls(rgba[:, :, :3], 0.3, -0.1, 0.8), rgba[:, :, 3]))


# vibrance: saturation factor 1 + amount * (1 - chroma), chroma = max - min, about Rec. 709 gray.
def vibrance(rgb, amount):
    chroma = rgb.max(axis=2, keepdims=True) - rgb.min(axis=2, keepdims=True)
    gray = (rgb * REC709).sum(axis=2, keepdims=True)
    return gray + (rgb - gray) * (1 + amount * (1 - chroma))


write_f32("vibrance-0.8.f32", with_alpha(vibrance(photo, 0.8), ones))
write_f32("vibrance--0.6.f32", with_alpha(vibrance(rgba[:, :, :3], -0.6), rgba[:, :, 3]))


# levels (Photoshop, GIMP): clip to the input points, gamma, then the output points.
def levels(v, black, white, gamma, out_black, out_white):
    t = np.clip((v - black) / (white - black), 0, 1) ** (1 / gamma)
    return out_black + (out_white - out_black) * t


write_f32("levels-rgb.f32", with_alpha(levels(photo, 0.1, 0.85, 1.4, 0.05, 0.95), ones))
red = rgba.copy()
red[:, :, 0] = levels(rgba[:, :, 0], 0.2, 0.9, 0.7, 0.0, 1.0)
write_f32("levels-red.f32", red)

# toneCurve: SciPy's PCHIP through the points, constant outside them.
def tone_curve(v, points):
    xs, ys = np.array(points[0::2]), np.array(points[1::2])
    return PchipInterpolator(xs, ys)(np.clip(v, xs[0], xs[-1]))


S_CURVE = [0, 0, 0.25, 0.18, 0.5, 0.5, 0.75, 0.85, 1, 1]
PEAK = [0.1, 0.0, 0.5, 0.7, 0.9, 0.4]  # turns: a flat top at the middle point; clipped outside 0.1...0.9
write_f32("toneCurve-s.f32", with_alpha(tone_curve(photo, S_CURVE), ones))
write_f32("toneCurve-peak.f32", with_alpha(tone_curve(rgba[:, :, :3], PEAK), rgba[:, :, 3]))

# flip and quarter turns: numpy's own, on the RGBA photo, as PNG (exact).
write_png("flip-horizontal.png", np.fliplr(rgba8))
write_png("flip-vertical.png", np.flipud(rgba8))
write_png("flip-both.png", np.flipud(np.fliplr(rgba8)))
for k in (1, 2, 3):
    write_png(f"rotate-{90 * k}.png", np.rot90(rgba8, k))  # counter-clockwise, as the node

# pad: numpy.pad (constant, edge, symmetric) of the RGBA photo. Sizes and offsets as the node documents:
# centered with the odd spare pixel after; a color of whole 8-bit steps.
def pad(image, before, after, mode, color=None):
    widths = ((before[1], after[1]), (before[0], after[0]), (0, 0))
    if mode == "constant":
        return np.dstack([np.pad(image[:, :, c], widths[:2], mode="constant", constant_values=color[c]) for c in range(4)])
    return np.pad(image, widths, mode=mode)


write_png("pad-color-16x9.png", pad(rgba8, (16, 0), (16, 0), "constant", (51, 102, 153, 255)))  # 128x72
write_png("pad-extend-120x90-topLeft.png", pad(rgba8, (0, 0), (24, 18), "edge"))
write_png("pad-mirror-300x100.png", pad(rgba8, (102, 14), (102, 14), "symmetric"))  # wider than the image

# rotate by any angle: OpenCV's warpAffine with the inverse map about the image centers (pixel centers
# at integer coordinates), BORDER_CONSTANT. On a 48x36 crop, kept as PNG for the node's input.
small8 = photo8[18:54, 24:72]
write_png("small.png", small8)
small = small8.astype(np.float32) / 255
FLAGS = {"nearest": cv2.INTER_NEAREST, "bilinear": cv2.INTER_LINEAR, "bicubic": cv2.INTER_CUBIC}


def rotation(angle, size, out_size):
    """The inverse map: output pixel (x, y) samples the input at M @ (x, y, 1)."""
    a = np.deg2rad(angle)
    c, s = np.cos(a), np.sin(a)
    (w, h), (ow, oh) = size, out_size
    cx, cy, ox, oy = (w - 1) / 2, (h - 1) / 2, (ow - 1) / 2, (oh - 1) / 2
    return np.array([[c, -s, cx - c * ox + s * oy], [s, c, cy - s * ox - c * oy]])


def grown(angle, w, h):
    a = np.deg2rad(angle)
    c, s = abs(np.cos(a)), abs(np.sin(a))
    return int(np.ceil(c * w + s * h - 1e-6)), int(np.ceil(s * w + c * h - 1e-6))


def warp(image, angle, interpolation, border, out_size=None):
    h, w = image.shape[:2]
    out_size = out_size or grown(angle, w, h)
    m = rotation(angle, (w, h), out_size)
    return cv2.warpAffine(
        image, m, out_size, flags=FLAGS[interpolation] | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT, borderValue=border)


def warp_alpha(rgba_image, angle, interpolation, background, out_size=None):
    """With alpha, as the node: colors weighed by alpha, divided by the resampled alpha."""
    alpha = rgba_image[:, :, 3:]
    weighed = np.dstack([rgba_image[:, :, :3] * alpha, alpha]).astype(np.float32)
    bg = tuple(float(v) * background[3] for v in background[:3]) + (float(background[3]),)
    out = warp(weighed, angle, interpolation, bg, out_size)
    a = out[:, :, 3:]
    color = np.where(a > 0, out[:, :, :3] / np.where(a > 0, a, 1), 0)
    return np.dstack([color, np.clip(a, 0, 1)])


teal = (0.2, 0.4, 0.6, 1.0)
for angle, interpolation in ((30, "bilinear"), (17.5, "bicubic"), (-40, "nearest")):
    out = warp(small, angle, interpolation, teal[:3])
    write_f32(f"rotate-{angle}-{interpolation}.f32", out)
# A transparent background (the default): RGBA out, alpha-weighed.
small_rgba = np.dstack([small, np.ones(small.shape[:2], np.float32)])
write_f32("rotate-30-bilinear-transparent.f32", warp_alpha(small_rgba, 30, "bilinear", (0, 0, 0, 0)))
# The same bilinear turn computed exactly (SciPy's map_coordinates, no fixed-point positions).
out_w, out_h = grown(30, 48, 36)
m = rotation(30, (48, 36), (out_w, out_h))
ys, xs = np.mgrid[0:out_h, 0:out_w].astype(np.float64)
sx = m[0, 0] * xs + m[0, 1] * ys + m[0, 2]
sy = m[1, 0] * xs + m[1, 1] * ys + m[1, 2]
exact = np.dstack([
    ndimage.map_coordinates(small[:, :, c].astype(np.float64), [sy, sx], order=1, mode="grid-constant", cval=teal[c])
    for c in range(3)])
write_f32("rotate-30-bilinear-exact.f32", exact)
