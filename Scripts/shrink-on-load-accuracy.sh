#!/usr/bin/env bash
# How far shrink-on-load is from a full decode: for each test image, each DCT-scaled decode (1/2, 1/4,
# 1/8) and each factor left to the resize, the largest difference in levels of 255 between
#   load (shrink S) -> resize (width W) -> float TIFF     and     load (shrink 1) -> resize (width W)
# with bicubic and lanczos3. The image sides are multiples of 8, so both map the same geometry. The
# table in Sources/TesseraScheduler/RenderPlan+ShrinkOnLoad.swift (shrinkLeftToReaders) comes from here.
#
# Usage: Scripts/shrink-on-load-accuracy.sh [tessera binary]   (default: a release build)
# Needs libvips-tools and Debian's python3-opencv (apt-get install libvips-tools python3-opencv), and
# ../shared/images beside the repository for the 3072 mosaic.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TESSERA=${1:-$ROOT/.build/release/tessera}
[[ -x $TESSERA ]] || (cd "$ROOT" && swift build -c release --product tessera)
PYTHON=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

# Issue 15's photo: the astronaut enlarged 12.5 times (lanczos3), 6400x4264 of its middle, Q90.
vips resize "$ROOT/Examples/images/astronaut.png" big.v 12.5 --kernel lanczos3
vips extract_area big.v "photo.jpg[Q=90]" 0 1065 6400 4264
# Photos at their own resolution side by side (hard edges between them), 4:2:0 Q90; and that mosaic
# enlarged twice with a little noise, Q92: softer, as a camera's.
$PYTHON - "$ROOT/../shared/images" <<'EOF'
import glob, sys
import cv2
import numpy as np
folder = sys.argv[1]
images = [cv2.imread(f) for f in sorted(glob.glob(folder + "/people/*.jpg")) + sorted(glob.glob(folder + "/*.png"))]
canvas = np.zeros((2048, 3072, 3), np.uint8)
y = index = 0
while y < 2048:
    x = height = 0
    while x < 3072:
        image = images[index % len(images)]
        index += 1
        h, w = min(image.shape[0], 2048 - y), min(image.shape[1], 3072 - x)
        canvas[y:y + h, x:x + w] = image[:h, :w]
        x += w
        height = max(height, h)
    y += height
cv2.imwrite("mosaic.jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, 90])
big = cv2.resize(canvas, (6144, 4096), interpolation=cv2.INTER_LANCZOS4)
noise = np.random.default_rng(1).normal(0, 3, big.shape)
cv2.imwrite("camera.jpg", np.clip(big + noise, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 92])
EOF
cp "$ROOT/Tests/TesseraNodesTests/Fixtures/shrink-mosaic.jpg" example-mosaic.jpg

# The largest difference for image $1 decoded at 1/$2, resized to $3 of its width, with filter $4.
difference() {
    local s width
    width=$(($(vipsheader -f width "$1") * 1000 / $3 / 1000))
    for s in "$2" 1; do
        printf 'version: 1\nnodes:\n  photo: { op: load, path: %s, shrink: %s }\n' "$1" "$s" >g.yaml
        printf '  small: { op: resize, input: photo, width: %s, interpolation: %s }\n' "$width" "$4" >>g.yaml
        printf '  out: { op: save, input: small, path: out-%s.tif, depth: float }\n' "$s" >>g.yaml
        "$TESSERA" run g.yaml --quiet
    done
    $PYTHON -c "
import cv2, numpy as np
a, b = (cv2.imread(f, cv2.IMREAD_UNCHANGED).astype(np.float64) * 255 for f in ('out-$2.tif', 'out-1.tif'))
print('%.2f' % np.abs(a - b)[..., :3].max())"
}

printf '%-20s %-8s %-6s %9s %9s\n' image decode left bicubic lanczos3
for image in photo.jpg mosaic.jpg example-mosaic.jpg camera.jpg; do
    for case in "2 7" "2 10" "2 12" "2 16" "4 6" "4 8" "8 6"; do
        read -r shrink left <<<"$case"
        printf '%-20s 1/%-6s %-6s %9s %9s\n' "$image" "$shrink" "$left" \
            "$(difference "$image" "$shrink" $((shrink * left)) bicubic)" \
            "$(difference "$image" "$shrink" $((shrink * left)) lanczos3)"
    done
done
