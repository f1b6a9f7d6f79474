#!/usr/bin/env bash
# batch-speed.sh: the two speed targets of `tessera batch`, each against its peer, the runs interleaved:
#
# 1. 200 photos of mixed sizes (1 to 24 MP JPEGs) to 256 px thumbnails: Graphs/thumbnails.yaml through
#    `tessera batch` against `vips thumbnail` run once per file with `xargs -P 2`. Target: at most 1.2x.
# 2. Graphs/spotlight.yaml over 100 of those photos: `tessera batch` against Scripts/spotlight-opencv.py
#    (the same steps in Python and OpenCV, a multiprocessing pool of 2). Target: at most 1.0x.
#
# Usage: Scripts/batch-speed.sh
#        TESSERA=path/to/tessera RUNS=5 WORK=/tmp/tessera-batch-speed THREADS=2 JOBS="thumbnails spotlight"
#
# The photos (made once into WORK/photos, reused while WORK/photos/.made says v2): img-000.jpg to
# img-199.jpg in four folders, set-1 to set-4 (img-N in set-(N mod 4 + 1)), so that a graph's {dir}
# matters. Each is one of the 11 photos of Examples/images (astronaut, camera, coffee, the 8 people), cut
# to its aspect ratio and enlarged (Lanczos) to its size, with sensor-like noise (Gaussian, fixed seed:
# sigma 4 in luminance, 2 per channel), JPEG quality 90: the same bytes every time. Sizes: 1.0 to 24.0 MP
# in 200 even steps, shuffled (photo N < 100 takes step 2 (67 N mod 100), photo N >= 100 the odd step
# after 2 (67 N mod 100)), the aspect ratio cycling through 3:2, 4:3, 2:3, 16:9, 3:4 and 1:1 (from
# 1224x816 to 4898x4898 and 5644x4232, up to 5970 px long): 2500 MP, about 520 MB. The spotlight set:
# the first 100 (img-000 to img-099, the even steps, 1.0 to 23.9 MP, 1250 MP, all four folders), hard
# links in WORK/spot.
#
# The commands (THREADS is both sides' parallelism):
#   tessera:    tessera batch GRAPH WORK/photos --output-dir WORK/out-tessera --threads THREADS -q
#               (GRAPH: Graphs/thumbnails.yaml, or while it does not exist an equivalent written to WORK)
#   vips:       xargs -P THREADS -n 1 sh -c 'vips thumbnail "$0" "OUT/$(basename "$0" .jpg).jpg[Q=85]" 256'
#               over the file list: fits each photo in 256x256, at the JPEG quality of GRAPH's save (85)
#   tessera:    tessera batch Graphs/spotlight.yaml WORK/spot --output-dir WORK/out-tessera --threads THREADS -q
#   opencv:     python3 Scripts/spotlight-opencv.py OUT PHOTO...  (PNG at zlib level 6, as tessera's save)
# Each side runs once untimed (the file cache, Python's imports), then RUNS rounds, each running both,
# alternating which goes first; the output folder is emptied before every run (not timed). Wall time and
# peak resident memory by GNU time (%e %M). For tessera the memory is its one process's; for the peers it
# is the largest single process of the tree (Linux folds each waited-for child's peak into its parent's
# as a maximum, not a sum), so the peers' total at any moment is up to THREADS times more. The outputs are
# counted after each run (200 thumbnails, 100 spotlights), and the last run's sizes checked.
#
# Needs: a tessera build with `batch` (the script does not build; swift build -c release --product
# tessera), libvips-tools (vips 8.14), python3-opencv (Debian's, with contrib's saliency), GNU time:
# installed with Scripts/install-deps.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TESSERA=${TESSERA:-$ROOT/.build/release/tessera}
RUNS=${RUNS:-3}
WORK=${WORK:-/tmp/tessera-batch-speed}
THREADS=${THREADS:-2}
JOBS=${JOBS:-thumbnails spotlight}
PYTHON=/usr/bin/python3 # Debian's, which python3-opencv installs into
OPENCV=$ROOT/Scripts/spotlight-opencv.py

"$ROOT/Scripts/install-deps.sh" libvips-tools python3-opencv time >&2
if ! "$TESSERA" batch --help >/dev/null 2>&1; then
    echo "$TESSERA has no batch subcommand (build it: swift build -c release --product tessera)" >&2
    exit 1
fi
mkdir -p "$WORK"
cd "$WORK"

# ------------------------------------------------------------------------------------------ the photos
if [[ $(cat photos/.made 2>/dev/null) != v2 ]]; then
    echo "making the 200 photos in $WORK/photos (once; a few minutes)..." >&2
    rm -rf photos spot
    "$PYTHON" - "$ROOT/Examples/images" photos "$THREADS" <<'PY'
