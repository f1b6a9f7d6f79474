#!/usr/bin/env bash
# vision-speed-part2.sh: Vision part 2's detectors against the Python packages they follow, side by side in
# one run, the runs of each side interleaved (as Scripts/vision-speed.sh does for faces and people):
#
# 1. detectText on a 12 MP photo of a printed page against rapidocr-onnxruntime 1.4.4 (`RapidOCR()`, its
#    default configuration: the same PP-OCRv4 detector, orientation classifier and recognizer).
# 2. detectHandPose on the eight people photos (512x384 and the like) and on phone-1.jpg enlarged to 12 MP,
#    against MediaPipe 0.10.21's `mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2)`.
# 3. detectBodyPose on phone-1.jpg enlarged to 12 MP against MediaPipe 0.10.21's
#    `mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1)` (Vision part 3; only with
#    PARTS=bodies or PARTS="text hands bodies").
#
# Usage: Scripts/vision-speed-part2.sh
#        VENV_MP=venv-with-mediapipe VENV_OCR=venv-with-rapidocr TESSERA=path/to/tessera RUNS=5
#        WORK=/tmp/tessera-vision-speed-part2 PARTS="text hands bodies"
#
# The page: a printed A4 page (41 lines of DejaVu: a title, a byline, headings and seven paragraphs of
# English at 10.5 points, a page number), drawn with Pillow and photographed on a wooden desk: seen a
# little from below and turned (a perspective transform), shadow, uneven warm light, lens blur and sensor
# noise, 4000x3000, JPEG quality 90. Made by VENV_OCR's Python, the same bytes every time.
#
# Each side, end to end in a new process, as a user runs it once: decode the JPEG, find (and read) the text
# or the hands, write them as JSON; wall time and peak memory by GNU time, median of RUNS (for the people
# photos, of RUNS x 8 processes). Tessera runs with its compiled models in OpenVINO's cache, as after any
# first run; one run with an empty cache is shown too. The lines (hands) each side found are compared, so
# that the times are of the same work. Then the work alone: the Python call on the decoded image once its
# models are loaded and warmed up (median of 5), against the Tessera node's time from --trace in a graph
# that runs it twice on the photo (the first, `warm`, with a minimumConfidence a hair lower so that the two
# are not merged): global nodes run one after the other, so the second finds its models loaded and run
# once and the photo decoded; any decode still inside it (the load node's spans) is taken out. Median of
# RUNS processes (of RUNS x 8 for the people photos).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
WORK=${WORK:-/tmp/tessera-vision-speed-part2}
TESSERA=${TESSERA:-$ROOT/.build/release/tessera}
PLUGIN=$ROOT/Plugins/Vision/libvision.so
VENV_MP=${VENV_MP:-/tmp/vision-research/venv}
VENV_OCR=${VENV_OCR:-/tmp/vision2-text/rvenv}
PARTS=${PARTS:-text hands}
if [ ! -x "$TESSERA" ] && [ "$TESSERA" = "$ROOT/.build/release/tessera" ]; then
  (cd "$ROOT" && swift build -c release --product tessera)
