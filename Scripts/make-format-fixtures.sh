#!/usr/bin/env bash
# Makes Tests/TesseraIOTests/Fixtures/formats/: small WebP, GIF, HEIC and AVIF files for the libwebp,
# giflib and libheif decoders, each with a PNG reference made by another decoder (dwebp, vips gifload,
# heif-convert) or the exact source a lossless file was encoded from, plus truncated files and
# "bombs" (tiny files whose headers claim huge images) for the broken-file tests. See the README.md
# in that directory for what a decoder must do with each file.
#
# Pixel sources: the astronaut photo (NASA, public domain) shrunk to 64x64 and cropped to 61x47
# (odd sizes catch stride bugs) or 64x48, and metadata.jpg (made by make-metadata-fixtures.sh:
# Display P3 ICC "sP3C", EXIF Orientation 6, XMP creator "Tessera tests").
#
# Runs from anywhere; rewrites the same bytes every time with the tool versions in the README
# (x265 and aom were checked to be deterministic). Fails if any check below fails.
# Needs webp (cwebp, dwebp, webpmux, webpinfo), libvips-tools, libheif-examples (x265 for HEIC,
# aom for AVIF), libimage-exiftool-perl, and python3-numpy + python3-opencv for /usr/bin/python3.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
"$ROOT/Scripts/install-deps.sh" webp libvips-tools libheif-examples libimage-exiftool-perl \
    python3-numpy python3-opencv
PY=/usr/bin/python3 # the Debian python, which has numpy and cv2
OUT="$ROOT/Tests/TesseraIOTests/Fixtures/formats"
META="$ROOT/Tests/TesseraIOTests/Fixtures/metadata.jpg"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
w="$work/out"
mkdir -p "$w" "$OUT"

# Python helpers shared by the steps below: PNG comparison, and a minimal GIF reader (block walker +
# LZW decoder + frame compositing) used to check vips' references independently, to patch frame
# delays, and to find where the image data of a GIF lies.
cat >"$work/fx.py" <<'EOF'
import sys, cv2, numpy as np

def load(path):
    a = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if a is None:
        sys.exit(f"cannot read {path}")
    return a

def same(a_path, b_path, tol=0):
    a, b = load(a_path).astype(int), load(b_path).astype(int)
    if a.shape != b.shape:
        sys.exit(f"{a_path} {a.shape} != {b_path} {b.shape}")
    d = int(np.abs(a - b).max())
    if d > tol:
        sys.exit(f"{a_path} vs {b_path}: max difference {d} > {tol}")

def blocks(data):
    """Yields (kind, offset, info) for a GIF: 'gce' (offset of the 0x21 byte, delay offset at +4),
    'image' (descriptor offset, with the LZW data span). Sub-blocks are skipped properly."""
    assert data[:6] in (b"GIF87a", b"GIF89a")
    p = 13 + (3 * (2 << (data[10] & 7)) if data[10] & 0x80 else 0)
    while True:
        if data[p] == 0x3B:
            return
        if data[p] == 0x21:
            label, q = data[p + 1], p + 2
            if label == 0xF9:
                yield "gce", p, {"disposal": (data[p + 3] >> 2) & 7,
                                 "transparent": data[p + 6] if data[p + 3] & 1 else None}
            while data[q]:
                q += 1 + data[q]
            p = q + 1
        elif data[p] == 0x2C:
            x, y, fw, fh, flags = *np.frombuffer(data[p + 1:p + 9], "<u2"), data[p + 9]
            q = p + 10 + (3 * (2 << (flags & 7)) if flags & 0x80 else 0)
            lct = data[p + 10:q] if flags & 0x80 else None
            start, q = q + 1, q + 1
            while data[q]:
                q += 1 + data[q]
            yield "image", p, {"x": int(x), "y": int(y), "w": int(fw), "h": int(fh), "lct": lct,
                               "interlaced": bool(flags & 0x40), "mcs": data[start - 1],
                               "start": start, "end": q + 1}
            p = q + 1
        else:
            raise ValueError(f"bad GIF block 0x{data[p]:02x} at {p}")

