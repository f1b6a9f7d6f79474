#!/usr/bin/env bash
# Makes Plugins/Vision/Tests/Fixtures/mediapipe/ with Scripts/make-vision-fixtures.py: MediaPipe 0.10.21's
# own face detection, face mesh and selfie segmentation on the photos in Examples/images; then, with
# Scripts/make-hand-fixtures.py, its hand landmarks on the same photos (`<stem>-hands.json`) and on the
# derived images it makes in Plugins/Vision/Tests/Fixtures/hands/; then, with Scripts/make-body-fixtures.py,
# its body poses on the same photos and derived images (`<stem>-bodies.json`, and Fixtures/bodies/). Never
# run by `make test`; the outputs are committed. It needs the network and about 1.2 GB: mediapipe pulls in
# jax, jaxlib, matplotlib, opencv-contrib-python and more. By default it makes a throwaway venv in a
# temporary folder with PYTHON (default python3, must be CPython 3.11: the pinned wheel is cp311) and
# installs mediapipe==0.10.21, checked against its SHA-256 in Docs/Research/Vision/vision-wheels.txt,
# then its dependencies from PyPI (unpinned). With VENV=path, it uses that venv as it is instead.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${VENV:-}" ]; then
    PYTHON=${PYTHON:-python3}
    "$PYTHON" -c 'import sys; assert sys.version_info[:2] == (3, 11), "needs Python 3.11"'
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    VENV="$work/venv"
    "$PYTHON" -m venv "$VENV"
    grep '^mediapipe==0.10.21 ' "$ROOT/Docs/Research/Vision/vision-wheels.txt" > "$work/mediapipe.txt"
    "$VENV/bin/pip" install -q --no-deps --only-binary=:all: --require-hashes -r "$work/mediapipe.txt"
    "$VENV/bin/python" -c 'import importlib.metadata as m; print("\n".join(m.requires("mediapipe")))' > "$work/deps.txt"
    "$VENV/bin/pip" install -q --only-binary=:all: -r "$work/deps.txt"
fi
"$VENV/bin/python" "$ROOT/Scripts/make-vision-fixtures.py"
"$VENV/bin/python" "$ROOT/Scripts/make-hand-fixtures.py"
"$VENV/bin/python" "$ROOT/Scripts/make-body-fixtures.py"