fi
nodes=$("$TESSERA" nodes --plugin "$PLUGIN" 2>&1) || {
  echo "$TESSERA cannot load $PLUGIN (rebuild both: swift build -c release --product tessera;" \
    "make -C Plugins/Vision): $nodes" >&2
  exit 1
}
mkdir -p "$WORK"
cd "$WORK"
work_graph() {  # work_graph GRAPH: GRAPH's detector run twice, the first named warm (minimumConfidence 0.4999)
  sed -e '/op: detect/{p;s/^  [a-z]*: *{/  warm: {/;s/ *}$/, minimumConfidence: 0.4999 }/;}' \
    -e '/op: save/{p;s/^  a:/  w:/;s/input: [a-z]*/input: warm/;s/path: [^ ]*/path: warm.json/;}' "$1" > "work-$1"
}
work_ms() {  # work_ms LABEL GRAPH NODE: appends "alone first" (ms) to LABEL.work: the later of NODE and warm
  # less any decode (load spans) inside it, and the earlier (loading the models, decoding the photo)
  "$TESSERA" run -q "work-$2" --plugin "$PLUGIN" --trace work.trace.json >/dev/null
  python3 - work.trace.json "$3" >> "$1.work" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
spans = [x for x in (d if isinstance(d, list) else d["traceEvents"]) if x.get("ph") == "X"]
first, second = sorted((x for x in spans if x["name"] in (sys.argv[2], "warm")), key=lambda x: x["ts"])
if second["ts"] < first["ts"] + first["dur"]:
    sys.exit(f"the two {sys.argv[2]} nodes overlap")
end = second["ts"] + second["dur"]
decode = sum(max(0, min(end, x["ts"] + x["dur"]) - max(second["ts"], x["ts"])) for x in spans if x["name"] == "photo")
print(round((second["dur"] - decode) / 1000), round(first["dur"] / 1000))
PY
}
work_report() {  # work_report LABEL TEXT
  printf "  %-58s %5s ms  (runs: %s; its first run in the process: %s ms)\n" "$2" "$(cut -d' ' -f1 "$1.work" | median)" \
    "$(cut -d' ' -f1 "$1.work" | tr '\n' ' ' | sed 's/ $//')" "$(cut -d' ' -f2 "$1.work" | median)"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
timed() {  # timed LABEL COMMAND...: appends "seconds KB" to LABEL.times
  local label=$1; shift
  /usr/bin/time -o time.out -f "%e %M" "$@" >/dev/null 2>&1 || { echo "$label failed: $*" >&2; exit 1; }
  cat time.out >> "$label.times"
}
report() {  # report LABEL TEXT
  printf "  %-54s %5.2f s  %4d MB peak   (runs: %s)\n" "$2" "$(cut -d' ' -f1 "$1.times" | median)" \
    "$(( $(cut -d' ' -f2 "$1.times" | median) / 1024 ))" "$(cut -d' ' -f1 "$1.times" | tr '\n' ' ' | sed 's/ $//')"
}
cold() {  # cold TEXT GRAPH: one run with an empty model cache
  local dir; dir=$(mktemp -d)
  TESSERA_VISION_CACHE=$dir /usr/bin/time -o time.out -f "%e %M" "$TESSERA" run -q "$2" --plugin "$PLUGIN" >/dev/null
  rm -rf "$dir"
  read -r s kb < time.out
  printf "  %-54s %5.2f s  %4d MB peak\n" "$1" "$s" "$((kb / 1024))"
}
rm -f ./*.times ./*.work

# ---------------------------------------------------------------------------------------------- text
text_part() {
printed=$("$VENV_OCR/bin/python" - page.jpg <<'PY'
# The 12 MP photo of a printed A4 page on a desk, made the same every time (fixed seed, fixed text).
import math, os, sys
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FONTS = os.environ.get("FONTS", "/usr/share/fonts/truetype/dejavu")
def font(name, size): return ImageFont.truetype(os.path.join(FONTS, f"DejaVu{name}.ttf"), size)

TITLE = "Keeping Old Maps Alive"
BYLINE = "Notes from the reading room, spring issue"
SECTIONS = [
    (None, [
        "Most of the maps in a county archive were never meant to last. They were drawn for a survey, a sale "
        "or a lawsuit, folded into a drawer and forgotten until someone needed to know where a boundary ran "
        "or who once owned the mill by the river. Paper made before 1850 is usually stronger than anything "
        "printed since, because it was made from linen rags rather than wood pulp, but the inks and the "
        "glues that hold a map to its backing cloth are another matter.",
        "Iron gall ink, the common writing ink for several centuries, slowly turns acidic as it ages. Where "
        "the pen pressed hardest the ink can eat through the sheet entirely, leaving the outline of a road "
        "or a field as a row of small holes. Damp makes this worse, and so does handling, which is why a "
        "conservator will often ask that a fragile map be photographed once, carefully, and then left alone.",
    ]),
    ("Before anything is cleaned", [
        "The first step is always to record the map exactly as it arrived: both sides, every fold, every "
        "stain and every note in the margin. A pencil note in a later hand may look like damage, yet it can "
        "be the only record of when the map was used as evidence or who corrected it. Measurements are "
        "written down in millimetres, and the condition of the backing cloth is noted separately.",
        "Surface dirt comes off with a soft brush and a sponge of vulcanised rubber, worked from the centre "
        "outwards. Water is used only after the inks have been tested one colour at a time, since some of "
        "the bright greens and blues used for woods and water bleed at the first touch of moisture.",
    ]),
    ("Flattening and storage", [
        "A map that has been folded for a hundred years will not lie flat on its own. It is humidified "
        "slowly in a closed chamber for several hours, then dried between blotters under light, even "
        "weight. Tears are closed from the back with thin Japanese tissue and wheat starch paste, which can "
        "be removed again with water if a later conservator finds a better method.",
        "Afterwards the map goes into a folder of acid-free board, stored flat in a drawer at a steady 18 "
        "degrees and 45 per cent relative humidity. The reading room copy is the photograph, printed at "
        "full size, so that the original needs to leave its drawer as seldom as possible. Visitors may "
        "still ask to see it, of course, and on request it is brought out on a cushioned tray.",
    ]),
    ("What the photographs are for", [
        "A good photograph of a map is more than a convenience. Taken square to the sheet under even light, "
        "with a colour chart and a ruler at its edge, it lets a researcher measure distances, compare two "
        "editions side by side or read a faded name at twice its size, none of which should be done with "
        "the original on the table. The files are kept in two places and checked every year.",
    ]),
]
FOOTER = "Page 3 of 12"

# The page as printed: A4 at 250 pixels per inch (2067 x 2923), margins of 25 mm, text at 10.5 points.
PW, PH = 2067, 2923
page = Image.new("RGB", (PW, PH), (246, 244, 238))
draw = ImageDraw.Draw(page)
ink = (28, 28, 34)
margin = 246
width = PW - 2 * margin
body, heading, title, byline, small = font("Serif", 36), font("Sans-Bold", 42), font("Serif-Bold", 68), \
    font("Sans-Oblique", 32), font("Sans", 28)
y = margin
draw.text((margin, y), TITLE, font=title, fill=ink); y += 100
draw.text((margin, y), BYLINE, font=byline, fill=(70, 70, 80)); y += 80

def wrap(text, f):
    lines, line = [], ""
    for word in text.split():
        trial = (line + " " + word).strip()
        if f.getlength(trial) <= width: line = trial
        else: lines.append(line); line = word
    return lines + [line]

for name, paragraphs in SECTIONS:
    if name:
        y += 22; draw.text((margin, y), name, font=heading, fill=ink); y += 68
    for paragraph in paragraphs:
        for line in wrap(paragraph, body):
            draw.text((margin, y), line, font=body, fill=ink); y += 50
        y += 24
if y > PH - margin: sys.exit(f"the text runs to {y}, past the bottom margin")
draw.text(((PW - small.getlength(FOOTER)) / 2, PH - margin + 60), FOOTER, font=small, fill=(70, 70, 80))

# The photo: the page on a wooden desk, seen slightly from below and turned a little (a perspective
# transform), lit unevenly, with a soft shadow, a little lens blur and sensor noise, saved as JPEG q90.
W, H = 4000, 3000
rng = np.random.default_rng(12)
def smooth(h, w, scale):  # low-frequency noise in -1...1, at the photo's size
    small_ = rng.uniform(-1, 1, (h, w)).astype(np.float32)
    return np.asarray(Image.fromarray(small_, "F").resize((W, H), Image.Resampling.BICUBIC)) * scale
yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
grain = np.sin(yy / 7.0 + smooth(6, 8, 18) + smooth(40, 3, 2)) * 0.3 + 0.5 + smooth(300, 20, 0.15)
wood = np.stack([120 + 40 * grain, 80 + 28 * grain, 50 + 18 * grain], -1) * (1 + smooth(5, 7, 0.08))[..., None]

corners = [(1010, 150), (2995, 235), (3080, 2880), (905, 2815)]  # top-left, top-right, bottom-right, bottom-left
src = [(0, 0), (PW, 0), (PW, PH), (0, PH)]
A, b = [], []
for (X, Y), (x, y_) in zip(corners, src):  # photo (X, Y) -> page (x, y): Pillow's PERSPECTIVE coefficients
    A += [[X, Y, 1, 0, 0, 0, -x * X, -x * Y], [0, 0, 0, X, Y, 1, -y_ * X, -y_ * Y]]; b += [x, y_]
coeffs = np.linalg.solve(np.array(A, float), np.array(b, float))
warped = page.transform((W, H), Image.Transform.PERSPECTIVE, tuple(coeffs), Image.Resampling.BICUBIC)
mask = Image.new("L", page.size, 255).transform((W, H), Image.Transform.PERSPECTIVE, tuple(coeffs),
                                                 Image.Resampling.BILINEAR)
shadow = np.asarray(mask.transform((W, H), Image.Transform.AFFINE, (1, 0, -25, 0, 1, -35))
                    .filter(ImageFilter.GaussianBlur(40)), np.float32) / 255
m = np.asarray(mask, np.float32)[..., None] / 255
photo = wood * (1 - 0.45 * shadow[..., None]) * (1 - m) + np.asarray(warped, np.float32) * m
light = 1.04 - 0.22 * ((xx / W - 0.2) ** 2 + (yy / H - 0.15) ** 2) + smooth(4, 5, 0.03)
photo = photo * light[..., None] * np.array([1.0, 0.98, 0.93], np.float32)  # warm indoor light
photo = Image.fromarray(np.clip(photo, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.8))
photo = np.asarray(photo, np.float32) + rng.normal(0, 3.0, (H, W, 1)) + rng.normal(0, 1.5, (H, W, 3))
Image.fromarray(np.clip(photo + 0.5, 0, 255).astype(np.uint8)).save(sys.argv[1], quality=90)
print(sum(len(wrap(p, body)) for _, ps in SECTIONS for p in ps) + sum(1 for n, _ in SECTIONS if n) + 3)  # lines
PY
)
for level in accurate fast; do
  cat > text-$level.yaml <<GRAPH
version: 1
nodes:
  photo: { op: load, path: page.jpg }
  text:  { op: detectText, input: photo, recognitionLevel: $level }
  a: { op: save, input: text, path: text-$level.json }
GRAPH
  work_graph text-$level.yaml
done
cat > ocr_once.py <<'PY'
import json
from rapidocr_onnxruntime import RapidOCR
result, _ = RapidOCR()("page.jpg")
json.dump({"text": [{"quad": quad, "string": text, "confidence": float(score)} for quad, text, score in result or []]},
          open("rapidocr.json", "w"))
PY
cat > ocr_work.py <<'PY'
import time
from rapidocr_onnxruntime import RapidOCR
engine = RapidOCR()
image = engine.load_img("page.jpg")  # as a call on the path reads it: PIL, turned to BGR
engine(image)
times = []
for _ in range(5):
    t = time.perf_counter(); engine(image); times.append(time.perf_counter() - t)
print(f"{1e3 * sorted(times)[2]:.0f}")
PY
echo "detectText: a page of $printed lines photographed at 12 MP ($(vipsheader page.jpg)), $RUNS runs each, interleaved:"
"$TESSERA" run -q text-accurate.yaml --plugin "$PLUGIN" >/dev/null  # fills the model cache, as any first run does
for _ in $(seq "$RUNS"); do
  timed text-accurate "$TESSERA" run -q text-accurate.yaml --plugin "$PLUGIN"
  timed rapidocr "$VENV_OCR/bin/python" ocr_once.py
  timed text-fast "$TESSERA" run -q text-fast.yaml --plugin "$PLUGIN"
done
echo "End to end (median):"
report rapidocr "rapidocr-onnxruntime 1.4.4 (Python), RapidOCR()(path)"
report text-accurate "Tessera detectText accurate (its default; the same work)"
report text-fast "Tessera detectText fast"
cold "Tessera accurate, models not cached yet (first run)" text-accurate.yaml
echo "The lines found:"
for level in accurate fast; do
  python3 - text-$level.json rapidocr.json $level <<'PY'
import collections, difflib, json, sys
ours, theirs = (json.load(open(p))["text"] for p in sys.argv[1:3])
a, b = (collections.Counter(x["string"] for x in t) for t in (ours, theirs))
same = difflib.SequenceMatcher(None, "\n".join(x["string"] for x in ours), "\n".join(x["string"] for x in theirs))
c, d = (collections.Counter(x["string"].replace(" ", "") for x in t) for t in (ours, theirs))
print(f"  Tessera {sys.argv[3]}: {len(ours)} lines, rapidocr {len(theirs)}; {sum((a & b).values())} strings identical,"
      f" {sum((c & d).values())} but for spaces; the text in reading order {100 * same.ratio():.1f} % the same (difflib)")
PY
done
echo "The work alone:"
echo "  rapidocr, a call on the decoded image after a warm-up: $("$VENV_OCR/bin/python" ocr_work.py 2>/dev/null) ms (median of 5)"
for _ in $(seq "$RUNS"); do
  for level in accurate fast; do work_ms text-$level text-$level.yaml text; done
done
work_report text-accurate "Tessera detectText accurate, run a second time"
work_report text-fast "Tessera detectText fast, run a second time"
}

# --------------------------------------------------------------------------------------------- hands
hands_part() {
vips resize "$ROOT/Examples/images/people/phone-1.jpg" big.jpg[Q=90] 7.8125
small=()
for file in "$ROOT"/Examples/images/people/*.jpg; do
  stem=$(basename "$file" .jpg); small+=("$stem"); cp "$file" "$stem.jpg"
done
for stem in "${small[@]}" big; do
  cat > hands-$stem.yaml <<GRAPH
version: 1
nodes:
  photo: { op: load, path: $stem.jpg }
  hands: { op: detectHandPose, input: photo }
  a: { op: save, input: hands, path: hands-$stem.json }
GRAPH
  work_graph hands-$stem.yaml
done
cat > mp_once.py <<'PY'
import json, sys, cv2, mediapipe as mp
stem = sys.argv[1]
image = cv2.cvtColor(cv2.imread(f"{stem}.jpg"), cv2.COLOR_BGR2RGB)
h, w = image.shape[:2]
with mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2) as hands:
    result = hands.process(image)
json.dump({"hands": [{"label": c.classification[0].label, "score": c.classification[0].score,
                      "landmarks": [[p.x * w, p.y * h, p.z * w] for p in lm.landmark]}
                     for lm, c in zip(result.multi_hand_landmarks or [], result.multi_handedness or [])]},
          open(f"mp-hands-{stem}.json", "w"))
PY
cat > mp_work.py <<'PY'
import sys, time, cv2, mediapipe as mp
for stem in sys.argv[1:]:  # the median of 5 process() calls after one, for each photo
    image = cv2.cvtColor(cv2.imread(f"{stem}.jpg"), cv2.COLOR_BGR2RGB)
    with mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2) as hands:
        hands.process(image)
        times = []
        for _ in range(5):
            t = time.perf_counter(); hands.process(image); times.append(time.perf_counter() - t)
    print(f"{1e3 * sorted(times)[2]:.1f}")
PY
echo "detectHandPose: the ${#small[@]} people photos ($(vipsheader -f width "${small[0]}.jpg")x$(vipsheader -f height "${small[0]}.jpg")" \
  "and the like) and phone-1 at 12 MP ($(vipsheader -f width big.jpg)x$(vipsheader -f height big.jpg)), $RUNS runs each, interleaved:"
"$TESSERA" run -q hands-big.yaml --plugin "$PLUGIN" >/dev/null  # fills the model cache
for _ in $(seq "$RUNS"); do
  for stem in "${small[@]}"; do
    timed hands-small "$TESSERA" run -q hands-$stem.yaml --plugin "$PLUGIN"
    timed mp-small "$VENV_MP/bin/python" mp_once.py "$stem"
  done
  timed hands-big "$TESSERA" run -q hands-big.yaml --plugin "$PLUGIN"
  timed mp-big "$VENV_MP/bin/python" mp_once.py big
done
echo "End to end (median of each process, one photo each):"
report mp-small "MediaPipe (Python), people photos"
report hands-small "Tessera detectHandPose, people photos"
report mp-big "MediaPipe (Python), 12 MP"
report hands-big "Tessera detectHandPose, 12 MP"
cold "Tessera 12 MP, models not cached yet (first run)" hands-big.yaml
echo "The hands found (MediaPipe's label is the mirrored one: its Left is the subject's right):"
python3 - "${small[@]}" big <<'PY'
import json, sys
stems = sys.argv[1:]
counts, found = [0, 0], []
for stem in stems:
    ours = json.load(open(f"hands-{stem}.json"))["hands"]
    theirs = json.load(open(f"mp-hands-{stem}.json"))["hands"]
    counts[0] += len(ours); counts[1] += len(theirs)
    a = sorted(h["chirality"] for h in ours)
    b = sorted({"Left": "right", "Right": "left"}[h["label"]] for h in theirs)
    found.append(f"{stem} {'=' if a == b else '!='} ({','.join(a) or '-'} / {','.join(b) or '-'})")
print(f"  Tessera {counts[0]} hands, MediaPipe {counts[1]}; per photo, chirality (Tessera / MediaPipe):")
print("    " + "; ".join(found))
PY
echo "The work alone:"
mp=$("$VENV_MP/bin/python" mp_work.py "${small[@]}" big 2>/dev/null)
for _ in $(seq "$RUNS"); do
  for stem in "${small[@]}"; do work_ms hands-small hands-$stem.yaml hands; done
  work_ms hands-big hands-big.yaml hands
done
printf "  %-58s %5s ms  (per photo: %s)\n" "MediaPipe process() after a warm-up, people photos" \
  "$(head -n -1 <<<"$mp" | median)" "$(head -n -1 <<<"$mp" | tr '\n' ' ' | sed 's/ $//')"
work_report hands-small "Tessera detectHandPose run a second time, people photos"
printf "  %-58s %5s ms\n" "MediaPipe process() after a warm-up, 12 MP" "$(tail -1 <<<"$mp")"
work_report hands-big "Tessera detectHandPose run a second time, 12 MP"
}

# -------------------------------------------------------------------------------------------- bodies
bodies_part() {
vips resize "$ROOT/Examples/images/people/phone-1.jpg" body.jpg[Q=90] 7.8125
cat > bodies.yaml <<GRAPH
version: 1
nodes:
  photo: { op: load, path: body.jpg }
  bodies: { op: detectBodyPose, input: photo }
  a: { op: save, input: bodies, path: bodies.json }
GRAPH
work_graph bodies.yaml
cat > mp_body_once.py <<'PY'
import json, cv2, mediapipe as mp
image = cv2.cvtColor(cv2.imread("body.jpg"), cv2.COLOR_BGR2RGB)
h, w = image.shape[:2]
with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1) as pose:
    result = pose.process(image)
json.dump({"bodies": [[[p.x * w, p.y * h, p.visibility] for p in result.pose_landmarks.landmark]]
           if result.pose_landmarks else []}, open("mp-bodies.json", "w"))
PY
cat > mp_body_work.py <<'PY'
import time, cv2, mediapipe as mp
image = cv2.cvtColor(cv2.imread("body.jpg"), cv2.COLOR_BGR2RGB)
with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1) as pose:
    pose.process(image)
    times = []
    for _ in range(5):
        t = time.perf_counter(); pose.process(image); times.append(time.perf_counter() - t)
print(f"{1e3 * sorted(times)[2]:.0f}")
PY
echo "detectBodyPose: phone-1 at 12 MP ($(vipsheader -f width body.jpg)x$(vipsheader -f height body.jpg))," \
  "$RUNS runs each, interleaved:"
"$TESSERA" run -q bodies.yaml --plugin "$PLUGIN" >/dev/null  # fills the model cache
for _ in $(seq "$RUNS"); do
  timed bodies "$TESSERA" run -q bodies.yaml --plugin "$PLUGIN"
  timed mp-bodies "$VENV_MP/bin/python" mp_body_once.py
done
echo "End to end (median):"
report mp-bodies "MediaPipe (Python), Pose(static_image_mode=True)"
report bodies "Tessera detectBodyPose"
cold "Tessera, models not cached yet (first run)" bodies.yaml
python3 - <<'PY'
import json, math
ours = json.load(open("bodies.json"))["bodies"]
theirs = json.load(open("mp-bodies.json"))["bodies"]
line = f"  Tessera {len(ours)} bodies, MediaPipe {len(theirs)}"
if ours and theirs:
    mine = [(j["x"], j["y"]) for j in ours[0]["joints"].values()]
    seen = [p for p in theirs[0] if p[2] >= 0.5]
    diagonal = math.hypot(max(p[0] for p in seen) - min(p[0] for p in seen), max(p[1] for p in seen) - min(p[1] for p in seen))
    mean = sum(math.hypot(a[0] - b[0], a[1] - b[1]) for a, b in zip(mine, theirs[0])) / 33
    line += f"; the first's joints on average {100 * mean / diagonal:.2f} % of the body's box diagonal from MediaPipe's"
print(line)
PY
echo "The work alone:"
for _ in $(seq "$RUNS"); do work_ms bodies bodies.yaml bodies; done
printf "  %-58s %5s ms\n" "MediaPipe process() after a warm-up, 12 MP" "$("$VENV_MP/bin/python" mp_body_work.py 2>/dev/null)"
work_report bodies "Tessera detectBodyPose run a second time, 12 MP"
}

for part in $PARTS; do
  node=$(case $part in text) echo detectText ;; bodies) echo detectBodyPose ;; *) echo detectHandPose ;; esac)
  if ! grep -q "^$node " <<<"$nodes"; then
    echo "$node is not in $PLUGIN (make -C Plugins/Vision): $part skipped" >&2
    continue
  fi
  "${part}_part"
  echo
done
