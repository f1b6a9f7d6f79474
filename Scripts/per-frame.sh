#!/usr/bin/env bash
# per-frame.sh: what a graph costs per frame when a program runs it frame after frame (issue 36's
# "prepare once, run many"), through the C API and through the Python package (NumPy in and out), on
# 1920x1080 8-bit RGB frames, and on 16x16 frames: a run's cost apart from its pixels.
#
# Usage: Scripts/per-frame.sh        (builds libtessera in release; needs gcc, python3-numpy)
# Targets: a 1080p contrast round trip at most 4 ms through C and 8 ms through Python; a run's cost
# apart from its pixels (the 16x16 frame) at most 1 ms.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/Scripts/install-deps.sh" gcc python3-numpy >&2
make -C "$ROOT" --no-print-directory python >&2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
gcc -O2 -o "$WORK/per-frame" "$ROOT/Benchmarks/PerFrame/per-frame.c" -I "$ROOT/out/include" -L "$ROOT/out/lib" -ltessera \
    -Wl,-rpath,"$ROOT/out/lib"
cp "$ROOT/Examples/images/astronaut.png" "$WORK/"
# The frame is supplied to a load node (never read from its file), which takes frames of any size.
cat >"$WORK/contrast.yaml" <<'YAML'
version: 1
nodes:
  frame: { op: load, path: supplied.png }
  lit: { op: contrast, input: frame, amount: 1.3 }
YAML
# The saliency tutorial's spotlight on every frame (Graphs/spotlight.yaml, kept instead of saved).
cat >"$WORK/spotlight.yaml" <<'YAML'
version: 1
nodes:
  frame: { op: load, path: supplied.png }
  heat: { op: saliency, input: frame, kind: objectness }
  norm: { op: normalize, input: heat }
  big: { op: resize, input: norm, like: frame }
  soft: { op: gaussianBlur, input: big, sigma: 20 }
  mask: { op: colorMatrix, input: soft, a: [2, 0, 0, 0] }
  black: { op: constant, like: frame, color: [0, 0, 0, 1] }
  lit: { op: blendWithMask, input: frame, background: black, mask: mask, maskChannel: alpha }
YAML
echo "per frame, 1920x1080 8-bit RGB in and out (median of 5 rounds of 60 frames); 16x16: a run apart from its pixels"
printf '%-12s %-8s %12s %12s\n' graph via "1080p ms" "16x16 ms"
for graph in contrast spotlight; do
    read -r full tiny < <("$WORK/per-frame" "$WORK/$graph.yaml" frame lit 1920 1080)
    printf '%-12s %-8s %12s %12s\n' "$graph" C "$full" "$tiny"
    read -r full tiny < <(PYTHONPATH="$ROOT/python" /usr/bin/python3 "$ROOT/Benchmarks/PerFrame/per-frame.py" \
        "$WORK/$graph.yaml" frame lit 1920 1080)
    printf '%-12s %-8s %12s %12s\n' "$graph" Python "$full" "$tiny"
done
echo "(load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores)"
