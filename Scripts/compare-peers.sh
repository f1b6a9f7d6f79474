#!/usr/bin/env bash
# compare-peers.sh: times `tessera convert` against `vips copy` (libvips) on the same 4K inputs.
#
# Makes a 3840x2160 RGB photo from Examples/images/astronaut.png (upscaled and cropped by vips) and
# saves it as 8-bit PNG, 16-bit PNG, uncompressed TIFF and JPEG Q90. Each job converts a file to the
# same format, once with each tool, RUNS times, alternating which tool goes first. Settings are made
# equal where the defaults differ: PNG zlib level 6 with libpng's adaptive filters (vips defaults to
# filter=none, tessera uses libpng's default, all filters), JPEG Q90 (vips 4:4:4 at Q>=90, as tessera),
# TIFF uncompressed strips. Prints the median wall time, the tessera/vips ratio and the peak RSS
# (largest over the runs), then checks that the lossless outputs of both tools hold the same pixels.
#
# Usage: Scripts/compare-peers.sh             (builds tessera into .build-bench)
#        TESSERA=path/to/tessera RUNS=9 WORK=/tmp/peers Scripts/compare-peers.sh
# Needs: vips (libvips-tools), GNU time (/usr/bin/time; installed with apt-get when run as root).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${RUNS:-5}
WORK=${WORK:-/tmp/tessera-peers}
if [[ -z ${TESSERA:-} ]]; then
    BUILT_FROM=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo "?")
    git -C "$ROOT" --no-optional-locks diff --quiet HEAD -- Sources Package.swift || BUILT_FROM+=" + uncommitted changes"
    (cd "$ROOT" && swift build -c release --scratch-path .build-bench --product tessera >&2)
    TESSERA=$ROOT/.build-bench/release/tessera
fi
command -v vips >/dev/null || { echo "vips not found (apt-get install libvips-tools)" >&2; exit 1; }
if [[ ! -x /usr/bin/time ]]; then
    if [[ $(id -u) == 0 ]]; then apt-get install -y -q time >&2; else echo "needs /usr/bin/time" >&2; exit 1; fi
fi
mkdir -p "$WORK"
cd "$WORK"

# Inputs: astronaut 512x512 -> x7.5 (3840x3840) -> centre crop 3840x2160.
vips resize "$ROOT/Examples/images/astronaut.png" big.v 7.5
vips extract_area big.v photo.v 0 840 3840 2160
vips copy photo.v in8.png
vips copy photo.v in.tif
vips copy photo.v "in.jpg[Q=90]"
vips linear photo.v wide.v 257 0
vips cast wide.v in16.v ushort
vips copy in16.v in16.png --interpretation rgb16
rm -f big.v photo.v wide.v in16.v

# job name | input | vips output (with save options) | tessera output | tessera options
JOBS=(
    "png8->png8|in8.png|v8.png[compression=6,filter=all]|t8.png|--compression 6"
    "png16->png16|in16.png|v16.png[compression=6,filter=all]|t16.png|--compression 6 --depth 16"
    "tiff->tiff|in.tif|v.tif[compression=none]|t.tif|--compression none"
    "jpeg->jpeg|in.jpg|v.jpg[Q=90]|t.jpg|--quality 90"
)

# run FILE CMD...: appends "wall_seconds peak_kb" for one run of CMD to FILE.
run() {
    local file=$1; shift
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f %M -o rss.txt "$@" >/dev/null
    end=$(date +%s.%N)
    echo "$(echo "$end - $start" | bc) $(tail -n 1 rss.txt)" >>"$file"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
peak_mb() { awk '$2 > m { m = $2 } END { printf "%.0f", m / 1024 }' "$1"; }

echo "tessera $("$TESSERA" --version) ($TESSERA${BUILT_FROM:+, built from $BUILT_FROM}), $(vips --version)," \
    "$RUNS runs, $(nproc) cores"
printf '%-14s %14s %17s %7s %12s %15s\n' job "vips median s" "tessera median s" ratio "vips peak MB" "tessera peak MB"
for job in "${JOBS[@]}"; do
    IFS='|' read -r name input vout tout topts <<<"$job"
    rm -f vips.txt tessera.txt
    vips copy "$input" "$vout" && "$TESSERA" convert "$input" "$tout" $topts # warm-up, untimed
    for ((i = 0; i < RUNS; i++)); do
        if ((i % 2 == 0)); then
            run vips.txt vips copy "$input" "$vout"
            run tessera.txt "$TESSERA" convert "$input" "$tout" $topts
        else
            run tessera.txt "$TESSERA" convert "$input" "$tout" $topts
            run vips.txt vips copy "$input" "$vout"
        fi
    done
    v=$(median <vips.txt)
    t=$(median <tessera.txt)
    printf '%-14s %14.3f %17.3f %7.2f %12s %15s\n' "$name" "$v" "$t" "$(echo "$t / $v" | bc -l)" \
        "$(peak_mb vips.txt)" "$(peak_mb tessera.txt)"
done

# Same pixels? Max absolute difference between the vips and tessera outputs (0 for the lossless jobs).
echo
echo "outputs: vips bytes, tessera bytes, max |vips - tessera| per sample"
status=0
for job in "${JOBS[@]}"; do
    IFS='|' read -r name input vout tout topts <<<"$job"
    vfile=${vout%%[*}
    vips subtract "$vfile" "$tout" diff.v
    vips abs diff.v absdiff.v
    max=$(vips max absdiff.v | awk '{ print $1 + 0 }')
    rm -f diff.v absdiff.v
    note=""
    if [[ $name == jpeg* ]]; then
        note="(lossy: informational)"
    elif [[ $max != 0 ]]; then
        note="MISMATCH"
        status=1
    fi
    printf '%-14s %12s %12s %8s %s\n' "$name" "$(stat -c %s "$vfile")" "$(stat -c %s "$tout")" "$max" "$note"
done
exit $status