import math, multiprocessing, sys
from pathlib import Path
import cv2, numpy as np

images, out, processes = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
SOURCES = sorted(images.glob("*.png")) + sorted(images.glob("people/*.jpg"))  # 11 photos
RATIOS = [3 / 2, 4 / 3, 2 / 3, 16 / 9, 3 / 4, 1]
COUNT = 200

def make(n):
    step = 2 * (67 * n % 100) + n // 100  # the first 100 take the even steps, the others the odd ones
    megapixels = 1 + 23 * step / (COUNT - 1)
    ratio = RATIOS[n % len(RATIOS)]
    width = 2 * round(math.sqrt(megapixels * 1e6 * ratio) / 2)
    height = 2 * round(width / ratio / 2)
    source = cv2.imread(str(SOURCES[n % len(SOURCES)]), cv2.IMREAD_COLOR)
    h, w = source.shape[:2]
    cw, ch = (w, round(w / ratio)) if w / h < ratio else (round(h * ratio), h)  # the largest cut of the ratio
    x, y = (w - cw) * (n % 5) // 4, (h - ch) * (n % 3) // 2  # where: a spread from one side to the other
    big = cv2.resize(source[y:y + ch, x:x + cw], (width, height), interpolation=cv2.INTER_LANCZOS4)
    rng = np.random.default_rng(n)
    noise = rng.standard_normal((height, width, 1), np.float32) * 4 + rng.standard_normal((height, width, 3), np.float32) * 2
    path = out / f"set-{n % 4 + 1}" / f"img-{n:03d}.jpg"
    cv2.imwrite(str(path), np.clip(big + noise + 0.5, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 90])

for s in range(4):
    (out / f"set-{s + 1}").mkdir(parents=True, exist_ok=True)
with multiprocessing.Pool(processes) as pool:
    pool.map(make, range(COUNT), chunksize=1)
PY
    for ((n = 0; n < 100; n++)); do
        f=$(printf 'set-%d/img-%03d.jpg' $((n % 4 + 1)) "$n")
        mkdir -p "spot/$(dirname "$f")"
        ln "photos/$f" "spot/$f"
    done
    echo v2 >photos/.made
fi
find "$WORK/photos" -name '*.jpg' | sort >photos.txt
find "$WORK/spot" -name '*.jpg' | sort >spot.txt

GRAPH_THUMB=$ROOT/Graphs/thumbnails.yaml
if [[ ! -f $GRAPH_THUMB ]]; then # until the graph is in the checkout: the same graph, in WORK
    GRAPH_THUMB=$WORK/thumbnails.yaml
    cat >"$GRAPH_THUMB" <<'GRAPH'
version: 1
nodes:
  photo: { op: thumbnail, path: photo.jpg, size: 256 }
  out:   { op: save, input: photo, path: "../out/thumbnails/{dir}/{stem}.jpg", quality: 85 }
GRAPH
fi
# vips writes its JPEGs at the quality of the graph's save (save's default: 90)
QUALITY=$(grep -o 'op: save.*quality: *[0-9]*' "$GRAPH_THUMB" | grep -o '[0-9]*$' || echo 90)

