#!/usr/bin/python3
"""Makes the reference fixtures of unsharpMask, maskedBlur, linearGradient and radialGradient.

Run once from the repository root with Debian's python3-pil, python3-scipy, python3-numpy and
python3-opencv; the outputs are committed in Tests/TesseraNodesTests/Fixtures with the prefixes
`unsharp-`, `maskedBlur-` and `gradient-`, in the `.f32` format of f32.py. Inputs are 8-bit crops of the
example photo (photo.png, make-node-fixtures.py's 96x72 crop, and blur-photo-large.png,
make-blur-fixtures.py's 256x192 crop), read as value / 255, as Tessera decodes them.

- unsharpMask, two references: Pillow's own ImageFilter.UnsharpMask(radius, percent, threshold) on the
  8-bit photo (`unsharp-pillow-...`: an independent implementation, which blurs with three box filters
  and rounds to 8 bits), and Pillow's formula (`v + percent/100 (v - blurred)` where `|v - blurred|`
  is more than threshold levels, clamped) computed in float64 with SciPy's exact Gaussian
  (`unsharp-exact-...`: gaussian_filter, truncate 4, mode 'nearest').
- maskedBlur: Core Image's definition, each pixel blurred by its own Gaussian of sigma radius * mask,
  computed exactly: one gaussian_filter of the whole photo per distinct sigma, each pixel taken from
  its own (mask 8-bit, so at most 256 blurs). The node approximates it with a stack of levels; this
  script prints how far that approximation, written in NumPy, lands from the exact one.
- linearGradient and radialGradient: Core Image's documented definitions (CILinearGradient: t is the
  projection of the pixel onto point0 -> point1; CIRadialGradient: t = (distance - radius0) / (radius1 -
  radius0)), evaluated at pixel centres (x + 0.5, y + 0.5) with the origin top-left, colors mixed
  premultiplied, SVG's spread methods and smoothstep for the smooth falloff.
"""
import os
import cv2
import numpy as np
from PIL import Image, ImageFilter
from scipy import ndimage

import f32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures")


def write_f32(name, array):
    f32.write_f32(os.path.join(OUT, name), array)


def read(name):
    """An 8-bit fixture as float64 RGB / 255 (gray as 2-D)."""
    image = cv2.imread(os.path.join(OUT, name), cv2.IMREAD_UNCHANGED)
    if image.ndim == 3:
        image = image[:, :, [2, 1, 0]]
    return image.astype(np.float64) / 255


def gaussian(image, sigma):
    if sigma == 0:
        return image
    sigmas = (sigma, sigma, 0) if image.ndim == 3 else sigma
    return ndimage.gaussian_filter(image, sigmas, truncate=4.0, mode="nearest")


# unsharpMask ------------------------------------------------------------------------------------------

UNSHARP = [(2, 150, 3), (1, 100, 0), (5, 80, 10)]
photo8 = Image.open(os.path.join(OUT, "photo.png")).convert("RGB")
photo = np.asarray(photo8).astype(np.float64) / 255
for radius, percent, threshold in UNSHARP:
    stem = f"{radius:g}-{percent}-{threshold}"
    pillow = np.asarray(photo8.filter(ImageFilter.UnsharpMask(radius, percent, threshold))).astype(np.float64) / 255
    write_f32(f"unsharp-pillow-{stem}.f32", pillow)
    difference = photo - gaussian(photo, radius)
    exact = np.where(np.abs(difference) * 255 > threshold, np.clip(photo + percent / 100 * difference, 0, 1), photo)
    write_f32(f"unsharp-exact-{stem}.f32", exact)
    m = int(4 * radius + 1)
    inner = np.abs(exact - pillow)[m:-m, m:-m] * 255
    print(f"unsharp {stem}: exact formula vs Pillow inside a {m}-pixel border: max {inner.max():.2f}, "
          f"mean {inner.mean():.3f} levels")

# maskedBlur -------------------------------------------------------------------------------------------


def masked_exact(image, mask, radius):
    """Each pixel blurred by its own Gaussian, sigma = radius * mask."""
    sigma = radius * mask
    out = np.zeros_like(image)
    for value in np.unique(sigma):
        chosen = sigma == value
        out[chosen] = gaussian(image, value)[chosen]
    return out


def masked_stack(image, mask, radius):
    """The node's approximation, for the printout: levels 0, 0.3 * 2^(k/3) below radius, radius; each
    pixel mixes the two around its sigma with the weight that matches the variance."""
    levels = [0.0]
    k = 0
    while radius > 0 and 0.3 * 2 ** (k / 3) < radius:
        levels.append(0.3 * 2 ** (k / 3))
        k += 1
    levels.append(radius)
    blurs = [gaussian(image, s) for s in levels]
    sigma = radius * mask
    out = np.zeros_like(image)
    for i in range(len(levels) - 1):
        a, b = levels[i], levels[i + 1]
        chosen = (sigma > a) & (sigma <= b) if i > 0 else (sigma <= b)
        w = ((sigma ** 2 - a ** 2) / (b ** 2 - a ** 2))[:, :, None]
        mixed = blurs[i] * (1 - w) + blurs[i + 1] * w
        out[chosen] = mixed[chosen]
    return out