def unblock(data, start, end):
    out, q = bytearray(), start
    while q < end and data[q]:
        out += data[q + 1:q + 1 + data[q]]
        q += 1 + data[q]
    return bytes(out)

def lzw(data, mcs):
    clear, eoi = 1 << mcs, (1 << mcs) + 1
    table = [bytes([i]) for i in range(clear)] + [b"", b""]
    size, prev, out, pos, val, code = mcs + 1, None, bytearray(), 0, int.from_bytes(data, "little"), None
    while pos + size <= len(data) * 8:
        code = (val >> pos) & ((1 << size) - 1)
        pos += size
        if code == clear:
            table, size, prev = table[:clear + 2], mcs + 1, None
            continue
        if code == eoi:
            break
        if prev is None:
            entry = table[code]
        else:
            entry = table[code] if code < len(table) else prev + prev[:1]
            if code > len(table):
                raise ValueError("bad LZW code")
            if len(table) < 4096:
                table.append(prev + entry[:1])
        out += entry
        prev = entry
        if len(table) == (1 << size) and size < 12:
            size += 1
    return bytes(out), code == eoi

def frames(path):
    """Composited RGBA frames (canvas starts transparent black, as in vips)."""
    data = open(path, "rb").read()
    sw, sh = np.frombuffer(data[6:10], "<u2")
    gct = data[13:13 + 3 * (2 << (data[10] & 7))] if data[10] & 0x80 else None
    canvas, gce, result = np.zeros((sh, sw, 4), np.uint8), {}, []
    for kind, _, info in blocks(data):
        if kind == "gce":
            gce = info
            continue
        assert gce.get("disposal", 0) in (0, 1) and not info["interlaced"]
        pal = np.frombuffer(info["lct"] or gct, np.uint8).reshape(-1, 3)
        idx, ended = lzw(unblock(data, info["start"], info["end"]), info["mcs"])
        assert ended and len(idx) == info["w"] * info["h"]
        idx = np.frombuffer(idx, np.uint8).reshape(info["h"], info["w"])
        rgba = np.dstack([pal[idx], np.full(idx.shape, 255, np.uint8)])
        keep = idx != gce["transparent"] if gce.get("transparent") is not None else np.ones(idx.shape, bool)
        region = canvas[info["y"]:info["y"] + info["h"], info["x"]:info["x"] + info["w"]]
        region[keep] = rgba[keep]
        result.append(canvas.copy())
        gce = {}
    return result

def check_gif(gif, *pngs):
    """The composited frames of gif must equal the vips references (RGB or RGBA; for RGBA,
    RGB under alpha 0 is ignored)."""
    fs = frames(gif)
    assert len(fs) >= len(pngs), (gif, len(fs))
    for f, png in zip(fs, pngs):
        ref = load(png)
        ref = cv2.cvtColor(ref, cv2.COLOR_BGRA2RGBA if ref.shape[2] == 4 else cv2.COLOR_BGR2RGB)
        mine = f if ref.shape[2] == 4 else f[..., :3]
        if ref.shape[2] == 4:
            mine, ref = mine * (mine[..., 3:] > 0), ref * (ref[..., 3:] > 0)
        if mine.shape != ref.shape or (mine != ref).any():
            sys.exit(f"{gif}: frame does not match {png}")
EOF
export PYTHONPATH="$work"

