"""Makes the Vision plugin's hand-pose reference fixtures with MediaPipe 0.10.21's own `mp.solutions.hands`.

Run by Scripts/make-vision-fixtures.sh (or directly with a Python that has mediapipe==0.10.21). Every image
is read with OpenCV (BGR, turned to RGB) and gets a fresh
`Hands(static_image_mode=True, max_num_hands=2, model_complexity=1, min_detection_confidence=0.5)`, so
results do not depend on the order of the images. It writes:

- Plugins/Vision/Tests/Fixtures/mediapipe/`<stem>-hands.json` for the eight photos in
  Examples/images/people/ and Examples/images/astronaut.png.
- Plugins/Vision/Tests/Fixtures/hands/`<name>.png` and `<name>-hands.json` for the derived images in
  DERIVED below, made here from the people photos (mirrored, rotated, upscaled, two side by side) so that
  chirality flips, rotated hands, a larger scale and two hands in one image are covered. The PNG is written
  first and read back, so the reference is for exactly the committed file. A derived image on which
  MediaPipe finds no hand is not kept (its files are removed and a note is printed).

`<...>-hands.json`: {"mediapipe": version, "image": file name, "width": W, "height": H,
    "hands": [{"label": "Left" | "Right", "score": s, "landmarks": [[x, y, z] x 21]}, ...]}
in MediaPipe's order, one hand per line. `label` and `score` are MediaPipe's handedness, which assumes a
mirrored (selfie) image: on an ordinary photo "Left" is the subject's right hand. Landmarks are in image
pixels (normalized x * W, y * H, z * W), rounded to 4 decimals, in MediaPipe's joint order (0 wrist,
1-4 thumb, 5-8 index, 9-12 middle, 13-16 ring, 17-20 little finger); z is relative to the wrist.
"""
import json
import os

import cv2
import mediapipe as mp
import numpy as np
from fixture_json import dump
from mediapipe_photos import IMAGES, MEDIAPIPE_FIXTURES, ROOT, require_mediapipe

OUT = MEDIAPIPE_FIXTURES
DERIVED_OUT = os.path.join(ROOT, "Plugins/Vision/Tests/Fixtures/hands")
require_mediapipe(mp)


def people(stem):
    bgr = cv2.imread(os.path.join(ROOT, f"Examples/images/people/{stem}.jpg"), cv2.IMREAD_COLOR)
    assert bgr is not None, stem
    return bgr


# name -> (how it is made from the people photos (BGR in, BGR out), one line for the README)
DERIVED = {
    "phone-3-mirrored": (lambda: cv2.flip(people("phone-3"), 1),
                         "phone-3 mirrored left to right (the hand's label flips)"),
    "four-fingers-4-rotated": (lambda: cv2.rotate(people("four-fingers-4"), cv2.ROTATE_90_CLOCKWISE),
                               "four-fingers-4 rotated 90 degrees clockwise (fingers point right)"),
    "phone-1-2x": (lambda: cv2.resize(people("phone-1"), None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC),
                   "phone-1 upscaled 2x with OpenCV's bicubic resize"),
    "two-hands": (lambda: np.hstack([people("phone-3"), people("four-fingers-1")]),
                  "phone-3 and four-fingers-1 side by side (two people, two hands)"),
}


def r4(v):
    return round(float(v), 4) + 0.0  # + 0.0 turns -0.0 (the wrist's z) into 0.0


def hands(rgb):
    H, W = rgb.shape[:2]
    with mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2, model_complexity=1,
                                  min_detection_confidence=0.5) as model:
        result = model.process(rgb)
    out = []
    for lm, hd in zip(result.multi_hand_landmarks or [], result.multi_handedness or []):
        c = hd.classification[0]
        out.append({"label": c.label, "score": r4(c.score),
                    "landmarks": [[r4(p.x * W), r4(p.y * H), r4(p.z * W)] for p in lm.landmark]})
    return out


def run(path, out_json):
    name = os.path.basename(path)
    bgr = cv2.imread(path, cv2.IMREAD_COLOR)
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    H, W = rgb.shape[:2]
    doc = {"mediapipe": mp.__version__, "image": name, "width": W, "height": H, "hands": hands(rgb)}
    labels = " ".join(f"{h['label']} {h['score']:.4f}" for h in doc["hands"]) or "-"
    print(f"{os.path.splitext(name)[0]:24} {W:>4}x{H:<4} {len(doc['hands']):5}  {labels}")
    return doc


os.makedirs(OUT, exist_ok=True)
os.makedirs(DERIVED_OUT, exist_ok=True)
print(f"{'image':24} {'size':>9} hands  labels")
for rel in IMAGES:
    stem = os.path.splitext(os.path.basename(rel))[0]
    out_json = os.path.join(OUT, stem + "-hands.json")
    doc = run(os.path.join(ROOT, rel), out_json)
    with open(out_json, "w") as f:
        f.write(dump(doc))
for name, (make, _) in DERIVED.items():
    png = os.path.join(DERIVED_OUT, name + ".png")
    out_json = os.path.join(DERIVED_OUT, name + "-hands.json")
    cv2.imwrite(png, make(), [cv2.IMWRITE_PNG_COMPRESSION, 9])
    doc = run(png, out_json)
    if doc["hands"]:
        with open(out_json, "w") as f:
            f.write(dump(doc))
    else:
        print(f"  no hand found in {name}: not kept")
        for p in (png, out_json):
            if os.path.exists(p):
                os.remove(p)
