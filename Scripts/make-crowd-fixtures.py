"""Makes the Vision plugin's group-photo fixtures: grids of the people photos at several face sizes, with
where MediaPipe 0.10.21's own face detector finds each face when it sees that face's cell alone.

Run with a Python that has mediapipe==0.10.21 (the venv Scripts/make-vision-fixtures.sh makes, or
VENV=... there); never run by `make test`. Writes into Plugins/Vision/Tests/Fixtures/crowds/:

- `<name>.jpg` for each grid in GRIDS below: rows of cells, each cell a window of one people photo
  (Examples/images/people/, cycled in order) scaled with OpenCV (INTER_AREA down, INTER_CUBIC up) so that
  its face is the row's size in pixels (the size being the width of the box MediaPipe's full-range
  detector gives on the original photo, in Fixtures/mediapipe/<stem>.json), centred on the face, mid-gray
  beyond the photo. Saved as JPEG (quality 92) and read back, so the reference is for the committed file.
- `<name>.json`: {"mediapipe": version, "image": file, "width": W, "height": H,
    "faces": [{"cell": [x, y, w, h], "size": row's face size, "photo": stem,
               "box": [x, y, w, h], "score": s}, ...],   # one per cell, in grid pixels
    "whole": {"short": n, "full": n}}
  `box` and `score` are FaceDetection(model_selection=1) (full range) on the square five faces wide
  around the cell's face (clipped to the grid) cut out of the read-back grid alone, where the face fills
  the fifth of the model's input it finds faces at; a cell where it finds no face, or more than one,
  stops the script. `whole` counts the
  faces MediaPipe finds on the whole grid in one pass with each model, as it is normally run: the
  failure the tiled detector is for.

Each cell gets a fresh FaceDetection, so results do not depend on the order of the cells.
"""
import json
import os
import sys

import cv2
import mediapipe as mp
import numpy as np
from fixture_json import dump
from mediapipe_photos import PEOPLE, ROOT, require_mediapipe

OUT = os.path.join(ROOT, "Plugins/Vision/Tests/Fixtures/crowds")
require_mediapipe(mp)

# name -> (width, height, rows as (face size in px, cell width, cell height, cells in the row))
GRIDS = {
    # The group photo: 8 people, faces about 100 px, 2048 x 1024.
    "group-100": (2048, 1024, [(100, 512, 512, 4), (100, 512, 512, 4)]),
    # Faces from 64 down to 20 px, 36 people on 2048 x 768.
    "crowd-64-20": (2048, 768, [(64, 256, 320, 8), (40, 204, 200, 10), (28, 204, 140, 10), (20, 256, 108, 8)]),
}


def photo(stem):
    bgr = cv2.imread(os.path.join(ROOT, f"Examples/images/people/{stem}.jpg"), cv2.IMREAD_COLOR)
    assert bgr is not None, stem
    with open(os.path.join(ROOT, f"Plugins/Vision/Tests/Fixtures/mediapipe/{stem}.json")) as f:
        box = json.load(f)["full"][0]["box"]
    return bgr, box


def cell(stem, face, width, height):
    """A width x height window of the photo scaled so its face is `face` px wide, centred on the face."""
    bgr, box = photo(stem)
    scale = face / box[2]
    method = cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC
    scaled = cv2.resize(bgr, None, fx=scale, fy=scale, interpolation=method)
    cx, cy = (box[0] + box[2] / 2) * scale, (box[1] + box[3] / 2) * scale
    out = np.full((height, width, 3), 128, np.uint8)
    ox, oy = int(round(width / 2 - cx)), int(round(height / 2 - cy))
    H, W = scaled.shape[:2]
    x0, y0, x1, y1 = max(0, ox), max(0, oy), min(width, ox + W), min(height, oy + H)
    out[y0:y1, x0:x1] = scaled[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
    return out


def detect(rgb, selection):
    with mp.solutions.face_detection.FaceDetection(model_selection=selection) as fd:
        return fd.process(rgb).detections or []


os.makedirs(OUT, exist_ok=True)
for name, (width, height, rows) in GRIDS.items():
    grid = np.full((height, width, 3), 128, np.uint8)
    cells = []
    index, y = 0, 0
    for face, cw, ch, count in rows:
        x = (width - cw * count) // 2
        for _ in range(count):
            stem = PEOPLE[index % len(PEOPLE)]
            grid[y:y + ch, x:x + cw] = cell(stem, face, cw, ch)
            cells.append((stem, face, [x, y, cw, ch]))
            index += 1
            x += cw
        y += ch
    assert y <= height, name
    path = os.path.join(OUT, name + ".jpg")
    cv2.imwrite(path, grid, [cv2.IMWRITE_JPEG_QUALITY, 92])
    rgb = cv2.cvtColor(cv2.imread(path, cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    faces = []
    for stem, face, (x, y, cw, ch) in cells:
        # The square 5 faces wide around the face (where the grid has it), so the face fills a fifth of
        # what the full-range model sees: within the 8 % to 33 % it finds.
        side = 5 * face
        wx0, wy0 = max(0, x + cw // 2 - side // 2), max(0, y + ch // 2 - side // 2)
        wx1, wy1 = min(width, x + cw // 2 + side // 2), min(height, y + ch // 2 + side // 2)
        found = detect(np.ascontiguousarray(rgb[wy0:wy1, wx0:wx1]), 1)
        if len(found) != 1:
            sys.exit(f"{name}: MediaPipe finds {len(found)} faces around the face of {stem} at {face} px")
        b = found[0].location_data.relative_bounding_box
        ww, wh = wx1 - wx0, wy1 - wy0
        faces.append({"cell": [x, y, cw, ch], "size": face, "photo": stem,
                      "box": [round(wx0 + b.xmin * ww, 2), round(wy0 + b.ymin * wh, 2),
                              round(b.width * ww, 2), round(b.height * wh, 2)],
                      "score": round(float(found[0].score[0]), 4)})
    whole = {"short": len(detect(rgb, 0)), "full": len(detect(rgb, 1))}
    doc = {"mediapipe": mp.__version__, "image": name + ".jpg", "width": width, "height": height,
           "faces": faces, "whole": whole}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        f.write(dump(doc))
    sizes = sorted({f["size"] for f in faces})
    print(f"{name}: {len(faces)} faces of {sizes} px; MediaPipe on the whole grid finds {whole}")