# --- sources ---------------------------------------------------------------------------------------
vips resize "$ROOT/Examples/images/astronaut.png" "$work/small.png" 0.125  # 64x64
vips crop "$work/small.png" "$work/crop61.png" 1 5 61 47
vips copy "$work/crop61.png" "$work/rgb61.png[strip]"                      # 61x47 RGB, no ICC/text
vips crop "$work/small.png" "$work/crop64.png" 0 8 64 48
vips copy "$work/crop64.png" "$work/rgb64.png[strip]"                      # 64x48 RGB
vips crop "$work/small.png" "$work/other.png" 3 14 61 47
vips invert "$work/other.png" "$work/frame1.png"                           # animation frame 2
vips flip "$work/rgb61.png" "$work/frame2.png" horizontal                  # animation frame 3
vips copy "$META" "$work/meta-pixels.png[strip]"                           # 64x48, stored orientation
"$PY" - "$work" <<'EOF'
import sys, cv2, numpy as np
d = sys.argv[1]
bgr = cv2.imread(f"{d}/rgb61.png", cv2.IMREAD_UNCHANGED)
h, w = bgr.shape[:2]
y, x = np.mgrid[0:h, 0:w]
# webp-alpha: a wavy ramp 0..255 across the image (231 distinct levels) and a fully transparent square.
a = np.clip(x * 255.0 / (w - 1) * 1.3 - 30 + 20 * np.sin(y / 3.0), 0, 255).round().astype(np.uint8)
a[10:20, 40:50] = 0
cv2.imwrite(f"{d}/rgba61.png", np.dstack([bgr, a]))
# gif-transparent: opaque, except a 28x22 rectangle and a disc of radius 8, which are transparent.
t = np.full((h, w), 255, np.uint8)
t[8:30, 12:40] = 0
t[(x - 48) ** 2 + (y - 36) ** 2 < 64] = 0
cv2.imwrite(f"{d}/transparent-src.png", np.dstack([bgr, t]))
EOF

# --- WebP ------------------------------------------------------------------------------------------
# webp-lossless / webp-alpha: lossless with -exact (keeps RGB under alpha 0); the PNG is the source.
cwebp -quiet -lossless -exact -metadata none "$work/rgb61.png" -o "$w/webp-lossless.webp"
cp "$work/rgb61.png" "$w/webp-lossless.png"
cwebp -quiet -lossless -exact -metadata none "$work/rgba61.png" -o "$w/webp-alpha.webp"
cp "$work/rgba61.png" "$w/webp-alpha.png"
for f in webp-lossless webp-alpha; do
    dwebp -quiet "$w/$f.webp" -o "$work/$f-check.png"
    "$PY" -c "import fx; fx.same('$w/$f.png', '$work/$f-check.png')"
done
# webp-lossy: cwebp -q 80; the reference is dwebp's decoding (RGB, default fancy upsampling).
cwebp -quiet -q 80 -metadata none "$work/rgb61.png" -o "$w/webp-lossy.webp"
dwebp -quiet "$w/webp-lossy.webp" -o "$w/webp-lossy-dwebp.png"
# webp-metadata: metadata.jpg's pixels (64x48, not rotated) at -q 80, with its ICC, EXIF and XMP added
# by webpmux. exiftool -b -EXIF gives the bare TIFF structure (II*\0...), which is what the WebP EXIF
# chunk holds; strip an "Exif\0\0" prefix in case another exiftool version adds one.
cwebp -quiet -q 80 -metadata none "$work/meta-pixels.png" -o "$work/meta-plain.webp"
exiftool -b -ICC_Profile "$META" >"$work/meta.icc"
exiftool -b -EXIF "$META" >"$work/meta.exif"
exiftool -b -XMP "$META" >"$work/meta.xmp"
"$PY" - "$work/meta.exif" <<'EOF'
import sys
p = sys.argv[1]
d = open(p, "rb").read()
if d.startswith(b"Exif\0\0"):
    d = d[6:]
assert d[:4] in (b"II*\0", b"MM\0*"), d[:8]
open(p, "wb").write(d)
EOF
log=$(webpmux -set icc "$work/meta.icc" "$work/meta-plain.webp" -o "$work/meta-icc.webp" 2>&1) || { echo "$log" >&2; exit 1; }
log=$(webpmux -set exif "$work/meta.exif" "$work/meta-icc.webp" -o "$work/meta-exif.webp" 2>&1) || { echo "$log" >&2; exit 1; }
log=$(webpmux -set xmp "$work/meta.xmp" "$work/meta-exif.webp" -o "$w/webp-metadata.webp" 2>&1) || { echo "$log" >&2; exit 1; }
tags=$(exiftool -s -s -s -ProfileDescription -Orientation -Creator "$w/webp-metadata.webp")
[ "$tags" = $'sP3C\nRotate 90 CW\nTessera tests' ] || { echo "webp-metadata.webp tags: $tags" >&2; exit 1; }

