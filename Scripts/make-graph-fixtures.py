#!/usr/bin/python3
"""Makes the references the example graphs in Graphs/ are checked against, with SciPy.

Run once from the repository root with Debian's python3-scipy and python3-opencv; the outputs are
committed in Tests/TesseraEngineTests/Fixtures as 16-bit PNG (values to 1/65535).
"""
import os
import cv2
import numpy as np
from scipy import ndimage

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraEngineTests/Fixtures")
os.makedirs(OUT, exist_ok=True)

photo = cv2.cvtColor(cv2.imread(os.path.join(ROOT, "Examples/images/astronaut.png")), cv2.COLOR_BGR2RGB)
photo = photo.astype(np.float64) / 255

# blur-crop.yaml: an exact Gaussian (sigma 3, truncated at 4 sigma, edges clamped), then the crop
# [150, 20, 160, 200] grown to 3:4 around its center: 160x213 at (150, 14).
blurred = np.dstack([ndimage.gaussian_filter(photo[:, :, c], 3, mode="nearest", truncate=4.0) for c in range(3)])
crop = blurred[14:14 + 213, 150:150 + 160]
cv2.imwrite(os.path.join(OUT, "blur-crop.png"), cv2.cvtColor(np.round(crop * 65535).astype(np.uint16), cv2.COLOR_RGB2BGR))
print("wrote", sorted(os.listdir(OUT)))
