"""Makes the Vision plugin's iris reference fixtures: MediaPipe's iris graph run in Python on MediaPipe
0.10.21's own face mesh, and the irises of its refined (attention) mesh for comparison.

Run with a Python that has mediapipe==0.10.21 (the venv Scripts/make-vision-fixtures.sh makes) and
tflite-runtime (2.14.0: TensorFlow Lite's own interpreter, which MediaPipe runs its models on); never run by
`make test`. For each of the eight photos in Examples/images/people/ and Examples/images/astronaut.png, read
with OpenCV (BGR turned to RGB):

- `iris`: `FaceMesh(static_image_mode=True, refine_landmarks=False, max_num_faces=10)` gives each face's
  468 points; MediaPipe's iris graph (mediapipe/modules/iris_landmark: iris_landmark_left_and_right_from_
  face_landmarks, iris_landmark_landmarks_to_roi, iris_landmark_cpu) is then followed step by step: each
  eye's square from its corners (points 33 and 133, and 362 and 263, the latter mirrored because the model
  knows only eyes on the image's left) centred between them, 2.3 times their distance along x or y,
  whichever is longer, turned so they are level; cut to 64 x 64 with cv2.warpAffine (bilinear, edges
  replicated) in 0...1; iris_landmark.tflite from the mediapipe wheel on TensorFlow Lite's interpreter;
  the five iris points mirrored back and projected onto the image.
- `refined`: `FaceMesh(..., refine_landmarks=True)` gives 478 points, the last ten the irises of
  MediaPipe's attention mesh (another model): for comparison only.

Writes Plugins/Vision/Tests/Fixtures/mediapipe/`<stem>-iris.json`:

    {"mediapipe": version, "image": file name,
     "faces": [{"left": [x, y, r], "right": [x, y, r], "faceWidth": w}, ...],      the iris graph
     "refined": [{"left": [x, y, r], "right": [x, y, r]}, ...]}                     the attention mesh

in image pixels: each iris's centre (its first point) and radius (the mean distance from the centre to its
four other points), "left" and "right" the subject's own (the left iris is on the image's right), and the
face's width (the mesh's extent in x), each list in MediaPipe's face order.
"""
import json
import os

import cv2
import mediapipe as mp
import numpy as np
import tflite_runtime.interpreter as tflite
from fixture_json import dump
from mediapipe_photos import IMAGES, MEDIAPIPE_FIXTURES, ROOT, require_mediapipe

OUT = MEDIAPIPE_FIXTURES
require_mediapipe(mp)


def iris(points):
    centre = points[0]
    radius = float(np.mean([np.hypot(*(p - centre)) for p in points[1:]]))
    return [round(float(centre[0]), 3), round(float(centre[1]), 3), round(radius, 3)]


MODEL = os.path.join(ROOT, "Plugins/Vision/runtime/models/iris_landmark.tflite")
interpreter = tflite.Interpreter(model_path=MODEL)
interpreter.allocate_tensors()
INPUT = interpreter.get_input_details()[0]["index"]
IRIS = next(o["index"] for o in interpreter.get_output_details() if int(np.prod(o["shape"])) == 15)


def iris_graph(rgb, mesh, first, second, mirrored):
    """MediaPipe's iris graph on one eye: its iris as [x, y, r] in image pixels."""
    a, b = mesh[first], mesh[second]
    centre = (a + b) / 2
    side = 2.3 * max(abs(b[0] - a[0]), abs(b[1] - a[1]))
    rotation = -np.arctan2(-(b[1] - a[1]), b[0] - a[0])
    c, s = np.cos(rotation), np.sin(rotation)
    # Tensor (u, v) in 0...64 <- image centre + R (((u, v) / 64 - 0.5) side).
    step = side / 64
    to_image = np.array([[c * step, -s * step, 0], [s * step, c * step, 0]])
    to_image[:, 2] = centre - to_image[:, :2] @ np.array([32, 32])
    crop = cv2.warpAffine(rgb, cv2.invertAffineTransform(to_image), (64, 64), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)
    if mirrored:
        crop = cv2.flip(crop, 1)
    interpreter.set_tensor(INPUT, (crop.astype(np.float32) / 255)[None])
    interpreter.invoke()
    points = interpreter.get_tensor(IRIS).reshape(5, 3)[:, :2].astype(np.float64)
    if mirrored:
        points[:, 0] = 64 - points[:, 0]
    projected = np.array([to_image[:, :2] @ p + to_image[:, 2] for p in points])
    return iris(projected)


for rel in IMAGES:
    name = os.path.basename(rel)
    rgb = cv2.cvtColor(cv2.imread(os.path.join(ROOT, rel), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
    H, W = rgb.shape[:2]
    with mp.solutions.face_mesh.FaceMesh(static_image_mode=True, refine_landmarks=False, max_num_faces=10) as fm:
        meshes = fm.process(rgb).multi_face_landmarks or []
    faces = []
    for face in meshes:
        mesh = np.array([[p.x * W, p.y * H] for p in face.landmark])
        # The subject's left eye is on the image's right: points 362 and 263, mirrored.
        faces.append({"left": iris_graph(rgb, mesh, 362, 263, True), "right": iris_graph(rgb, mesh, 33, 133, False),
                      "faceWidth": round(float(np.ptp(mesh[:, 0])), 3)})
    with mp.solutions.face_mesh.FaceMesh(static_image_mode=True, refine_landmarks=True, max_num_faces=10) as fm:
        found = fm.process(rgb).multi_face_landmarks or []
    refined = []
    for face in found:
        points = np.array([[p.x * W, p.y * H] for p in face.landmark])
        first, second = iris(points[468:473]), iris(points[473:478])
        left, right = (first, second) if first[0] > second[0] else (second, first)
        refined.append({"left": left, "right": right})
    doc = {"mediapipe": mp.__version__, "image": name, "faces": faces, "refined": refined}
    with open(os.path.join(OUT, os.path.splitext(name)[0] + "-iris.json"), "w") as f:
        f.write(dump(doc))
    print(name, faces, refined)