# --- GIF -------------------------------------------------------------------------------------------
# vips gifsave (cgif + libimagequant, no dithering). The references are vips gifload's output (libnsgif),
# checked against the small GIF reader in fx.py.
vips gifsave "$work/rgb61.png" "$w/gif-palette.gif" --dither 0 --strip
vips copy "$w/gif-palette.gif" "$w/gif-palette.png"                 # RGB
# RGBA source whose alpha is only 0 or 255: gifsave gives the transparent pixels one palette index,
# flagged in the graphic control extension; gifload gives RGBA with (0,0,0,0) there.
vips gifsave "$work/transparent-src.png" "$w/gif-transparent.gif" --dither 0 --strip
vips copy "$w/gif-transparent.gif" "$w/gif-transparent.png"         # RGBA
# Three 61x47 frames stacked vertically, saved with page-height. gifsave writes frames 2 and 3 with a
# transparent index for pixels equal to the previous frame (disposal "do not dispose"), so a decoder
# must composite. gifsave writes delay 0; set 100, 200, 300 ms (10/20/30 cs) in the GCEs.
vips arrayjoin "$work/rgb61.png $work/frame1.png $work/frame2.png" "$work/strip.v" --across 1
vips gifsave "$work/strip.v" "$work/animated.gif" --page-height 47 --dither 0 --strip
"$PY" - "$work/animated.gif" "$w/gif-animated.gif" <<'EOF'
import sys, fx
data = bytearray(open(sys.argv[1], "rb").read())
gces = [off for kind, off, _ in fx.blocks(bytes(data)) if kind == "gce"]
assert len(gces) == 3, gces
for n, off in enumerate(gces):
    data[off + 4:off + 6] = (10 * (n + 1)).to_bytes(2, "little")
open(sys.argv[2], "wb").write(data)
EOF
vips copy "$w/gif-animated.gif[page=1]" "$w/gif-animated-frame1.png"  # RGBA, alpha all 255
vips copy "$w/gif-animated.gif[page=2]" "$w/gif-animated-frame2.png"
vips copy "$w/gif-animated.gif[page=0]" "$work/gif-animated-frame0.png"
"$PY" - "$w" "$work" <<'EOF'
import sys, fx
w, work = sys.argv[1:]
fx.check_gif(f"{w}/gif-palette.gif", f"{w}/gif-palette.png")
fx.check_gif(f"{w}/gif-transparent.gif", f"{w}/gif-transparent.png")
assert (fx.load(f"{work}/transparent-src.png")[..., 3] == fx.load(f"{w}/gif-transparent.png")[..., 3]).all()
fx.check_gif(f"{w}/gif-animated.gif", f"{work}/gif-animated-frame0.png",
             f"{w}/gif-animated-frame1.png", f"{w}/gif-animated-frame2.png")
assert len(fx.frames(f"{w}/gif-animated.gif")) == 3
EOF

