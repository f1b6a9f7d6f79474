#!/usr/bin/python3
"""Makes the reference fixtures of the point, color and composite nodes with OpenCV and NumPy.

Run once from the repository root with Debian's python3-opencv (apt-get install python3-opencv);
the outputs are committed in Tests/TesseraNodesTests/Fixtures. Inputs are crops of the example photo;
references are float32 arrays in the small `.f32` format the tests read:
three little-endian uint32 (width, height, channels), then the samples row by row, interleaved.
"""
import os
import cv2
import numpy as np

import f32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures")


def write_f32(name, array):
    f32.write_f32(os.path.join(OUT, name), array)


def rgb(bgr):
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)


os.makedirs(OUT, exist_ok=True)
photo_bgr = cv2.imread(os.path.join(ROOT, "Examples/images/astronaut.png"), cv2.IMREAD_COLOR)
# A 96x72 crop with the face and the suit: edges, skin, saturated and dark areas.
crop = photo_bgr[120:192, 176:272]
cv2.imwrite(os.path.join(OUT, "photo.png"), crop)
photo = rgb(crop).astype(np.float32) / 255  # what Tessera decodes: 8-bit over 255
h, w, _ = photo.shape
# An RGBA variant: alpha falls from 1 at the top to 0 at the bottom row, in 8-bit steps.
alpha8 = np.round(np.linspace(255, 0, h)).astype(np.uint8)[:, None].repeat(w, axis=1)
cv2.imwrite(os.path.join(OUT, "photo-alpha.png"), np.dstack([crop, alpha8]))
alpha = alpha8.astype(np.float32) / 255
rgba = np.dstack([photo, alpha])
opaque = np.dstack([photo, np.ones((h, w), np.float32)])

# colorMatrix: the saliency tutorial's yellow tint (blue zeroed, alpha times 0.7), and a full matrix
# with a bias, through OpenCV's cv2.transform (a 4x5 matrix: four weights and a bias per channel).
tint = np.array([[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0.7, 0]], np.float32)
write_f32("colorMatrix-tint.f32", cv2.transform(opaque, tint))
mixed = np.array(
    [[0.5, 0.3, 0.2, 0, 0.05], [0.1, 0.8, 0.1, 0, -0.1], [0.2, -0.4, 1.1, 0, 0], [0, 0, 0, 0.5, 0.25]], np.float32)
write_f32("colorMatrix-mixed.f32", cv2.transform(rgba, mixed))

# grayscale: OpenCV's BT.601 conversion on float RGB.
write_f32("grayscale.f32", cv2.cvtColor(photo, cv2.COLOR_RGB2GRAY))

# contrast: (v - pivot) * amount + pivot, clamped to 0...1, on color; alpha kept. OpenCV's
# convertScaleAbs is 8-bit only, so this one is the formula in NumPy.
amount, pivot = 1.8, 0.4
write_f32("contrast.f32", np.dstack([np.clip((photo - pivot) * amount + pivot, 0, 1), np.ones((h, w))]))

# normalize: OpenCV's min-max normalization of the BT.601 gray image to 0...1.
gray = cv2.cvtColor(photo, cv2.COLOR_RGB2GRAY)
write_f32("normalize.f32", cv2.normalize(gray, None, 0, 1, cv2.NORM_MINMAX))

# blendWithMask and composite follow Core Image's and Porter-Duff's definitions, written out in
# NumPy: the photo over its mirror image, mixed by a horizontal gradient mask (8-bit gray PNG).
mirror = photo[:, ::-1]
mask8 = np.round(np.linspace(0, 255, w)).astype(np.uint8)[None, :].repeat(h, axis=0)
cv2.imwrite(os.path.join(OUT, "mask.png"), mask8)
m = (mask8.astype(np.float32) / 255)[:, :, None]
write_f32("blendWithMask.f32", photo * m + mirror * (1 - m))
# Without a background: the input's color, with alpha = mask (premultiplied mixing with transparent);
# where alpha is 0 there is no color, and Tessera stores 0.
write_f32("blendWithMask-transparent.f32", np.dstack([np.where(m > 0, photo, 0), m[:, :, 0]]))
# Source over: the RGBA photo (alpha fading downwards) over the opaque mirror image.
a = alpha[:, :, None]
write_f32("composite.f32", np.dstack([photo * a + mirror * (1 - a), np.ones((h, w))]))
print("wrote", sorted(os.listdir(OUT)))
