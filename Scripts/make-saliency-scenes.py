#!/usr/bin/env python3
"""Makes the synthetic scenes the objectness saliency is scored on, with their true object masks.

Run from the repository root with NumPy and Pillow (pip install numpy pillow); the outputs are
committed in Tests/TesseraNodesTests/Fixtures/saliency as `scene-NN.png` (RGB) and
`scene-NN-objects.png` (gray: 0 is background, object k of the scene is k * 60, so each object's
box and the union mask can be read back). The same seed always makes the same scenes.

Each scene is 240x180: a cluttered, textured background (smooth multi-scale noise between two random
colors, plus stripes or a grid, plus dozens of small shapes of random colors) and one to three objects
(ellipses, rectangles, rounded triangles and blobs, 22% to 45% of the short side across) that do not
overlap, each with a texture of its own (noise, stripes, checks or a gradient between two related
colors). Object colors differ from the background's mean by at least a set distance, as in
salient-object data sets, where the object stands out from its surroundings by construction; clutter
may take any color, including the objects'.
"""
import os

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures/saliency")
WIDTH, HEIGHT = 240, 180
SCENES = 16


def smooth_noise(rng, scales=(4, 8, 16, 32)):
    """Value noise in 0...1: random grids at several scales, bilinearly enlarged and summed."""
    total = np.zeros((HEIGHT, WIDTH))
    for s in scales:
        grid = rng.random((HEIGHT // s + 2, WIDTH // s + 2))
        big = np.asarray(Image.fromarray(grid.astype(np.float32)).resize(
            ((WIDTH // s + 2) * s, (HEIGHT // s + 2) * s), Image.Resampling.BILINEAR))
        total += big[:HEIGHT, :WIDTH] * s
    total -= total.min()
    return total / total.max()


def random_color(rng):
    return rng.random(3)


def background(rng):
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    a, b = random_color(rng), random_color(rng)
    t = smooth_noise(rng)[:, :, None]
    image = a * (1 - t) + b * t
    # Stripes or a grid across the whole scene, at a random angle and period.
    angle = rng.random() * np.pi
    period = rng.uniform(6, 18)
    phase = (xx * np.cos(angle) + yy * np.sin(angle)) / period
    stripes = (np.sin(2 * np.pi * phase) > 0.3).astype(float)
    if rng.random() < 0.5:
        phase2 = (-xx * np.sin(angle) + yy * np.cos(angle)) / period
        stripes = np.maximum(stripes, (np.sin(2 * np.pi * phase2) > 0.6).astype(float))
    strength = rng.uniform(0.08, 0.25)
    image = image * (1 - strength * stripes[:, :, None]) + strength * stripes[:, :, None] * random_color(rng)
    # Clutter: small shapes of any color.
    for _ in range(rng.integers(25, 60)):
        r = rng.uniform(2, 7)
        cx, cy = rng.uniform(0, WIDTH), rng.uniform(0, HEIGHT)
        if rng.random() < 0.5:
            inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
        else:
            inside = (abs(xx - cx) <= r) & (abs(yy - cy) <= r * rng.uniform(0.3, 1.5))
        image[inside] = random_color(rng)
    return image


def object_shape(rng, cx, cy, size):
    """A boolean mask of one object centered at (cx, cy), about `size` across."""
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    kind = rng.integers(0, 4)
    rx = size / 2 * rng.uniform(0.7, 1.0)
    ry = size / 2 * rng.uniform(0.7, 1.0)
    dx, dy = xx - cx, yy - cy
    if kind == 0:  # ellipse, turned
        t = rng.random() * np.pi
        u = dx * np.cos(t) + dy * np.sin(t)
        v = -dx * np.sin(t) + dy * np.cos(t)
        return (u / rx) ** 2 + (v / ry) ** 2 <= 1
    if kind == 1:  # rectangle
        return (abs(dx) <= rx) & (abs(dy) <= ry)
    if kind == 2:  # rounded triangle: three half-planes, corners cut by a circle
        inside = np.ones_like(dx, dtype=bool)
        t0 = rng.random() * 2 * np.pi
        for k in range(3):
            t = t0 + k * 2 * np.pi / 3
            inside &= dx * np.cos(t) + dy * np.sin(t) <= rx * 0.5
        return inside & (dx * dx + dy * dy <= (rx * 0.95) ** 2)
    # blob: a circle whose radius wobbles with the angle
    theta = np.arctan2(dy, dx)
    radius = rx * (1 + 0.25 * np.sin(3 * theta + rng.random() * 6) + 0.1 * np.sin(5 * theta))
    return np.hypot(dx, dy) <= radius


def object_texture(rng, base):
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH]
    other = np.clip(base + rng.uniform(-0.25, 0.25, 3), 0, 1)
    kind = rng.integers(0, 4)
    if kind == 0:
        t = smooth_noise(rng, scales=(2, 4, 8))
    elif kind == 1:
        t = (np.sin((xx + yy * rng.uniform(-1, 1)) / rng.uniform(1.5, 4)) > 0).astype(float)
    elif kind == 2:
        s = rng.integers(4, 10)
        t = ((xx // s + yy // s) % 2).astype(float)
    else:
        t = (xx - xx.min()) / WIDTH
    return base * (1 - t[:, :, None]) + other * t[:, :, None]


def scene(rng):
    image = background(rng)
    mean = image.reshape(-1, 3).mean(axis=0)
    labels = np.zeros((HEIGHT, WIDTH), dtype=np.uint8)
    count = rng.integers(1, 4)
    placed = 0
    for _ in range(200):
        if placed == count:
            break
        size = rng.uniform(0.22, 0.45) * HEIGHT * (1.3 if count == 1 else 1)
        cx = rng.uniform(size * 0.6, WIDTH - size * 0.6)
        cy = rng.uniform(size * 0.6, HEIGHT - size * 0.6)
        shape = object_shape(rng, cx, cy, size)
        grown = np.zeros_like(shape)
        ys, xs = np.nonzero(shape)
        grown[max(ys.min() - 6, 0):ys.max() + 7, max(xs.min() - 6, 0):xs.max() + 7] = True
        if (labels[grown] > 0).any():
            continue
        while True:
            base = random_color(rng)
            if np.linalg.norm(base - mean) >= 0.45:
                break
        image[shape] = object_texture(rng, base)[shape]
        placed += 1
        labels[shape] = placed * 60
    # A little sensor noise over everything.
    image = np.clip(image + rng.normal(0, 0.02, image.shape), 0, 1)
    return (image * 255).round().astype(np.uint8), labels


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20240607)
    for n in range(SCENES):
        image, labels = scene(rng)
        Image.fromarray(image).save(os.path.join(OUT, f"scene-{n:02d}.png"))
        Image.fromarray(labels).save(os.path.join(OUT, f"scene-{n:02d}-objects.png"))
    print("wrote", SCENES, "scenes to", OUT)


if __name__ == "__main__":
    main()
