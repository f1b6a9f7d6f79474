"""Makes the Vision plugin's body-pose reference fixtures with MediaPipe 0.10.21's own `mp.solutions.pose`.

Run by Scripts/make-vision-fixtures.sh (or directly with a Python that has mediapipe==0.10.21). Every image
is read with OpenCV (BGR, turned to RGB) and gets a fresh
`Pose(static_image_mode=True, model_complexity=1, min_detection_confidence=0.5)` (the full landmark model,
the one in the wheel), so results do not depend on the order of the images. MediaPipe's solution finds one
person an image (its most confident); an image of two people is therefore held to MediaPipe run on each
person's half of it alone, the landmarks moved back into the whole image. It writes
Plugins/Vision/Tests/Fixtures/mediapipe/`<stem>-bodies.json` for the eight photos in Examples/images/people/
and Examples/images/astronaut.png, and Plugins/Vision/Tests/Fixtures/bodies/`<name>-bodies.json` for the
derived images the hand fixtures made (Plugins/Vision/Tests/Fixtures/hands/: mirrored, turned 90 degrees,
enlarged, two people side by side), read as they are committed.

`<...>-bodies.json`: {"mediapipe": version, "image": path from the repository, "width": W, "height": H,
    "bodies": [{"landmarks": [[x, y, z, visibility] x 33]}, ...]}
one body a line, landmarks in MediaPipe's order (0 nose ... 32 right foot index), x and y in image pixels
(normalized x * W, y * H), z * W, rounded to 4 decimals; visibility as MediaPipe gives it (its solution
leaves each landmark's presence 0, so it is not kept).
"""
import os

import cv2
import mediapipe as mp
from fixture_json import dump
from mediapipe_photos import IMAGES, MEDIAPIPE_FIXTURES, ROOT, require_mediapipe

DERIVED = os.path.join(ROOT, "Plugins/Vision/Tests/Fixtures/hands")
DERIVED_OUT = os.path.join(ROOT, "Plugins/Vision/Tests/Fixtures/bodies")
require_mediapipe(mp)

# Derived image -> the widths of the people photos side by side in it (one person each), or None for one.
SPLITS = {"phone-3-mirrored": None, "four-fingers-4-rotated": None, "phone-1-2x": None, "two-hands": [384, 384]}


def r4(v):
    return round(float(v), 4) + 0.0


def body(rgb, left=0):
    """MediaPipe's one body in `rgb`, moved `left` pixels right, or None."""
    H, W = rgb.shape[:2]
    with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1, min_detection_confidence=0.5) as model:
        result = model.process(rgb)
    if result.pose_landmarks is None:
        return None
    return {"landmarks": [[r4(p.x * W + left), r4(p.y * H), r4(p.z * W), r4(p.visibility)]
                          for p in result.pose_landmarks.landmark]}


def run(path, splits, out_json):
    rgb = cv2.cvtColor(cv2.imread(os.path.join(ROOT, path), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    H, W = rgb.shape[:2]
    bodies = []
    if splits is None:
        bodies = [body(rgb)]
    else:
        assert sum(splits) == W, (path, splits, W)
        left = 0
        for width in splits:
            bodies.append(body(rgb[:, left:left + width].copy(), left))
            left += width
    bodies = [b for b in bodies if b is not None]
    doc = {"mediapipe": mp.__version__, "image": path, "width": W, "height": H, "bodies": bodies}
    with open(out_json, "w") as f:
        f.write(dump(doc))
    print(f"{os.path.basename(path):28} {W:>4}x{H:<4} {len(bodies)} bodies")


os.makedirs(DERIVED_OUT, exist_ok=True)
for rel in IMAGES:
    stem = os.path.splitext(os.path.basename(rel))[0]
    run(rel, None, os.path.join(MEDIAPIPE_FIXTURES, stem + "-bodies.json"))
for name, splits in SPLITS.items():
    run(os.path.relpath(os.path.join(DERIVED, name + ".png"), ROOT), splits,
        os.path.join(DERIVED_OUT, name + "-bodies.json"))
