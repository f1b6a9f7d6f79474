#!/usr/bin/env bash
# vision-speed.sh: detectFaces (full range) plus segmentPeople on a 12 MP photo, against MediaPipe 0.10.21's
# Python package doing the same (face_detection model 1, selfie_segmentation model 0), side by side in one
# run, the runs of each side interleaved.
#
# Usage: VENV=path/to/venv-with-mediapipe Scripts/vision-speed.sh   (Scripts/make-vision-fixtures.sh makes one)
#        TESSERA=path/to/tessera RUNS=5 WORK=/tmp/tessera-vision-speed
#
# The photo: Examples/images/people/phone-1.jpg enlarged to 4000x3000 by vips, JPEG quality 90.
# Each side, end to end in a new process, as a user runs it once: decode the JPEG, find the faces, make the
# person mask at the photo's size, write the mask (TIFF) and, for Tessera, the faces (JSON); wall time and
# peak memory by GNU time, median of RUNS. Tessera runs segmentPeople at `balanced` (the same model and
# bilinear upsampling as MediaPipe) and at `accurate` (its default: a guided filter on top), with its
# compiled models in OpenVINO's cache as after any first run; one run with an empty cache is shown too.
# Then the work alone: MediaPipe's process() calls on the decoded image once its graphs exist (median of
# 5), and Tessera's two nodes from --trace, less their time on the 512x384 original (loading the models,
# the same at any size) and less the photo's decode (which their first read starts), plus the time of
# the save that renders the mask (Tessera makes the full-size mask there, tile by tile, where
# MediaPipe's process() makes it). The accurate level's mask tiles are traced under the node's name.
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
  for level in balanced accurate; do
    cat > $photo-$level.yaml <<GRAPH
version: 1
nodes:
  photo:  { op: load, path: $photo.jpg }
  faces:  { op: detectFaces, input: photo, range: full }
  people: { op: segmentPeople, input: photo, qualityLevel: $level }
  a: { op: save, input: faces, path: faces.json }
  b: { op: save, input: people, path: mask.tif }
GRAPH
  done
done
cat > mp_once.py <<'PY'
import cv2, numpy as np, mediapipe as mp
image = cv2.cvtColor(cv2.imread("big.jpg"), cv2.COLOR_BGR2RGB)
with mp.solutions.face_detection.FaceDetection(model_selection=1) as faces, \
        mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0) as people:
    faces.process(image)
    cv2.imwrite("mp-mask.tif", (people.process(image).segmentation_mask * 255).astype(np.uint8))
PY
cat > mp_work.py <<'PY'
import time, cv2, mediapipe as mp
image = cv2.cvtColor(cv2.imread("big.jpg"), cv2.COLOR_BGR2RGB)
with mp.solutions.face_detection.FaceDetection(model_selection=1) as faces, \
        mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0) as people:
    faces.process(image); people.process(image)
    times = []
    for _ in range(5):
        t = time.perf_counter(); faces.process(image); people.process(image); times.append(time.perf_counter() - t)
print(f"{1e3 * sorted(times)[2]:.0f}")
PY
trace_ms() {  # the named events' time in a trace, in ms
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=d if isinstance(d,list) else d['traceEvents']
print(round(sum(x.get('dur',0) for x in e if x.get('name') in sys.argv[2:])/1000))" "$@"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
timed() {  # timed LABEL COMMAND...: appends "seconds KB" to LABEL.times
  local label=$1; shift
  /usr/bin/time -o time.out -f "%e %M" "$@" >/dev/null 2>&1 || { echo "$label failed" >&2; exit 1; }
  cat time.out >> "$label.times"
}
rm -f ./*.times
echo "12 MP ($(vipsheader big.jpg)), $RUNS runs each, interleaved:"
"$TESSERA" run -q big-balanced.yaml --plugin "$PLUGIN"  # fills the model cache, as any first run does
cold=$(mktemp -d)
TESSERA_VISION_CACHE=$cold /usr/bin/time -o time.out -f "%e %M" "$TESSERA" run -q big-balanced.yaml --plugin "$PLUGIN"
read -r cold_s cold_kb < time.out
rm -rf "$cold"
for _ in $(seq "$RUNS"); do
  timed balanced "$TESSERA" run -q big-balanced.yaml --plugin "$PLUGIN"
  timed mediapipe "$VENV/bin/python" mp_once.py
  timed accurate "$TESSERA" run -q big-accurate.yaml --plugin "$PLUGIN"
done
report() {  # report LABEL TEXT
  printf "  %-50s %5.2f s  %4d MB peak   (runs: %s)\n" "$2" "$(cut -d' ' -f1 "$1.times" | median)" \
    "$(( $(cut -d' ' -f2 "$1.times" | median) / 1024 ))" "$(cut -d' ' -f1 "$1.times" | tr '\n' ' ' | sed 's/ $//')"
}
echo "End to end (median):"
report mediapipe "MediaPipe (Python), one process() each"
report balanced "Tessera, segmentPeople balanced (the same work)"
report accurate "Tessera, segmentPeople accurate (its default)"
printf "  %-50s %5.2f s  %4d MB peak\n" "Tessera balanced, models not cached yet (first run)" "$cold_s" "$((cold_kb / 1024))"
echo "The work alone:"
echo "  MediaPipe process() both, median of 5: $("$VENV/bin/python" mp_work.py 2>/dev/null) ms"
for level in balanced accurate; do
  "$TESSERA" run -q big-$level.yaml --plugin "$PLUGIN" --trace big.json
  "$TESSERA" run -q small-$level.yaml --plugin "$PLUGIN" --trace small.json
  # The photo's decode happens inside the first node's time (its first read): counted apart.
  nodes=$(( $(trace_ms big.json faces people) - $(trace_ms big.json photo) - $(trace_ms small.json faces people) \
    + $(trace_ms small.json photo) ))
  echo "  Tessera $level: the two nodes at 12 MP less at 0.2 MP $nodes ms (the photo's decode apart:" \
    "$(trace_ms big.json photo) ms), the save rendering the mask $(trace_ms big.json b) ms"
done