# photo.png with make-node-fixtures.py's mask.png (0 at the left edge to 1 at the right).
mask = read("mask.png")
for radius in [3, 8]:
    exact = masked_exact(photo, mask, radius)
    write_f32(f"maskedBlur-photo-{radius}.f32", exact)
    error = np.abs(masked_stack(photo, mask, radius) - exact) * 255
    print(f"maskedBlur radius {radius}: the stack vs exact: max {error.max():.2f}, mean {error.mean():.3f} levels")
# The larger crop under a tilt-shift mask: 0 in a band across the middle, rising to 1 at the top and
# bottom (8-bit PNG), radius 20; every other pixel of every other row is kept.
large = read("blur-photo-large.png")
h, w, _ = large.shape
rows = np.abs(np.arange(h) + 0.5 - h / 2) / (h / 2)
band8 = np.round(np.clip((rows - 0.2) / 0.7, 0, 1) * 255).astype(np.uint8)[:, None].repeat(w, axis=1)
cv2.imwrite(os.path.join(OUT, "maskedBlur-band.png"), band8)
band = band8.astype(np.float64) / 255
exact = masked_exact(large, band, 20)
write_f32("maskedBlur-large-20-step2.f32", exact[::2, ::2])
error = np.abs(masked_stack(large, band, 20) - exact) * 255
print(f"maskedBlur radius 20, band: the stack vs exact: max {error.max():.2f}, mean {error.mean():.3f} levels")

# Gradients --------------------------------------------------------------------------------------------

GW, GH = 64, 48


def centres(units):
    y, x = np.mgrid[0:GH, 0:GW].astype(np.float64) + 0.5
    if units == "relative":
        x, y = x / GW, y / GH
    return x, y


def ramp(t, color0, color1, falloff="linear", spread="pad"):
    if spread == "pad":
        u = np.clip(t, 0, 1)
    elif spread == "repeat":
        u = t - np.floor(t)
    else:
        v = np.mod(t, 2)
        u = np.where(v > 1, 2 - v, v)
    if falloff == "smooth":
        u = u * u * (3 - 2 * u)
    c0, c1 = np.array(color0, np.float64), np.array(color1, np.float64)
    p0 = np.concatenate([c0[:3] * c0[3], c0[3:]])
    p1 = np.concatenate([c1[:3] * c1[3], c1[3:]])
    mixed = p0 + (p1 - p0) * u[:, :, None]
    alpha = mixed[:, :, 3:4]
    return np.where(alpha > 0, np.dstack([mixed[:, :, :3] / np.where(alpha > 0, alpha, 1), alpha]), 0)


def linear(point0, point1, color0, color1, units="pixels", falloff="linear", spread="pad"):
    x, y = centres(units)
    d = np.subtract(point1, point0)
    t = ((x - point0[0]) * d[0] + (y - point0[1]) * d[1]) / (d @ d)
    return ramp(t, color0, color1, falloff, spread)


def radial(center, radius0, radius1, color0, color1, units="pixels", falloff="linear"):
    x, y = centres(units)
    distance = np.hypot(x - center[0], y - center[1])
    if radius1 == radius0:
        t = np.where(distance < radius0, 0.0, 1.0)
    else:
        t = (distance - radius0) / (radius1 - radius0)
    return ramp(t, color0, color1, falloff)


WHITE, BLACK = [1, 1, 1, 1], [0, 0, 0, 1]
write_f32("gradient-linear-pixels.f32", linear([5, 7], [50, 30], [1, 0.5, 0, 1], [0, 0.2, 1, 1]))
write_f32("gradient-linear-reflect.f32",
          linear([0.5, 0.5], [0.5, 0.1], WHITE, BLACK, units="relative", falloff="smooth", spread="reflect"))
write_f32("gradient-linear-repeat.f32", linear([0, 0], [16, 0], [1, 1, 1, 0], [1, 0, 0, 1], spread="repeat"))
write_f32("gradient-radial-pixels.f32", radial([30, 20], 4, 25, WHITE, [0.2, 0.4, 0.6, 1]))
write_f32("gradient-radial-relative.f32",
          radial([0.5, 0.5], 0.2, 0.7, WHITE, BLACK, units="relative", falloff="smooth"))
write_f32("gradient-radial-inverted.f32", radial([10, 40], 30, 0, [0, 0, 0, 0], [1, 1, 0, 1]))
write_f32("gradient-radial-disc.f32", radial([32, 24], 12, 12, WHITE, BLACK))
print("wrote", sorted(f for f in os.listdir(OUT) if f.startswith(("unsharp-", "maskedBlur-", "gradient-"))))