# ------------------------------------------------------------------------------------------ the runs
# job JOB SIDE: sets CMD (and OUT, its output folder, emptied) to SIDE's command for JOB.
job() {
    OUT=$WORK/out-$1-$2
    rm -rf "$OUT"
    mkdir -p "$OUT"
    # shellcheck disable=SC2016 # the peer's $0, $OUT and $Q are sh's
    case $1-$2 in
    thumbnails-tessera) CMD=("$TESSERA" batch "$GRAPH_THUMB" "$WORK/photos" --output-dir "$OUT" --threads "$THREADS" -q) ;;
    thumbnails-peer) CMD=(env OUT="$OUT" Q="$QUALITY" xargs -a photos.txt -P "$THREADS" -n 1
        sh -c 'vips thumbnail "$0" "$OUT/$(basename "$0" .jpg).jpg[Q=$Q]" 256') ;;
    spotlight-tessera) CMD=("$TESSERA" batch "$ROOT/Graphs/spotlight.yaml" "$WORK/spot" --output-dir "$OUT" --threads "$THREADS" -q) ;;
    spotlight-peer) mapfile -t photos <spot.txt
        CMD=(env PROCESSES="$THREADS" "$PYTHON" "$OPENCV" "$OUT" "${photos[@]}") ;;
    esac
}
# timed JOB SIDE: one run under GNU time; appends "seconds peak_kb outputs" to JOB-SIDE.txt. A failing
# run stops the script with its messages.
timed() {
    job "$1" "$2"
    if ! /usr/bin/time -f "%e %M" -o time.txt "${CMD[@]}" >out.txt 2>err.txt; then
        echo "failed: ${CMD[*]:0:12}" >&2
        cat err.txt >&2
        exit 1
    fi
    [[ -s err.txt ]] && { echo "$1 $2 printed on stderr:" >&2; head -n 5 err.txt >&2; }
    echo "$(tail -n 1 time.txt) $(find "$OUT" -type f | wc -l)" >>"$1-$2.txt"
}
median() {
    awk '{ print $1 }' | sort -g |
        awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
range() { awk '{ print $1 }' "$1" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }
peak_mb() { awk '$2 > m { m = $2 } END { printf "%.0f", m / 1024 }' "$1"; }
counts() { awk '{ print $3 }' "$1" | sort -u | paste -sd/; } # every run's output count (one figure when all agree)
# Other engineers build on the same cores: say how busy the machine is, so slow figures can be told.
machine_note() {
    echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; busiest now (%CPU):" \
        "$(top -b -n 2 -d 0.3 -w 200 | awk '/^top -/ { f++ } f == 2 && /^ *[0-9]+ / {
            printf "%s%s %s", (c ? ", " : ""), $12, $9; if (++c == 3) exit }')"
}

echo "tessera: $("$TESSERA" --version) ($TESSERA), threads $THREADS"
echo "vips:    $(vips --version) (vips thumbnail, xargs -P $THREADS, JPEG quality $QUALITY)"
echo "opencv:  OpenCV $("$PYTHON" -c 'import cv2; print(cv2.__version__)') ($PYTHON $OPENCV, pool of $THREADS)"
echo "photos:  $(wc -l <photos.txt) JPEGs, $(du -sm photos | cut -f1) MB ($WORK/photos); spotlight: $(wc -l <spot.txt) of them"
echo "graphs:  $GRAPH_THUMB, $ROOT/Graphs/spotlight.yaml"
machine_note
declare -A PEER=([thumbnails]="vips" [spotlight]="opencv") TARGET=([thumbnails]=1.2 [spotlight]=1.0)
declare -A WANT=([thumbnails]=200 [spotlight]=100)
for j in $JOBS; do
    rm -f "$j"-tessera.txt "$j"-peer.txt
    timed "$j" peer # untimed warm-up
    timed "$j" tessera
    rm -f "$j"-tessera.txt "$j"-peer.txt
    for ((round = 0; round < RUNS; round++)); do
        if ((round % 2)); then sides=(tessera peer); else sides=(peer tessera); fi
        for side in "${sides[@]}"; do timed "$j" "$side"; done
    done
done
machine_note

echo
echo "== median wall time of $RUNS runs (range), peak memory (tessera: its process; peer: its largest process)"
printf '%-11s %-7s %23s %23s %6s %8s %11s %8s %s\n' job peer "peer s" "tessera s" ratio "peer MB" "tessera MB" outputs target
for j in $JOBS; do
    p=$(median <"$j-peer.txt")
    t=$(median <"$j-tessera.txt")
    ratio=$(awk -v t="$t" -v p="$p" 'BEGIN { printf "%.2f", t / p }')
    met=$(awk -v r="$ratio" -v g="${TARGET[$j]}" 'BEGIN { print (r <= g ? "met" : "MISSED") }')
    printf '%-11s %-7s %23s %23s %6s %8s %11s %8s %s\n' "$j" "${PEER[$j]}" \
        "$(printf '%.2f (%s)' "$p" "$(range "$j-peer.txt")")" "$(printf '%.2f (%s)' "$t" "$(range "$j-tessera.txt")")" \
        "${ratio}x" "$(peak_mb "$j-peer.txt")" "$(peak_mb "$j-tessera.txt")" \
        "$(counts "$j-peer.txt")/$(counts "$j-tessera.txt")" "<=${TARGET[$j]}x $met"
done
for j in $JOBS; do
    for side in peer tessera; do
        [[ $(counts "$j-$side.txt") == "${WANT[$j]}" ]] ||
            echo "$j $side: wrote $(counts "$j-$side.txt") files, not ${WANT[$j]}" >&2
    done
done

echo
echo "outputs of the last runs: long side (smallest-largest), first file"
for j in $JOBS; do
    for side in peer tessera; do
        files=$(find "$WORK/out-$j-$side" -type f | sort)
        [[ -n $files ]] || { printf '  %-11s %-8s none\n' "$j" "$side"; continue; }
        printf '  %-11s %-8s %s; %s\n' "$j" "$side" \
            "$(for f in $files; do vipsheader -f width "$f"; vipsheader -f height "$f"; done | paste - - |
                awk '{ l = $1 > $2 ? $1 : $2; if (NR == 1 || l < lo) lo = l; if (l > hi) hi = l } END { print lo "-" hi " px" }')" \
            "$(vipsheader "$(head -n 1 <<<"$files")" | sed "s|$WORK/||")"
    done
done
