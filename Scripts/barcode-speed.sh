#!/usr/bin/env bash
# barcode-speed.sh: detectBarcodes (the Vision plugin: Debian's zxing-cpp 1.4) against zxing-cpp's own
# Python wheel (the version Plugins/Vision/Tests/Fixtures/barcodes/barcodes.json names, with OpenCV to
# decode), side by side in one run, on the same images, the runs of each side interleaved.
#
# Usage: VENV=path/to/venv Scripts/barcode-speed.sh
#        TESSERA=path/to/tessera RUNS=5 WORK=/tmp/tessera-barcode-speed
# The venv: python3 -m venv V && V/bin/pip install zxing-cpp==3.1.1 opencv-python-headless numpy
#
# The images: the 100 fixture codes of VisionBarcodeTests (Scripts/make-barcode-fixtures.py), as two sets:
# `codes`, the 96 codes drawn alone (PNG, 113x113 to 886x886, gray), and `photos`, the 4 pasted in
# perspective onto people photos (JPEG, 768x1024 to 768x1668, RGB).
#
# 1. The work, image by image, one core each, every image once a process as a user's run reads it: the
#    wheel's cv2.imread and zxingcpp.read_barcodes (its defaults: every format, tryHarder, tryRotate,
#    tryDownscale), against the same images in one Tessera graph (load -> detectBarcodes -> save as JSON,
#    one chain per image, --threads 1): detectBarcodes' span in --trace (its reads decode the file as it
#    asks for the rows, so the span is decode and read), and that less the load node's spans (read
#    alone). Median of RUNS processes per image, summed per set.
# 2. Whole processes, as a user runs them, wall time by GNU time, median of RUNS: `tessera batch
#    --threads 1` over the set (a graph per image, its codes written as JSON), the one graph of 1. with
#    `tessera run --threads 1`, the same graph without its save nodes printing the codes (`run --json`:
#    no file, so no fsync; `save` syncs each file it writes), and a Python process reading every image of
#    the set and writing its codes as JSON (its imports of cv2 and zxingcpp included; no fsync).
#
# Both sides read the same codes: the payloads each side found are compared first, and a difference is
# printed (the wheel is 3.x, the plugin's zxing-cpp 1.4: they may differ on codes the fixtures mark as
# unread by the wheel).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
WORK=${WORK:-/tmp/tessera-barcode-speed}
TESSERA=${TESSERA:-$ROOT/.build/release/tessera}
PLUGIN=$ROOT/Plugins/Vision/libvision.so
FIXTURES=$ROOT/Plugins/Vision/Tests/Fixtures/barcodes
: "${VENV:?set VENV to a venv with zxing-cpp (the version in barcodes.json), opencv-python-headless and numpy}"
PYTHON=$VENV/bin/python
want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['zxing-cpp'])" "$FIXTURES/barcodes.json")
have=$("$PYTHON" -c "from importlib.metadata import version; print(version('zxing-cpp'))")
[ "$want" = "$have" ] || { echo "the venv has zxing-cpp $have, the fixtures were made with $want" >&2; exit 1; }
"$TESSERA" nodes --plugin "$PLUGIN" >/dev/null || {
  echo "$TESSERA cannot load $PLUGIN (swift build -c release --product tessera; make -C Plugins/Vision)" >&2
  exit 1
}
mkdir -p "$WORK"
cd "$WORK"
rm -rf out ./*.times ./*.work
mkdir -p out/tessera out/batch out/python
ls "$FIXTURES"/*.png > codes.list
ls "$FIXTURES"/photo-*.jpg > photos.list

for set in codes photos; do
  python3 - "$set.list" > "$set.yaml" <<'PY'
import os, sys
print("version: 1\nnodes:")
for i, path in enumerate(line.strip() for line in open(sys.argv[1])):
    stem = os.path.splitext(os.path.basename(path))[0]
    print(f"  p{i}: {{ op: load, path: '{path}' }}")
    print(f"  c{i}: {{ op: detectBarcodes, input: p{i} }}")
    print(f"  s{i}: {{ op: save, input: c{i}, path: out/tessera/{stem}.json }}")
PY
  grep -v '^  s[0-9]*: ' "$set.yaml" > "$set-print.yaml"
done
cat > one.yaml <<GRAPH
version: 1
nodes:
  photo: { op: load, path: $FIXTURES/qr-m2-r0-b0.png }
  codes: { op: detectBarcodes, input: photo }
  out:   { op: save, input: codes, path: out/batch/codes.json }
GRAPH

# The wheel: per image, imread and read_barcodes timed apart; the codes written as JSON, as save does.
cat > wheel.py <<'PY'
import json, os, sys, time
import cv2, zxingcpp
times = {}
for path in sys.argv[2:]:
    stem = os.path.splitext(os.path.basename(path))[0]
    start = time.perf_counter()
    image = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    decoded = time.perf_counter()
    codes = zxingcpp.read_barcodes(image)
    read = time.perf_counter()
    with open(f"out/python/{stem}.json", "w") as file:
        json.dump([{"format": c.format.name, "payload": c.text} for c in codes], file)
    times[stem] = [decoded - start, read - decoded]
if sys.argv[1] != "-":
    json.dump(times, open(sys.argv[1], "w"))
PY
# Tessera: per image, detectBarcodes' span (decode and read) and that less its load node's spans.
cat > spans.py <<'PY'
import json, os, sys
events = json.load(open(sys.argv[1]))
events = events if isinstance(events, list) else events["traceEvents"]
names = {}
for line in open(sys.argv[2]):
    names[len(names)] = os.path.splitext(os.path.basename(line.strip()))[0]
node, load = {}, {}
for e in events:
    if e.get("ph") != "X" or e["name"][1:].isdigit() is False:
        continue
    kind, index = e["name"][0], int(e["name"][1:])
    if kind == "c":
        node[index] = node.get(index, 0) + e["dur"] / 1e6
    elif kind == "p":
        load[index] = load.get(index, 0) + e["dur"] / 1e6
json.dump({names[i]: [node[i], node[i] - load.get(i, 0)] for i in node}, open(sys.argv[3], "w"))
PY

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
timed() {  # timed LABEL COMMAND...: appends the wall seconds to LABEL.times
  local label=$1; shift
  /usr/bin/time -o time.out -f "%e" "$@" >/dev/null 2>&1 || { echo "$label failed: $*" >&2; exit 1; }
  cat time.out >> "$label.times"
}

echo "load before: $(uptime | sed 's/.*load average/load average/')"
for run in $(seq "$RUNS"); do
  for set in codes photos; do
    # shellcheck disable=SC2046
    "$PYTHON" wheel.py "wheel-$set-$run.work" $(cat "$set.list")
    "$TESSERA" run -q --threads 1 "$set.yaml" --plugin "$PLUGIN" --trace trace.json
    python3 spans.py trace.json "$set.list" "tessera-$set-$run.work"
    # shellcheck disable=SC2046
    timed "python-$set" "$PYTHON" wheel.py - $(cat "$set.list")
    # shellcheck disable=SC2046
    timed "batch-$set" "$TESSERA" batch -q --threads 1 one.yaml $(cat "$set.list") --plugin "$PLUGIN" \
      --set 'out.path=out/batch/{stem}.json'
    timed "run-$set" "$TESSERA" run -q --threads 1 "$set.yaml" --plugin "$PLUGIN"
    timed "print-$set" "$TESSERA" run -q --threads 1 "$set-print.yaml" --plugin "$PLUGIN" --json
  done
done
echo "load after:  $(uptime | sed 's/.*load average/load average/')"

# The same codes on both sides (payloads by image), before any time is compared.
python3 - "$FIXTURES/barcodes.json" <<'PY'
import json, os, sys
expected = {os.path.splitext(c["image"])[0]: c for c in json.load(open(sys.argv[1]))["cases"]}
differ = []
for stem, case in sorted(expected.items()):
    ours = sorted(c["payload"] for c in json.load(open(f"out/tessera/{stem}.json"))["barcodes"])
    theirs = sorted(c["payload"] for c in json.load(open(f"out/python/{stem}.json")))
    # A UPC-A code is an EAN-13 one with a leading 0: either side may say so.
    upca = case["symbology"] == "upca" and len(ours) == len(theirs) and all(
        a.lstrip("0") == b.lstrip("0") for a, b in zip(ours, theirs))
    if ours != theirs and not upca:
        differ.append(f"{stem}: tessera {ours}, wheel {theirs}")
print(f"codes read: tessera {sum(1 for s in expected if json.load(open(f'out/tessera/{s}.json'))['barcodes'])}"
      f", wheel {sum(1 for s in expected if json.load(open(f'out/python/{s}.json')))} of {len(expected)} images")
for line in differ:
    print("  differs:", line)
PY

echo
echo "1. The work, one core each, per image (median of $RUNS processes), summed per set:"
python3 - "$RUNS" <<'PY'
import json, statistics, sys
runs = int(sys.argv[1])
print(f"{'set':8} {'wheel decode+read':>18} {'tessera':>8} {'ratio':>6}   "
      f"{'wheel read':>10} {'tessera':>8} {'ratio':>6}")
for name in ["codes", "photos", "all"]:
    sets = ["codes", "photos"] if name == "all" else [name]
    wheel = [0.0, 0.0]
    ours = [0.0, 0.0]
    for s in sets:
        w = [json.load(open(f"wheel-{s}-{r}.work")) for r in range(1, runs + 1)]
        t = [json.load(open(f"tessera-{s}-{r}.work")) for r in range(1, runs + 1)]
        for stem in w[0]:
            wheel[0] += statistics.median(run[stem][0] + run[stem][1] for run in w)
            wheel[1] += statistics.median(run[stem][1] for run in w)
            ours[0] += statistics.median(run[stem][0] for run in t)
            ours[1] += statistics.median(run[stem][1] for run in t)
    print(f"{name:8} {wheel[0]:17.3f}s {ours[0]:7.3f}s {ours[0] / wheel[0]:5.2f}x   "
          f"{wheel[1]:9.3f}s {ours[1]:7.3f}s {ours[1] / wheel[1]:5.2f}x")
PY
echo
echo "2. Whole processes, wall seconds (median of $RUNS), one core each:"
printf '%-8s %8s %20s %20s %20s\n' set python "tessera batch" "tessera run" "run --json, no file"
for set in codes photos; do
  p=$(median < "python-$set.times")
  line=$(printf '%-8s %7.2fs' "$set" "$p")
  for side in batch run print; do
    t=$(median < "$side-$set.times")
    line+=$(printf ' %13.2fs %5.2fx' "$t" "$(echo "$t / $p" | bc -l)")
  done
  echo "$line"
done
