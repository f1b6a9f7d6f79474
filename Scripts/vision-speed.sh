#!/usr/bin/env bash
# vision-speed.sh: detectFaces (full range) plus segmentPeople (balanced) on a 12 MP photo, against
# MediaPipe 0.10.21's Python package doing the same (face_detection model 1, selfie_segmentation model 0),
# side by side in one run.
#
# Usage: VENV=path/to/venv-with-mediapipe Scripts/vision-speed.sh   (Scripts/make-vision-fixtures.sh makes one)
#        TESSERA=path/to/tessera RUNS=3 WORK=/tmp/tessera-vision-speed
#
# The photo: Examples/images/people/phone-1.jpg enlarged to 4000x3000 by vips, JPEG quality 90.
# Each side, end to end in a new process: decode the JPEG, find the faces, make the person mask, write
# the mask (TIFF) and, for Tessera, the faces (JSON); wall time and peak memory by GNU time. Then the
# work alone: MediaPipe's process() calls on the decoded image once its graphs exist (median of 5), and
# Tessera's two nodes from --trace, less their time on the 512x384 original (the models' compilation,
# about the same at any size).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
WORK=${WORK:-/tmp/tessera-vision-speed}
TESSERA=${TESSERA:-$ROOT/.build/release/tessera}
PLUGIN=$ROOT/Plugins/Vision/libvision.so
: "${VENV:?set VENV to a venv with mediapipe 0.10.21 (Scripts/make-vision-fixtures.sh makes one)}"
mkdir -p "$WORK"
cd "$WORK"
vips resize "$ROOT/Examples/images/people/phone-1.jpg" big.jpg[Q=90] 7.8125
cp "$ROOT/Examples/images/people/phone-1.jpg" small.jpg
for photo in big small; do
  cat > $photo.yaml <<GRAPH
version: 1
nodes:
  photo:  { op: load, path: $photo.jpg }
  faces:  { op: detectFaces, input: photo, range: full }
  people: { op: segmentPeople, input: photo, qualityLevel: balanced }
  a: { op: save, input: faces, path: faces.json }
  b: { op: save, input: people, path: mask.tif }
GRAPH
done
cat > mp_speed.py <<'PY'
import time, cv2, numpy as np, mediapipe as mp
t0 = time.perf_counter()
image = cv2.cvtColor(cv2.imread("big.jpg"), cv2.COLOR_BGR2RGB)
with mp.solutions.face_detection.FaceDetection(model_selection=1) as faces, \
        mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0) as people:
    faces.process(image)
    cv2.imwrite("mp-mask.tif", (people.process(image).segmentation_mask * 255).astype(np.uint8))
    times = []
    for _ in range(5):
        t = time.perf_counter(); faces.process(image); people.process(image); times.append(time.perf_counter() - t)
print(f"MediaPipe work alone (process() both, median of 5): {1e3 * sorted(times)[2]:.0f} ms")
PY
node_ms() {  # the two nodes' time in a trace, in ms
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=d if isinstance(d,list) else d['traceEvents']
print(round(sum(x.get('dur',0) for x in e if x.get('name') in ('faces','people'))/1000))" "$1"
}
echo "12 MP ($(vipsheader big.jpg)), $RUNS runs each:"
for i in $(seq "$RUNS"); do
  /usr/bin/time -f "  Tessera   end to end: %e s, %M KB peak" "$TESSERA" run -q big.yaml --plugin "$PLUGIN" --trace big.json
  /usr/bin/time -o mp.time -f "  MediaPipe end to end: %e s, %M KB peak" "$VENV/bin/python" mp_speed.py 2>/dev/null
  cat mp.time
done
"$TESSERA" run -q small.yaml --plugin "$PLUGIN" --trace small.json
echo "Tessera work alone (the two nodes at 12 MP less at 0.2 MP): $(( $(node_ms big.json) - $(node_ms small.json) )) ms"
