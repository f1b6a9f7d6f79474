#!/usr/bin/env bash
# three-consumers.sh: issue 15's headline job, timed side by side in one run: the three-consumer graph
# (an attention heat-map overlay, an objectness spotlight and a 4:3 auto-crop of one photo) with one or
# more tessera builds, and the same job in Python and OpenCV (Scripts/three-consumers-opencv.py).
#
# Usage: Scripts/three-consumers.sh [PHOTO.jpg]          (RUNS=3 WORK=/tmp/tessera-three by default)
#        TESSERA=path/to/tessera Scripts/three-consumers.sh photo.jpg
#        TESSERA="before/tessera after/tessera" Scripts/three-consumers.sh photo.jpg   (two builds)
#
# The graph: Tests/TesseraEngineTests/Fixtures/three-consumers.yaml, its paths set with --set. The
# photo: PHOTO, or Examples/images/astronaut.png enlarged (Lanczos) and cropped to 6400x4270 (27 MP,
# the size issue 15 measured), written as a JPEG of quality 90.
#
# Each tool runs once untimed, then RUNS rounds, each running every tool once, rotating which goes
# first; every run writes its three JPEGs afresh. Printed per tool: the median wall time (with the
# range), the median CPU time (user and system), the peak resident memory (the largest over the
# runs), all from GNU time, and the time over OpenCV's and over the first build's. Then, for each
# tessera build, one more run with --stats (per node: time, megapixels, cache), which shows how many
# megapixels `load` decoded (27.3 when the photo is decoded once), and `run --plan` where the build
# has it. TESSERA is a list of binaries, split on spaces; by default the release build of this
# checkout (built first). Threads: tessera's default (one per core) and OpenCV's (its own pool, one
# per core).
#
# Needs: python3-opencv (Debian's, with contrib's saliency), GNU time, bc: installed with apt-get when
# run as root.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-3}
WORK=${WORK:-/tmp/tessera-three}
PYTHON=/usr/bin/python3 # Debian's, which python3-opencv installs into
GRAPH=$ROOT/Tests/TesseraEngineTests/Fixtures/three-consumers.yaml
OPENCV=$ROOT/Scripts/three-consumers-opencv.py

"$ROOT/Scripts/install-deps.sh" python3-opencv time bc >&2

if [[ -z ${TESSERA:-} ]]; then
    swift build -c release --package-path "$ROOT" --product tessera >&2
    TESSERA=$(swift build -c release --package-path "$ROOT" --show-bin-path)/tessera
fi
read -ra BUILDS <<<"$TESSERA"
mkdir -p "$WORK"
if [[ -n ${1:-} ]]; then
    PHOTO=$(realpath "$1")
else
    PHOTO=$WORK/astronaut-6400.jpg
    [[ -f $PHOTO ]] || "$PYTHON" "$OPENCV" make "$ROOT/Examples/images/astronaut.png" "$PHOTO"
fi
cd "$WORK"

