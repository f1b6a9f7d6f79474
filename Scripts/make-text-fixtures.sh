#!/usr/bin/env bash
# Makes Plugins/Vision/Tests/Fixtures/text/ with Scripts/make-text-fixtures.py: test images with known text,
# drawn with Pillow and the DejaVu fonts onto a white page and the photos in Examples/images, and what
# rapidocr-onnxruntime 1.4.4 (PP-OCRv4 on ONNX Runtime, default config) reads in them. Never run by
# `make test`; the outputs are committed. It needs the DejaVu fonts in /usr/share/fonts/truetype/dejavu
# (Debian: apt-get install fonts-dejavu-core; or FONTS=folder), the network and about 400 MB. By default
# it makes a throwaway venv in a temporary folder with PYTHON (default python3) and installs
# rapidocr-onnxruntime==1.4.4, checked against its SHA-256 below, then its dependencies (which include
# Pillow) from PyPI, unpinned. With VENV=path, it uses that venv as it is instead.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FONTS=${FONTS:-/usr/share/fonts/truetype/dejavu}
for f in DejaVuSans DejaVuSans-Bold DejaVuSerif; do
    [ -f "$FONTS/$f.ttf" ] || { echo "missing $FONTS/$f.ttf (apt-get install fonts-dejavu-core, or set FONTS)" >&2; exit 1; }
done
export FONTS
if [ -z "${VENV:-}" ]; then
    PYTHON=${PYTHON:-python3}
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    VENV="$work/venv"
    "$PYTHON" -m venv "$VENV"
    echo 'rapidocr-onnxruntime==1.4.4 --hash=sha256:971d7d5f223a7a808662229df1ef69893809d8457d834e6373d3854bc1782cbf' \
        > "$work/rapidocr.txt"
    "$VENV/bin/pip" install -q --no-deps --only-binary=:all: --require-hashes -r "$work/rapidocr.txt"
    "$VENV/bin/python" -c 'import importlib.metadata as m; print("\n".join(m.requires("rapidocr-onnxruntime")))' \
        > "$work/deps.txt"
    "$VENV/bin/pip" install -q --only-binary=:all: -r "$work/deps.txt" Pillow
fi
"$VENV/bin/python" "$ROOT/Scripts/make-text-fixtures.py" "$@"
