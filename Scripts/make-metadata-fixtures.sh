#!/usr/bin/env bash
# Makes Tests/TesseraIOTests/Fixtures/metadata.jpg: a 64x48 crop of the astronaut photo in Display P3
# (libvips' own P3 profile, "sP3C", CC0, embedded), with EXIF written by exiftool (camera, date,
# exposure, copyright, GPS, Orientation 6: to be turned 90 degrees clockwise, so the upright image is
# 48x64) and an XMP creator. The metadata tests read what Tessera writes with exiftool, an
# independent reader. Needs libvips-tools and libimage-exiftool-perl.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/Scripts/install-deps.sh" libvips-tools libimage-exiftool-perl
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
vips resize "$ROOT/Examples/images/astronaut.png" "$work/small.png" 0.125
vips crop "$work/small.png" "$work/crop.png" 0 8 64 48
vips icc_transform "$work/crop.png" "$work/metadata.jpg[Q=90]" p3 --embedded=false --input-profile srgb
exiftool -q -overwrite_original -Make=Tessera -Model="Test Camera" -DateTimeOriginal="2026:11:24 10:00:00" \
    -ExposureTime=1/125 -FNumber=5.6 -ISO=200 -Copyright="CC0 test fixture" -Orientation#=6 \
    -ExifImageWidth=64 -ExifImageHeight=48 -GPSLatitude=48.85 -GPSLatitudeRef=N -GPSLongitude=2.35 \
    -GPSLongitudeRef=E -XMP-dc:Creator="Tessera tests" "$work/metadata.jpg"
cp "$work/metadata.jpg" "$ROOT/Tests/TesseraIOTests/Fixtures/metadata.jpg"