# Tools by name: tessera1, tessera2, ... (the builds, in TESSERA's order) and opencv.
TOOLS=()
for ((i = 0; i < ${#BUILDS[@]}; i++)); do TOOLS+=("tessera$((i + 1))"); done
TOOLS+=(opencv)

# job TOOL [OPTIONS...]: sets CMD to TOOL's job, which writes TOOL-overlay.jpg, TOOL-spotlight.jpg
# and TOOL-crop.jpg, and removes those files.
job() {
    local tool=$1
    shift
    rm -f "$tool"-overlay.jpg "$tool"-spotlight.jpg "$tool"-crop.jpg
    if [[ $tool == opencv ]]; then
        CMD=("$PYTHON" "$OPENCV" run "$PHOTO" opencv-overlay.jpg opencv-spotlight.jpg opencv-crop.jpg)
    else
        CMD=("${BUILDS[${tool#tessera} - 1]}" run "$GRAPH" --quiet --set photo.path="$PHOTO"
            --set a.path="$tool"-overlay.jpg --set b.path="$tool"-spotlight.jpg --set c.path="$tool"-crop.jpg "$@")
    fi
}
# timed TOOL: one run of TOOL's job under GNU time, appending "seconds peak_kb user_seconds system_seconds"
# to TOOL.txt. A failing run stops the script with its messages.
timed() {
    job "$1"
    if ! /usr/bin/time -f "%e %M %U %S" -o time.txt "${CMD[@]}" >out.txt 2>err.txt; then
        echo "failed: ${CMD[*]}" >&2
        cat err.txt >&2
        exit 1
    fi
    tail -n 1 time.txt >>"$1.txt"
}

# median [COLUMN] < lines: the median of a column (default 1) of numbers; peak_mb FILE: the largest
# second column (KB) in MB; range FILE: the fastest and slowest times.
median() {
    awk -v c="${1:-1}" '{ print $c }' | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
peak_mb() { awk '$2 > m { m = $2 } END { printf "%.0f", m / 1024 }' "$1"; }
range() { sort -g "$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }

# Other engineers build on the same cores: say how busy the machine is, so slow figures can be told.
machine_note() {
    # top's second sample: CPU use over the last 0.3 s (ps would give averages over each process's life).
    echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; busiest now (%CPU):" \
        "$(top -b -n 2 -d 0.3 -w 200 | awk '/^top -/ { f++ } f == 2 && /^ *[0-9]+ / {
            printf "%s%s %s", (c ? ", " : ""), $12, $9; if (++c == 3) exit }')"
}

for ((i = 0; i < ${#BUILDS[@]}; i++)); do
    echo "tessera$((i + 1)): $("${BUILDS[i]}" --version) (${BUILDS[i]})"
done
echo "opencv: OpenCV $($PYTHON -c 'import cv2; print(cv2.__version__)') ($PYTHON $OPENCV)"
echo "photo: $PHOTO, $("${BUILDS[0]}" info "$PHOTO" | awk '$1 == "size:" { print $2 }'), $(stat -c %s "$PHOTO") bytes"
machine_note

echo
echo "== the three-consumer graph: median wall time of $RUNS runs, its range, the largest peak resident memory"
for tool in "${TOOLS[@]}"; do
    rm -f "$tool.txt"
    timed "$tool" # untimed warm-up: the file cache, Python's imports
    rm -f "$tool.txt"
done
for ((round = 0; round < RUNS; round++)); do
    for ((i = 0; i < ${#TOOLS[@]}; i++)); do
        timed "${TOOLS[(i + round) % ${#TOOLS[@]}]}"
    done
done
opencv=$(median <opencv.txt)
first=$(median <tessera1.txt)
printf '%-10s %9s %12s %8s %8s %9s %11s\n' tool "median s" "range s" "cpu s" "peak MB" "/ opencv" "/ tessera1"
for tool in "${TOOLS[@]}"; do
    t=$(median <"$tool.txt")
    cpu=$(awk '{ print $3 + $4 }' "$tool.txt" | median)
    printf '%-10s %9.2f %12s %8.2f %8s %9.2f %11.2f\n' "$tool" "$t" "$(range "$tool.txt")" "$cpu" \
        "$(peak_mb "$tool.txt")" "$(echo "$t / $opencv" | bc -l)" "$(echo "$t / $first" | bc -l)"
done
machine_note

echo
echo "outputs (width x height): overlay, spotlight, crop"
for tool in "${TOOLS[@]}"; do
    printf '%-10s' "$tool"
    for out in overlay spotlight crop; do
        printf ' %s' "$("${BUILDS[0]}" info "$tool-$out.jpg" | awk '$1 == "size:" { print $2 }')"
    done
    echo
done

for ((i = 0; i < ${#BUILDS[@]}; i++)); do
    echo
    echo "== tessera$((i + 1)) --stats (one more run)"
    job "tessera$((i + 1))" --stats
    "${CMD[@]}" 2>&1
    echo
    echo "== tessera$((i + 1)) run --plan"
    "${BUILDS[i]}" run "$GRAPH" --plan --set photo.path="$PHOTO" 2>&1 || echo "(no --plan in this build)"
done
