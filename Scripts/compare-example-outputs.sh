#!/usr/bin/env bash
# compare-example-outputs.sh OLD NEW: runs every graph in Graphs/ with two tessera binaries (an older
# build and this one, say) and prints, for each file written, "same" or how far the two differ: the
# largest and the mean absolute difference per sample, in levels (vips), or that a file differs that
# is not an image. What a change that should keep every example's bytes (or stay within a level where
# a node documents why) is checked against.
#
# Usage: Scripts/compare-example-outputs.sh /tmp/old/tessera .build/release/tessera
# Needs vips (libvips-tools). Works in a temporary folder it removes.
set -euo pipefail

(($# == 2)) || { sed -n '2,8p' "$0" >&2; exit 2; }
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OLD=$(realpath "$1")
NEW=$(realpath "$2")
"$ROOT/Scripts/install-deps.sh" libvips-tools >&2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for side in old new; do
    mkdir -p "$WORK/$side/out/graphs" "$WORK/$side/Examples"
    cp -r "$ROOT/Graphs" "$WORK/$side/"
    cp -r "$ROOT/Examples/images" "$WORK/$side/Examples/"
done
for graph in "$WORK"/old/Graphs/*.yaml "$WORK"/old/Graphs/*.json; do
    name=$(basename "$graph")
    (cd "$WORK/old/Graphs" && "$OLD" run "$name" --quiet >/dev/null) || echo "failed with $OLD: $name"
    (cd "$WORK/new/Graphs" && "$NEW" run "$name" --quiet >/dev/null) || echo "failed with $NEW: $name"
done
cd "$WORK/old/out"
find . -type f | sort | while read -r file; do
    file=${file#./}
    other=$WORK/new/out/$file
    if [[ ! -f $other ]]; then
        echo "missing  $file (not written by $NEW)"
    elif cmp -s "$file" "$other"; then
        echo "same     $file"
    elif vips subtract "$file" "$other" "$WORK/d.v" 2>/dev/null; then
        vips abs "$WORK/d.v" "$WORK/ad.v"
        echo "differs  $file: max $(vips max "$WORK/ad.v"), mean $(vips avg "$WORK/ad.v") levels"
    else
        echo "differs  $file (not an image)"
    fi
done