# --- HEIC / AVIF (libheif 1.15.1) ------------------------------------------------------------------
# heif-enc with x265 stores the 64x48 image as a 64x64 HEVC tile (4:2:0) inside a 1x1 "grid" item of
# 64x48, with no colr box. -A uses aom: an av01 item of 64x48, 4:2:0, nclx 2/2/6 full range.
heif-enc -q 90 "$work/rgb64.png" -o "$w/heic-rgb.heic" >/dev/null
heif-convert --quiet "$w/heic-rgb.heic" "$w/heic-rgb-ref.png"
heif-enc -A -q 90 "$work/rgb64.png" -o "$w/avif-rgb.avif" >/dev/null
heif-convert --quiet "$w/avif-rgb.avif" "$w/avif-rgb-ref.png"
# From the JPEG itself: heif-enc copies its EXIF (Orientation 6 unchanged), XMP and ICC profile
# (colr "prof"), keeps the stored 64x48 pixels and writes no irot/imir. heif-convert applies only
# irot/imir, so its output is the stored 64x48 image (it embeds the ICC profile in the PNG).
heif-enc -q 90 "$META" -o "$w/heic-orientation.heic" >/dev/null
heif-convert --quiet "$w/heic-orientation.heic" "$w/heic-orientation-ref.png"
tags=$(exiftool -s -s -s -ProfileDescription -Orientation -Creator "$w/heic-orientation.heic")
[ "$tags" = $'sP3C\nRotate 90 CW\nTessera tests' ] || { echo "heic-orientation.heic tags: $tags" >&2; exit 1; }

# --- broken files ----------------------------------------------------------------------------------
"$PY" - "$w" <<'EOF'
import sys, struct, fx
w = sys.argv[1]
def cut(src, dst, n):
    open(f"{w}/{dst}", "wb").write(open(f"{w}/{src}", "rb").read()[:n])
def half(src, dst):
    cut(src, dst, len(open(f"{w}/{src}", "rb").read()) // 2)
# webp-truncated: the first half of webp-lossy.webp (RIFF and VP8 sizes now point past the end).
half("webp-lossy.webp", "webp-truncated.webp")
# heic-truncated: the first half of heic-rgb.heic; the meta box is whole, mdat is cut.
half("heic-rgb.heic", "heic-truncated.heic")
# gif-truncated: gif-palette.gif cut in the middle of its LZW sub-blocks; no terminator, no trailer.
data = open(f"{w}/gif-palette.gif", "rb").read()
img = [i for k, _, i in fx.blocks(data) if k == "image"][0]
cut("gif-palette.gif", "gif-truncated.gif", (img["start"] + img["end"]) // 2)
# webp-bomb: simple-format lossless WebP, RIFF size 20, one VP8L chunk of 8 bytes: signature 0x2f,
# then 14 bits width-1 = 16382, 14 bits height-1 = 16382, alpha 0, version 0 (16383x16383, the
# largest size libwebp writes and vips accepts; 1 GiB as RGBA), then 3 zero bytes of "image data"
# (no transforms, no colour cache, then an invalid Huffman code: decoding must fail, not allocate).
bits = (16383 - 1) | ((16383 - 1) << 14)
vp8l = b"\x2f" + struct.pack("<I", bits) + b"\0\0\0"
chunk = b"VP8L" + struct.pack("<I", len(vp8l)) + vp8l
open(f"{w}/webp-bomb.webp", "wb").write(b"RIFF" + struct.pack("<I", 4 + len(chunk)) + b"WEBP" + chunk)
# gif-bomb: GIF89a, logical screen 65535x65535, 2-entry global palette (black, white), image descriptor
# at 0,0 of 65535x65535 (no local palette, not interlaced), LZW minimum code size 2 and one 2-byte
# sub-block holding 3-bit codes clear(4), 0, 1, end(5): two pixels of the 4294836225 claimed
# (16 GiB as RGBA), then the block terminator and the trailer.
gif = (b"GIF89a" + struct.pack("<HHBBB", 65535, 65535, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
       + b"\x2c" + struct.pack("<HHHHB", 0, 0, 65535, 65535, 0) + b"\x02" + b"\x02\x44\x0a" + b"\x00"
       + b"\x3b")
open(f"{w}/gif-bomb.gif", "wb").write(gif)
assert fx.lzw(b"\x44\x0a", 2) == (b"\x00\x01", True)
EOF
webpinfo -quiet "$w/webp-bomb.webp" >/dev/null  # a well-formed container with a valid VP8L header

# Every fixture is small; install them all at once.
for f in "$w"/*; do
    [ "$(stat -c %s "$f")" -le 30000 ] || { echo "$f is larger than 30 KB" >&2; exit 1; }
done
cp "$w"/* "$OUT/"
ls -l "$OUT"
