#!/usr/bin/env bash
# saliency-speed.sh: the saliency node against OpenCV contrib's saliency on a 4K photo, side by side
# in one run, and the spotlight graph's total time.
#
# Usage: Scripts/saliency-speed.sh                 (RUNS=5 WORK=/tmp/tessera-saliency by default)
#        TESSERA=path/to/tessera PYTHON=path/to/python3 Scripts/saliency-speed.sh
#
# The photo: Examples/images/astronaut.png enlarged to 3840x3840 (bicubic) and cropped to 3840x2160,
# written as an uncompressed RGB TIFF, which both tools decode fast.
#
# OpenCV (Scripts/saliency-speed-opencv.py): StaticSaliencySpectralResidual and
# StaticSaliencyFineGrained, timed inside Python on the decoded image (decode not included), median
# of RUNS calls, one thread as OpenCV's saliency code runs; its imread is timed alone too.
#
# Tessera: each saliency job is a whole `tessera run` (read the TIFF, the node, save the 64x64 map).
# Two figures: the process's wall time on 2 threads, and the saliency node's own time from --stats on
# 1 thread (its work on what it read, not the decode or the bands it waited for): the figure to set
# beside OpenCV's computeSaliency. Medians of RUNS.
# Then the spotlight graph (Graphs/spotlight.yaml) on the example photo, as `make demo` runs it, and
# on the 4K photo.
#
# Needs: python3 with opencv-contrib-python-headless (a venv in WORK is made with pip if PYTHON is
# not given), GNU time not needed; bc.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
WORK=${WORK:-/tmp/tessera-saliency}
mkdir -p "$WORK"

if [[ -z ${PYTHON:-} ]]; then
    if [[ ! -x $WORK/venv/bin/python ]]; then
        python3 -m venv "$WORK/venv"
        "$WORK/venv/bin/pip" install -q opencv-contrib-python-headless numpy
    fi
    PYTHON=$WORK/venv/bin/python
fi
if [[ -z ${TESSERA:-} ]]; then
    swift build -c release --package-path "$ROOT" --product tessera >&2
    TESSERA=$(swift build -c release --package-path "$ROOT" --show-bin-path)/tessera
fi
cd "$WORK"

# median < lines: the median of numbers, one a line.
median() {
    sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
# seconds CMD...: wall time of one run of CMD (its output discarded; a failure stops the script).
seconds() {
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>err.txt || { cat err.txt >&2; exit 1; }
    end=$(date +%s.%N)
    echo "$end - $start" | bc
}
# timed NAME CMD...: the median wall time of RUNS runs of CMD, after one untimed run.
timed() {
    local name=$1 i
    shift
    "$@" >/dev/null 2>&1
    for ((i = 0; i < RUNS; i++)); do seconds "$@"; done | median >"$name.median"
    cat "$name.median"
}

echo "tessera $("$TESSERA" --version) ($TESSERA), OpenCV $($PYTHON -c 'import cv2; print(cv2.__version__)')," \
    "$(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

"$PYTHON" "$ROOT/Scripts/saliency-speed-opencv.py" make "$ROOT/Examples/images/astronaut.png" photo4k.tif

graph() { # graph FILE KIND: load the 4K TIFF, run saliency KIND, save the 64x64 map
    printf 'version: 1\nnodes:\n  photo: { op: load, path: photo4k.tif }\n%s\n%s\n' \
        "  heat: { op: saliency, input: photo, kind: $2 }" "  out: { op: save, input: heat, path: heat-$2.tif }" >"$1"
}
# own GRAPH: the saliency node's own time on 1 thread (--stats), median of RUNS.
own() {
    local i
    for ((i = 0; i < RUNS; i++)); do
        "$TESSERA" run "$1" --threads 1 --stats 2>&1 | awk '$1 == "heat" { print $3 / 1000 }'
    done | median
}

echo
echo "== 3840x2160 RGB, median of $RUNS (seconds)"
for kind in attention objectness; do
    graph "$kind.yaml" "$kind"
    wall=$(timed "$kind" "$TESSERA" run "$kind.yaml" --threads 2)
    printf '%-44s %8.3f   the node alone, 1 thread: %.3f\n' "tessera saliency $kind (whole run)" "$wall" \
        "$(own "$kind.yaml")"
done
"$PYTHON" "$ROOT/Scripts/saliency-speed-opencv.py" time photo4k.tif "$RUNS"

echo
echo "== spotlight graph (Graphs/spotlight.yaml), whole run, median of $RUNS (seconds)"
spot512=$(timed spot512 "$TESSERA" run "$ROOT/Graphs/spotlight.yaml" --set out.path=spot512.png)
spot4k=$(timed spot4k "$TESSERA" run "$ROOT/Graphs/spotlight.yaml" --set photo.path=photo4k.tif \
    --set out.path=spot4k.tif)
printf '%-44s %8.3f\n' "512x512 example photo to PNG (make demo)" "$spot512" "3840x2160 TIFF to TIFF" "$spot4k"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
