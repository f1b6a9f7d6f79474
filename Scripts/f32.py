"""The `.f32` reference format the node tests read (Tests/TesseraNodesTests/Fixtures.swift): three
little-endian uint32 (width, height, channels), then float32 samples row by row, interleaved."""
import numpy as np


def write_f32(path, array):
    """Writes a 2-D (one channel) or 3-D (height, width, channels) array to `path`."""
    array = np.asarray(array, dtype=np.float32)
    if array.ndim == 2:
        array = array[:, :, None]
    h, w, c = array.shape
    with open(path, "wb") as f:
        np.array([w, h, c], dtype="<u4").tofile(f)
        array.astype("<f4").tofile(f)
