"""Makes the Vision plugin's reference fixtures with MediaPipe 0.10.21's own Python solutions.

Run by Scripts/make-vision-fixtures.sh (or directly with a Python that has mediapipe==0.10.21). Reads the
eight photos in Examples/images/people/ and Examples/images/astronaut.png with OpenCV (BGR, turned to
RGB) and writes, for each image `<stem>.<ext>`, into Plugins/Vision/Tests/Fixtures/mediapipe/:

- `<stem>.json`: {"mediapipe": version, "image": file name, "width": W, "height": H,
    "short": [{"box": [x, y, w, h], "score": s, "keypoints": [[x, y] x 6]}, ...],  # FaceDetection(model_selection=0)
    "full": [same],                                                             # FaceDetection(model_selection=1)
    "mesh": [[[x, y, z] x 468], ...]}     # FaceMesh(static_image_mode=True, refine_landmarks=False, max_num_faces=10)
  Everything is in image pixels (normalized x * W, y * H, z * W), rounded to 4 decimals, in MediaPipe's
  order. Keypoints: right eye, left eye, nose tip, mouth centre, right ear, left ear (the subject's right).
  Detection thresholds are the graphs' own, 0.5 for short range and 0.6 for full range: MediaPipe 0.10.21
  ignores min_detection_confidence here (Docs/Research/Vision/NOTES.md, trap 4).
- `<stem>-selfie.png` and `<stem>-selfie-landscape.png`: SelfieSegmentation(model_selection=0 and 1)
  masks at full image size, 16-bit grayscale, round(mask * 65535).

Each image gets fresh solution objects, so results do not depend on the order of the images.
"""
import json
import os

import cv2
import mediapipe as mp
import numpy as np
from fixture_json import dump
from mediapipe_photos import IMAGES, MEDIAPIPE_FIXTURES, ROOT, require_mediapipe

OUT = MEDIAPIPE_FIXTURES
require_mediapipe(mp)


def r4(v):
    return round(float(v), 4)


def detections(rgb, model_selection):
    W, H = rgb.shape[1], rgb.shape[0]
    with mp.solutions.face_detection.FaceDetection(model_selection=model_selection) as fd:
        found = fd.process(rgb).detections or []
    out = []
    for d in found:
        b = d.location_data.relative_bounding_box
        out.append({"box": [r4(b.xmin * W), r4(b.ymin * H), r4(b.width * W), r4(b.height * H)],
                    "score": r4(d.score[0]),
                    "keypoints": [[r4(k.x * W), r4(k.y * H)] for k in d.location_data.relative_keypoints]})
    return out


def mesh(rgb):
    W, H = rgb.shape[1], rgb.shape[0]
    with mp.solutions.face_mesh.FaceMesh(static_image_mode=True, refine_landmarks=False, max_num_faces=10) as fm:
        faces = fm.process(rgb).multi_face_landmarks or []
    return [[[r4(p.x * W), r4(p.y * H), r4(p.z * W)] for p in f.landmark] for f in faces]


def selfie(rgb, model_selection):
    with mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=model_selection) as ss:
        mask = ss.process(rgb).segmentation_mask
    assert mask.shape == rgb.shape[:2]
    return np.round(np.clip(mask, 0, 1) * 65535).astype(np.uint16)


os.makedirs(OUT, exist_ok=True)
print(f"{'image':16} {'size':>8} short full mesh")
for rel in IMAGES:
    name = os.path.basename(rel)
    stem = os.path.splitext(name)[0]
    bgr = cv2.imread(os.path.join(ROOT, rel), cv2.IMREAD_COLOR)
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    H, W = rgb.shape[:2]
    doc = {"mediapipe": mp.__version__, "image": name, "width": W, "height": H,
           "short": detections(rgb, 0), "full": detections(rgb, 1), "mesh": mesh(rgb)}
    with open(os.path.join(OUT, stem + ".json"), "w") as f:
        f.write(dump(doc))
    for sel, suffix in ((0, "-selfie.png"), (1, "-selfie-landscape.png")):
        cv2.imwrite(os.path.join(OUT, stem + suffix), selfie(rgb, sel))
    print(f"{stem:16} {W:>4}x{H:<4} {len(doc['short']):5} {len(doc['full']):4} {len(doc['mesh']):4}")
