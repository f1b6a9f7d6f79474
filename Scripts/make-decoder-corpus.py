#!/usr/bin/python3
"""Write the decoder corpus of issue 37: damaged and unusual files, each with the pixels a reference
decoder (Pillow or libvips) reads from it, and hostile files: small files whose headers claim far more
than they hold.

Run from anywhere, with Debian's python (it has Pillow and numpy):

    /usr/bin/python3 Scripts/make-decoder-corpus.py [--libpng-git DIR]

Writes Tests/TesseraIOTests/Fixtures/corpus/ (the files, a .raw file of expected samples beside each,
and corpus.json, which says for each file its class, its reference decoder, the tolerance and the damage
it holds) and Tests/TesseraIOTests/Fixtures/hostile/. No Tessera code is used. Needs python3-pil,
python3-numpy, libtiff-tools (tiffcp, tiffset), imagemagick, webp (cwebp), libvips-tools,
libjpeg-turbo-progs (djpeg, to find a byte that gives "bad Huffman code"), libheif-examples (heif-convert)
and Ghostscript's sRGB profile (libgs-common, /usr/share/color/icc/ghostscript/srgb.icc). `refused` in
corpus.json lists files every failOn refuses, with the words of their one error line (AVIFs whose decoder
prints lines of its own). libpng's "crasher" PNGs are copied from a libpng git directory when one is
given (`--libpng-git`, e.g. a mirror of github.com/pnggroup/libpng): contrib/testpngs/crashers/huge_*.png,
57 bytes each; without one, the copies already in hostile/ are kept.

Damage levels (`damage` in corpus.json) are the lowest `failOn` that refuses the file: "warning" (a bad
CRC in an ancillary chunk, a bad ICC marker, a GIF without colors), "error" (data a decoder gets past: a
bad Huffman code, a bad CRC in the image data), "truncated" (the data ends before the image does);
"none" for files without damage. Expected samples are interleaved, row-major, uint8, or uint16
little-endian when `bits` is 16. `rows` (truncated files read past): the expected samples are the
undamaged picture's and `rows` is how many whole rows the reference decoder kept; a decoder must give a
prefix of the picture's rows, at least half as many, and rows of zeros (transparent black, or black) after
it.
"""

import argparse
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import PIL
from PIL import Image, ImageFile

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
FIXTURES = os.path.join(REPO, "Tests", "TesseraIOTests", "Fixtures")
CORPUS = os.path.join(FIXTURES, "corpus")
HOSTILE = os.path.join(FIXTURES, "hostile")
WORK = tempfile.mkdtemp(prefix="tessera-corpus-")


def run(*arguments, **keywords):
    return subprocess.run(list(arguments), check=True, capture_output=True, **keywords)


def version(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True)
        return (out.stdout + out.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


# MARK: Sources


def photo(width=64, height=48):
    """The astronaut photo (NASA, public domain), shrunk and cropped: real detail, so that data cut short
    loses rows."""
    image = Image.open(os.path.join(REPO, "Examples", "images", "astronaut.png")).convert("RGB")
    image = image.resize((width * 2, height * 2 * image.height // image.width), Image.Resampling.BOX)
    return np.asarray(image)[:height, :width].copy()


def noisy(width=64, height=48, seed=37):
    """A picture that hardly compresses: truncated files keep rows in proportion to their bytes."""
    rng = np.random.default_rng(seed)
    base = photo(width, height).astype(np.int16)
    return np.clip(base + rng.integers(-40, 40, base.shape), 0, 255).astype(np.uint8)


def png_bytes(array, **options):
    out = io.BytesIO()
    Image.fromarray(array).save(out, "PNG", **options)
    return out.getvalue()


def png_chunk(kind, payload, crc=None):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc if crc is not None else zlib.crc32(kind + payload))


def png_chunks(data):
    """(offset, type, length) of each chunk."""
    at, out = 8, []
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        out.append((at, kind, length))
        at += 12 + length
    return out


# MARK: GIF, written by hand: the layouts are what matter, so the frames are given exactly.


def lzw_literal(indices, bits=8):
    """GIF LZW data that codes each index as a literal, sending a clear code before the table would grow
    past the first code width: every decoder reads it, whatever its table handling."""
    clear, end = 1 << bits, (1 << bits) + 1
    width = bits + 1
    codes, since = [clear], 0
    for index in indices:
        if since == (1 << width) - (1 << bits) - 2:
            codes.append(clear)
            since = 0
        codes.append(int(index))
        since += 1
    codes.append(end)
    value = count = 0
    out = bytearray()
    for code in codes:
        value |= code << count
        count += width
        while count >= 8:
            out.append(value & 0xFF)
            value >>= 8
            count -= 8
    if count:
        out.append(value & 0xFF)
    blocks = b"".join(bytes([len(out[i : i + 255])]) + bytes(out[i : i + 255]) for i in range(0, len(out), 255))
    return bytes([bits]) + blocks + b"\0"


def gif(screen, frames, palette=None):
    """`frames`: dicts of left, top, indices (a 2-D array), interlaced, transparent (an index or None),
    disposal. `palette`: 256 RGB triples for a global table, or None for none."""
    width, height = screen
    flags = 0xF7 if palette is not None else 0x00
    out = b"GIF89a" + struct.pack("<HHBBB", width, height, flags, 0, 0)
    if palette is not None:
        out += bytes(np.asarray(palette, np.uint8).reshape(-1))
    for frame in frames:
        transparent = frame.get("transparent")
        packed = (frame.get("disposal", 1) << 2) | (1 if transparent is not None else 0)
        out += b"!\xf9\x04" + struct.pack("<BHB", packed, 10, transparent or 0) + b"\0"
        indices = np.asarray(frame["indices"])
        h, w = indices.shape
        rows = list(range(h))
        if frame.get("interlaced"):
            rows = list(range(0, h, 8)) + list(range(4, h, 8)) + list(range(2, h, 4)) + list(range(1, h, 2))
        out += b"," + struct.pack("<HHHHB", frame["left"], frame["top"], w, h, 0x40 if frame.get("interlaced") else 0)
        out += lzw_literal(indices[rows].reshape(-1))
    return out + b";"


def gif_palette():
    """256 colors: a 6x6x6 cube and grays."""
    cube = [(r * 51, g * 51, b * 51) for r in range(6) for g in range(6) for b in range(6)]
    return cube + [(i * 6, i * 6, i * 6) for i in range(256 - len(cube))]


def indices_of(array, palette):
    """Each pixel's nearest palette index."""
    pal = np.asarray(palette, np.int32)
    flat = array.reshape(-1, 3).astype(np.int32)
    return np.argmin(((flat[:, None, :] - pal[None, :, :]) ** 2).sum(-1), 1).reshape(array.shape[:2])


# MARK: WebP animations, assembled by hand around frames cwebp encoded (an encoder puts the first frame
# of a one-frame animation on the whole canvas; a file from the wild need not).


def riff(chunks):
    body = b"WEBP" + chunks
    return b"RIFF" + struct.pack("<I", len(body)) + body


def chunk(tag, data):
    return tag + struct.pack("<I", len(data)) + data + (b"\0" if len(data) % 2 else b"")


def u24(value):
    return value.to_bytes(3, "little")


def vp8l_frame(array):
    """The VP8L chunk payload of `array` (RGBA) encoded losslessly by cwebp."""
    path = os.path.join(WORK, "frame.png")
    Image.fromarray(array, "RGBA").save(path)
    run("cwebp", "-quiet", "-lossless", "-exact", path, "-o", path + ".webp")
    data = open(path + ".webp", "rb").read()
    assert data[12:16] == b"VP8L", "cwebp wrote a VP8L still"
    return data[20 : 20 + struct.unpack("<I", data[16:20])[0]]


def animated_webp(canvas, frames):
    """`frames`: (x, y, VP8L payload, width, height); x and y even."""
    width, height = canvas
    out = chunk(b"VP8X", bytes([0x12, 0, 0, 0]) + u24(width - 1) + u24(height - 1))
    out += chunk(b"ANIM", bytes([0, 0, 0, 0, 0, 0]))
    for x, y, payload, w, h in frames:
        header = u24(x // 2) + u24(y // 2) + u24(w - 1) + u24(h - 1) + u24(100) + bytes([0x02])  # no blending
        out += chunk(b"ANMF", header + chunk(b"VP8L", payload))
    return riff(out)


# MARK: TIFF


def tiff(width, height, bits, data, sample_format=1, samples=1, photometric=1, extra=None, planar=1, strip_rows=None,
         more=None):
    """A little-endian, uncompressed TIFF. `data` is the samples, row-major (the planes one after another
    when `planar` is 2, each plane one strip); rows are cut into strips of `strip_rows`; `more` adds
    entries, tag: (type, values). The directory and its arrays come first and the strips last, so cutting
    the file's end cuts only strips."""
    entries = {
        256: (4, [width]), 257: (4, [height]), 258: (3, [bits] * samples), 259: (3, [1]), 262: (3, [photometric]),
        277: (3, [samples]), 284: (3, [planar]), 339: (3, [sample_format] * samples),
    }
    if extra is not None:
        entries[338] = (3, [extra])
    entries.update(more or {})
    if planar == 2:
        sizes = [len(data) // samples] * samples
        entries[278] = (4, [height])
    else:
        strip_rows = strip_rows or height
        row_bytes = len(data) // height
        sizes = [row_bytes * min(strip_rows, height - y) for y in range(0, height, strip_rows)]
        entries[278] = (4, [strip_rows])
    entries[273] = (4, [0] * len(sizes))  # filled below
    entries[279] = (4, sizes)

    def layout(data_at):
        directory = struct.pack("<H", len(entries))
        extra_at = 8 + 2 + 12 * len(entries) + 4
        extra_bytes = b""
        offsets = [data_at + sum(sizes[:i]) for i in range(len(sizes))]
        for tag in sorted(entries):
            kind, values = entries[tag]
            values = offsets if tag == 273 else values
            packed = b"".join(struct.pack("<H" if kind == 3 else "<I", v) for v in values)
            if len(packed) <= 4:
                field = packed.ljust(4, b"\0")
            else:
                field = struct.pack("<I", extra_at + len(extra_bytes))
                extra_bytes += packed
            directory += struct.pack("<HHI", tag, kind, len(values)) + field
        return directory + struct.pack("<I", 0) + extra_bytes

    head = b"II*\0" + struct.pack("<I", 8)
    data_at = len(head) + len(layout(0))
    return head + layout(data_at) + data


def pack12(values):
    """12-bit samples, two in three bytes, most significant bits first (rows are whole bytes: even widths)."""
    flat = np.asarray(values, np.uint16).reshape(-1)
    out = bytearray()
    for i in range(0, len(flat), 2):
        a, b = int(flat[i]), int(flat[i + 1])
        out += bytes([a >> 4, (a & 15) << 4 | b >> 8, b & 255])
    return bytes(out)


# MARK: References


def pillow(path, mode):
    image = Image.open(path)
    image.load()  # a TIFF's orientation is applied on load
    return np.asarray(image.convert(mode))


def vips_png(path, bits=8, crop=None):
    """libvips' reading of `path`, saved as a PNG of `bits` bits and read back. `crop` (width, height)
    keeps the top-left of it: libvips grows a GIF's screen to fit a frame that passes its edges, where
    Tessera, browsers and giflib's viewers keep the screen."""
    out = os.path.join(WORK, "vips.png")
    run("vips", "pngsave", path, out, "--bitdepth", str(bits))
    array = png_array(out)
    return array[: crop[1], : crop[0]] if crop else array


def png_array(path):
    """A PNG's samples, 16-bit ones too (Pillow reads 16-bit RGB and RGBA PNGs as 8-bit)."""
    if open(path, "rb").read()[24] == 16:
        return read_png16(path)
    return np.asarray(Image.open(path))


def read_png16(path):
    """A 16-bit, non-interlaced PNG's samples, by hand (Pillow has no 16-bit RGB mode)."""
    data = open(path, "rb").read()
    width, height, depth, color = struct.unpack(">IIBB", data[16:26])
    channels = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    assert depth == 16
    raw = zlib.decompress(b"".join(data[at + 8 : at + 8 + n] for at, kind, n in png_chunks(data) if kind == b"IDAT"))
    stride = width * channels * 2
    out = np.zeros((height, stride), np.int32)
    previous = np.zeros(stride, np.int32)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        row = np.frombuffer(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)], np.uint8).astype(np.int32)
        line = np.zeros(stride, np.int32)
        for i in range(stride):
            a = line[i - 2 * channels] if i >= 2 * channels else 0
            b = previous[i]
            c = previous[i - 2 * channels] if i >= 2 * channels else 0
            if kind == 0:
                p = 0
            elif kind == 1:
                p = a
            elif kind == 2:
                p = b
            elif kind == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[i] = (row[i] + p) & 255
        out[y] = line
        previous = line
    samples = (out[:, 0::2] << 8 | out[:, 1::2]).astype(np.uint16)
    return samples.reshape(height, width, channels) if channels > 1 else samples.reshape(height, width)


def whole_rows(a, b):
    """How many rows from the top of `a` equal `b`'s."""
    rows = 0
    while rows < a.shape[0] and np.array_equal(a[rows], b[rows]):
        rows += 1
    return rows


# MARK: The corpus

ENTRIES = []
HOSTILE_ENTRIES = []
REFUSED = []


def add(name, data, expected, what, reference, tolerance, damage="none", warning=None, rows=None, canvas=None):
    with open(os.path.join(CORPUS, name), "wb") as f:
        f.write(data)
    expected = np.asarray(expected)
    bits = 16 if expected.dtype == np.uint16 else 8
    height, width = expected.shape[:2]
    channels = 1 if expected.ndim == 2 else expected.shape[2]
    raw = name.rsplit(".", 1)[0] + ".raw"
    with open(os.path.join(CORPUS, raw), "wb") as f:
        f.write(expected.astype("<u2" if bits == 16 else np.uint8).tobytes())
    entry = {
        "file": name, "what": what, "reference": reference, "expected": raw, "width": width, "height": height,
        "channels": channels, "bits": bits, "tolerance": tolerance, "damage": damage,
    }
    if warning:
        entry["warning"] = warning
    if rows is not None:
        entry["rows"] = rows
    if canvas is not None:
        entry["frame"] = canvas  # [x, y, width, height]: outside it the canvas is transparent
    ENTRIES.append(entry)
    print(f"{name}: {len(data)} bytes, {damage}")


def hostile(name, data, what, claims):
    with open(os.path.join(HOSTILE, name), "wb") as f:
        f.write(data)
    HOSTILE_ENTRIES.append({"file": name, "what": what, "claims": claims})
    print(f"hostile/{name}: {len(data)} bytes")


def refused(name, data, what, error):
    """A file every failOn refuses, with the words its one error line holds."""
    with open(os.path.join(CORPUS, name), "wb") as f:
        f.write(data)
    REFUSED.append({"file": name, "what": what, "error": error})
    print(f"{name}: {len(data)} bytes, refused")


def heif_printing_cases():
    """AVIFs whose decoder prints lines of its own (dav1d's, through libheif): the avif-rgb.avif fixture
    with bytes changed as Python's random, seeded, says; heif-convert shows what the decoder prints."""
    import random

    original = open(os.path.join(FIXTURES, "formats", "avif-rgb.avif"), "rb").read()

    def mutated(seed):
        random.seed(seed)
        data = bytearray(original)
        for _ in range(random.choice([1, 2, 4, 16])):
            at = random.randrange(262 if seed % 2 else 30, len(data))
            data[at] ^= random.randrange(1, 256)
        return bytes(data)

    def printed(data):
        path = os.path.join(WORK, "printing.avif")
        open(path, "wb").write(data)
        result = subprocess.run(["heif-convert", path, path + ".png"], capture_output=True, text=True)
        return result.returncode, result.stdout + result.stderr, path + ".png"

    data = mutated(105)
    status, text, out = printed(data)
    assert status == 0 and "Unknown OBU type 8 of size 0" in text, text
    add("avif-decoder-prints.avif", data, np.asarray(Image.open(out).convert("RGB")),
        "an AVIF whose decoder prints 'Unknown OBU type 8 of size 0' and decodes", "heif-convert (libheif)", 0,
        "warning", "Unknown OBU type 8 of size 0")
    for seed, words in ((124, "Unknown OBU type 12"), (132, "Error parsing OBU data")):
        data = mutated(seed)
        status, text, _ = printed(data)
        assert status != 0 and words in text, text
        refused(f"avif-decoder-fails-{seed}.avif", data, f"an AVIF whose decoder prints '{words}' and fails",
                f"(the decoder said: {words}")


def icc_cases():
    """A JPEG whose embedded profile Little CMS opens but cannot convert from: its tag table points past
    its end. The pixels are Pillow's (which ignores the profile); the profile is dropped with a warning."""
    profile = bytearray(open("/usr/share/color/icc/ghostscript/srgb.icc", "rb").read())
    count = int.from_bytes(profile[128:132], "big")
    for i in range(count):
        profile[136 + 12 * i : 140 + 12 * i] = (0x7FFF0000).to_bytes(4, "big")
    out = io.BytesIO()
    Image.fromarray(photo()).save(out, "JPEG", quality=90, icc_profile=bytes(profile))
    path = os.path.join(WORK, "icc.jpg")
    open(path, "wb").write(out.getvalue())
    add("jpeg-icc-broken-tags.jpg", out.getvalue(), pillow(path, "RGB"),
        "an sRGB profile whose tags point past its end: Little CMS opens it and cannot convert from it",
        "Pillow", 1, "warning", "the embedded ICC profile cannot be read")


def jpeg_cases():
    source = photo()
    out = io.BytesIO()
    Image.fromarray(source).save(out, "JPEG", quality=90)
    jpeg = bytearray(out.getvalue())
    # A byte in the scan whose change makes libjpeg say "bad Huffman code" (and nothing else).
    sos = jpeg.index(b"\xff\xda")
    start = sos + 2 + int.from_bytes(jpeg[sos + 2 : sos + 4], "big")
    damaged = None
    for position in range(start + 16, len(jpeg) - 8):
        for value in (0x00, 0x55, 0xAA):
            if jpeg[position] == value:
                continue
            trial = bytearray(jpeg)
            trial[position] = value
            result = subprocess.run(["djpeg", "-outfile", "/dev/null"], input=bytes(trial), capture_output=True)
            message = result.stderr.decode().strip()
            if result.returncode == 2 and message == "Corrupt JPEG data: bad Huffman code":
                damaged = bytes(trial)
                break
        if damaged:
            break
    assert damaged, "no single byte gave a bad Huffman code"
    path = os.path.join(WORK, "huffman.jpg")
    open(path, "wb").write(damaged)
    add("jpeg-bad-huffman.jpg", damaged, pillow(path, "RGB"),
        "a byte of the scan changed: libjpeg warns 'bad Huffman code' and decodes on", "Pillow", 1,
        "error", "Corrupt JPEG data: bad Huffman code")

    # An APP2 ICC_PROFILE marker saying it is 1 of 2, with no second: libjpeg's jpeg_read_icc_profile warns.
    app0 = 4 + int.from_bytes(jpeg[4:6], "big")
    payload = b"ICC_PROFILE\0" + bytes([1, 2]) + bytes(128)
    bad_icc = bytes(jpeg[:app0]) + b"\xff\xe2" + (len(payload) + 2).to_bytes(2, "big") + payload + bytes(jpeg[app0:])
    path = os.path.join(WORK, "icc.jpg")
    open(path, "wb").write(bad_icc)
    add("jpeg-bad-icc.jpg", bad_icc, pillow(path, "RGB"),
        "an ICC_PROFILE marker 1 of 2 with no second: the profile is dropped, the pixels are whole", "Pillow", 1,
        "warning", "Corrupt JPEG data: bad ICC marker")

    # Cut in the scan: libjpeg fills the rest with gray, as libvips (fail_on none) shows it.
    cut = bytes(jpeg[: start + (len(jpeg) - start) * 2 // 3])
    path = os.path.join(WORK, "cut.jpg")
    open(path, "wb").write(cut)
    add("jpeg-truncated.jpg", cut, vips_png(path),
        "cut two thirds into the scan: libjpeg fills the rest gray", "libvips (fail_on none)", 1,
        "truncated", "Premature end of JPEG file")


def png_cases():
    source = photo()
    png = png_bytes(source)
    chunks = png_chunks(png)
    idat = next(at for at, kind, n in chunks if kind == b"IDAT")
    text = png_chunk(b"tEXt", b"Comment\0a damaged note", crc=0x12345678)
    damaged = png[:idat] + text + png[idat:]
    add("png-bad-text-crc.png", damaged, source,
        "a tEXt chunk with a bad CRC before the image data: libpng drops it with a warning", "Pillow, of the "
        "file before the damage (Pillow refuses it)", 0, "warning", "tEXt: CRC error")

    at, kind, length = next(c for c in chunks if c[1] == b"IDAT")
    crc_at = at + 8 + length
    bad = bytearray(png)
    bad[crc_at] ^= 0xFF
    path = os.path.join(WORK, "idat.png")
    open(path, "wb").write(bad)
    add("png-bad-idat-crc.png", bytes(bad), pillow(path, "RGB"),
        "the image data's CRC wrong, its data whole: read with a warning, as libvips does", "Pillow", 0,
        "error", "IDAT: CRC error")

    rough = noisy()
    png = png_bytes(rough, compress_level=9)
    cut = png[: len(png) * 2 // 3]
    ImageFile.LOAD_TRUNCATED_IMAGES = True
    path = os.path.join(WORK, "cut.png")
    open(path, "wb").write(cut)
    reference = pillow(path, "RGB")
    ImageFile.LOAD_TRUNCATED_IMAGES = False
    rows = whole_rows(reference, rough)
    assert rows > 8 and (reference[rows:] == 0).all(), "Pillow keeps the whole rows and leaves the rest black"
    add("png-truncated.png", cut, rough,
        "a noisy picture cut at two thirds of its bytes: the rows before the cut, black after", "Pillow "
        "(LOAD_TRUNCATED_IMAGES)", 0, "truncated", "the file ends early", rows=rows)


def gif_cases():
    palette = gif_palette()
    source = photo()
    indices = indices_of(source, palette)
    colors = np.asarray(palette, np.uint8)

    # No color table at all: Pillow reads the indices as gray levels.
    data = gif((64, 48), [{"left": 0, "top": 0, "indices": indices}], palette=None)
    path = os.path.join(WORK, "nocolors.gif")
    open(path, "wb").write(data)
    add("gif-no-colors.gif", data, pillow(path, "RGB"),
        "a frame with no color table, none global either: gray levels, as Pillow shows it", "Pillow", 0,
        "warning", "has no color table")

    # Cut in the image data: the rows decoded are drawn, the rest stays transparent (libvips' libnsgif).
    whole = gif((64, 48), [{"left": 0, "top": 0, "indices": indices}], palette)
    cut = whole[: len(whole) * 3 // 5]
    path = os.path.join(WORK, "cut.gif")
    open(path, "wb").write(cut)
    whole_frame = np.dstack([colors[indices], np.full(indices.shape, 255, np.uint8)])
    reference = vips_png(path)
    rows = whole_rows(reference, whole_frame)
    assert rows > 4 and (reference[rows + 1 :] == 0).all(), "libvips draws the rows it has, the rest transparent"
    add("gif-truncated.gif", cut, whole_frame,
        "cut at three fifths, in its image data: the rows before the cut drawn, the rest transparent",
        "libvips (fail_on none)", 0, "truncated", "the file ends early", rows=rows)

    # Frames smaller than the screen, or passing its edges: outside them the screen is transparent.
    small = indices[10:30, 20:50]
    data = gif((64, 48), [{"left": 30, "top": 20, "indices": small}], palette)
    path = os.path.join(WORK, "offset.gif")
    open(path, "wb").write(data)
    add("gif-frame-offset.gif", data, vips_png(path),
        "one 30x20 frame at (30, 20) of a 64x48 screen", "libvips", 0, canvas=[30, 20, 30, 20])

    tall = np.vstack([indices, indices, indices])[:, 5:45]
    data = gif((64, 48), [{"left": 10, "top": 4, "indices": tall}], palette)
    path = os.path.join(WORK, "tall.gif")
    open(path, "wb").write(data)
    add("gif-frame-taller.gif", data, vips_png(path, crop=(64, 48)),
        "a 40x144 frame at (10, 4) of a 64x48 screen: the rows below the screen are never shown", "libvips", 0,
        canvas=[10, 4, 40, 44])

    wide = np.hstack([indices, indices])[:40]
    data = gif((64, 48), [{"left": 34, "top": 12, "indices": wide, "interlaced": True}], palette)
    path = os.path.join(WORK, "interlaced.gif")
    open(path, "wb").write(data)
    add("gif-interlaced-offscreen.gif", data, vips_png(path, crop=(64, 48)),
        "an interlaced 128x40 frame at (34, 12): it passes the screen's right and bottom edges", "libvips", 0,
        canvas=[34, 12, 30, 36])


def tiff_cases():
    # Fax images (CCITT G4, bilevel) in each orientation, made from one upright picture: tiffcp compresses,
    # the stored pixels are the upright ones turned back, and Orientation says how to turn them.
    upright = photo(40, 24).mean(2) > 110
    turns = {
        2: lambda a: a[:, ::-1], 3: lambda a: a[::-1, ::-1], 4: lambda a: a[::-1], 5: lambda a: a.T,
        6: lambda a: np.rot90(a, 1), 7: lambda a: np.rot90(a.T, 2), 8: lambda a: np.rot90(a, -1),
    }
    for orientation in range(2, 9):
        stored = turns[orientation](upright)
        path = os.path.join(WORK, f"fax{orientation}.tif")
        Image.fromarray(stored).save(path)
        run("tiffcp", "-c", "g4", path, path + ".g4")
        run("tiffset", "-s", "274", str(orientation), path + ".g4")
        reference = pillow(path + ".g4", "L")
        assert np.array_equal(reference > 127, upright), f"Pillow turns orientation {orientation} upright"
        add(f"tiff-g4-orientation-{orientation}.tif", open(path + ".g4", "rb").read(), reference,
            f"a bilevel CCITT G4 fax with TIFF Orientation {orientation}", "Pillow", 0)

    # 12-bit gray: Pillow gives the 12-bit values; expected are they scaled to 16 bits (v * 65535 / 4095).
    rng = np.random.default_rng(12)
    values = rng.integers(0, 4096, (24, 40)).astype(np.uint16)
    values[0, :4] = [0, 4095, 2048, 1]
    data = tiff(40, 24, 12, pack12(values))
    path = os.path.join(WORK, "twelve.tif")
    open(path, "wb").write(data)
    read = np.asarray(Image.open(path)).astype(np.uint32)
    assert np.array_equal(read, values), "Pillow reads the 12-bit values"
    add("tiff-12bit.tif", data, ((read * 65535 + 2047) // 4095).astype(np.uint16),
        "12-bit gray, uncompressed: scaled to 16 bits by 65535 / 4095", "Pillow (the 12-bit values)", 1)

    # 32-bit unsigned gray: libvips reads the values; expected are they scaled to 16 bits by 65535 / (2^32 - 1).
    values = (rng.integers(0, 2**32, (24, 40), dtype=np.uint64)).astype(np.uint32)
    values[0, :3] = [0, 2**32 - 1, 2**31]
    data = tiff(40, 24, 32, values.astype("<u4").tobytes())
    path = os.path.join(WORK, "u32.tif")
    open(path, "wb").write(data)
    out = os.path.join(WORK, "u32.v.png")
    run("vips", "linear", path, out + ".v", str(65535 / 4294967295), "0.5")
    run("vips", "cast", out + ".v", out + ".u.v", "ushort")
    add("tiff-32bit.tif", data, vips_png(out + ".u.v", 16),
        "32-bit unsigned gray: scaled to 0...1 by 2^32 - 1 (compared at 16 bits)", "libvips (vips linear)", 1)

    # 16-bit CMYK (InkSet CMYK, ink amounts): Pillow's CMYK to RGB, (1 - c)(1 - k).
    cmyk = np.asarray(Image.fromarray(photo(40, 24)).convert("CMYK")).astype(np.uint16) * 257
    cmyk[0, 0] = [65535, 0, 0, 0]
    data = tiff(40, 24, 16, cmyk.astype("<u2").tobytes(), samples=4, photometric=5)
    path = os.path.join(WORK, "cmyk.tif")
    open(path, "wb").write(data)
    add("tiff-cmyk16.tif", data, pillow(path, "RGB"), "16-bit CMYK, uncompressed", "Pillow (CMYK to RGB)", 1)

    # 16-bit RGB with associated (premultiplied) alpha in separate planes.
    rgb = photo(40, 24).astype(np.float64) / 255
    alpha = np.linspace(0, 1, 40)[None, :].repeat(24, 0)
    alpha[:, :3] = 0
    premultiplied = np.dstack([rgb * alpha[..., None], alpha])
    samples = np.round(premultiplied * 65535).astype(np.uint16)
    planes = np.moveaxis(samples, 2, 0)
    data = tiff(40, 24, 16, planes.astype("<u2").tobytes(), samples=4, photometric=2, extra=1, planar=2)
    path = os.path.join(WORK, "planar.tif")
    open(path, "wb").write(data)
    add("tiff-planar16-assoc.tif", data, vips_png(path, 16),
        "16-bit RGB with associated alpha in separate planes: alpha divided out", "libvips", 2)

    # Cut in its strips: strips that fail are black. The directory comes first, so the cut leaves it whole.
    rough = noisy()
    whole = tiff(64, 48, 8, rough.tobytes(), samples=3, photometric=2, strip_rows=8)
    strip = 64 * 3 * 8
    cut = whole[: len(whole) - 2 * strip - strip // 2]  # in the fourth of six strips
    path = os.path.join(WORK, "whole.tif")
    open(path, "wb").write(whole)
    reference = pillow(path, "RGB")
    assert np.array_equal(reference, rough)
    # libvips (fail_on none) fails on it ("tiff2vips: read error") and Pillow refuses it: the strips before
    # the cut are compared with Pillow's reading of the whole file.
    add("tiff-truncated.tif", cut, reference,
        "six strips of 8 rows, cut in the fourth: the strips before it whole, the rest black", "Pillow, of the "
        "file before the cut", 0, "truncated", "Read error", rows=24)


def tiff_warning_cases():
    # A private tag libtiff does not know: it warns ("Unknown field with tag 65000") and reads the image,
    # as Pillow does. libvips prints the warning and reads the file at every fail_on (its TIFF loader
    # does not count libtiff's warnings); failOn: warning refuses it, as "anything a decoder notices".
    picture = noisy()
    data = tiff(64, 48, 8, picture.tobytes(), samples=3, photometric=2, more={65000: (3, [7])})
    path = os.path.join(WORK, "unknown-tag.tif")
    open(path, "wb").write(data)
    reference = pillow(path, "RGB")
    assert np.array_equal(reference, picture)
    printed = subprocess.run(["vips", "copy", path, path + ".v"], capture_output=True, text=True).stderr
    assert "Unknown field with tag 65000" in printed, printed
    add("tiff-unknown-tag.tif", data, reference, "an RGB TIFF with a private tag libtiff does not know", "Pillow",
        0, "warning", "Unknown field with tag")


def webp_cases():
    source = photo()
    rgba = np.dstack([source, np.full(source.shape[:2], 255, np.uint8)])
    # One frame smaller than its canvas: the rest of the canvas transparent.
    frame = rgba[20:28, 30:40]
    data = animated_webp((64, 48), [(30, 20, vp8l_frame(frame), 10, 8)])
    path = os.path.join(WORK, "one.webp")
    open(path, "wb").write(data)
    add("webp-anim-one-small-frame.webp", data, pillow(path, "RGBA"),
        "an animation of one 10x8 frame at (30, 20) on a 64x48 canvas", "Pillow", 0, canvas=[30, 20, 10, 8])
    # Two frames, the first a part of the canvas: the first is read.
    data = animated_webp((64, 48), [(4, 6, vp8l_frame(rgba[6:30, 4:40]), 36, 24), (0, 0, vp8l_frame(rgba), 64, 48)])
    path = os.path.join(WORK, "two.webp")
    open(path, "wb").write(data)
    add("webp-anim-first-frame-part.webp", data, pillow(path, "RGBA"),
        "an animation whose first frame is 36x24 at (4, 6) of a 64x48 canvas", "Pillow", 0, canvas=[4, 6, 36, 24])


def hostile_cases(libpng):
    one_pixel = vp8l_frame(np.array([[[255, 0, 0, 255]]], np.uint8))
    hostile("webp-anim-16383.webp", animated_webp((16383, 16383), [(0, 0, one_pixel, 1, 1)] * 2),
            "an animation of two 1x1 frames on a 16383x16383 canvas", "3 GiB: libwebp's canvas and previous frame")
    hostile("webp-anim1-16383.webp", animated_webp((16383, 16383), [(0, 0, one_pixel, 1, 1)]),
            "an animation of one 1x1 frame on a 16383x16383 canvas", "3 GiB")
    # A VP8L header of 16383x16383 over the 1x1 image's codes (one symbol each): a valid image of one color.
    header = bytearray(one_pixel)
    bits = (16383 - 1) | (16383 - 1) << 14 | 1 << 28
    header[1:5] = bits.to_bytes(4, "little")
    hostile("webp-vp8l-16383.webp", riff(chunk(b"VP8L", bytes(header))),
            "a lossless 16383x16383 image of one color in 36 bytes", "1.7 GiB")
    palette = bytes([0, 0, 0, 255, 255, 255])
    lzw = b"\x02\x02\x44\x01\x00"  # clear, 0, end: one pixel

    def tiny_gif(screen, frame):
        return (b"GIF89a" + struct.pack("<HHBBB", *screen, 0x80, 0, 0) + palette + b","
                + struct.pack("<HHHHB", 0, 0, *frame, 0) + lzw + b";")

    hostile("gif-screen-30000x20000.gif", tiny_gif((30000, 20000), (1, 1)),
            "a 30000x20000 screen holding one pixel", "4.5 GiB: the screen, kept and as RGBA")
    hostile("gif-frame-65535-on-1x1.gif", tiny_gif((1, 1), (65535, 65535)),
            "a 65535x65535 frame of two bytes of data over a 1x1 screen", "4 G pixels to decode")
    # The same frame with data for its first 4000 rows (an LZW run of index 0 at 4091 pixels a code): before,
    # every row was decoded; rows below the 1x1 screen are now skipped.
    hostile("gif-frame-65535-data.gif", gif_run((1, 1), (65535, 65535), 4000 * 65535),
            "a 65535x65535 frame over a 1x1 screen with 262 million pixels of data", "262 M pixels decoded")
    for kind, source in (("heic", "heic-rgb.heic"), ("avif", "avif-rgb.avif")):
        hostile(f"grid-128-{kind}.{kind}", heif_grid(os.path.join(FIXTURES, "formats", source), 128, 128),
                f"a {kind.upper()} grid of 128x128 cells, every one the same 64-pixel tile", "450 MiB")
    if libpng:
        names = run("git", "--git-dir", libpng, "ls-tree", "--name-only", "HEAD", "contrib/testpngs/crashers/").stdout
        for path in names.decode().split():
            name = os.path.basename(path)
            if name.startswith("huge_") and name != "huge_IDAT.png":
                data = run("git", "--git-dir", libpng, "show", f"HEAD:{path}").stdout
                hostile("libpng-" + name, data, "libpng's crasher: an ancillary chunk claiming 1 GiB",
                        "1 GiB allocated and zeroed")
    else:
        for name in sorted(os.listdir(HOSTILE)):
            if name.startswith("libpng-"):
                HOSTILE_ENTRIES.append({"file": name, "what": "libpng's crasher: an ancillary chunk claiming 1 GiB",
                                        "claims": "1 GiB allocated and zeroed"})


def gif_run(screen, frame, pixels):
    """A GIF whose one frame's data is `pixels` pixels of index 0, coded as LZW strings of growing
    length (min code size 2), then the longest string again and again."""
    bits = 2
    clear, end = 4, 5
    codes, lengths = [clear, 0], [0, 1]
    next_code, width = 6, 3
    total, length = 1, 1
    out_codes = [clear, 0]
    # Each new code is the previous string plus one pixel (the decoder's KwKwK case), up to 4095.
    while next_code <= 4095 and total < pixels:
        out_codes.append(next_code)
        length += 1
        total += length
        next_code += 1
    longest = next_code - 1
    while total + length <= pixels:
        out_codes.append(longest)
        total += length
    # The rest: code c (from 6) is a string of c - 4 pixels, code 0 one pixel.
    if pixels - total >= 2:
        out_codes.append(pixels - total + 4)
    elif pixels - total == 1:
        out_codes.append(0)
    out_codes.append(end)
    # giflib widens its codes one code late: after reading a code, when the next free code passes 2^width.
    value = count = 0
    data = bytearray()
    running, width, limit = 6, 3, 8
    for i, code in enumerate(out_codes):
        value |= code << count
        count += width
        while count >= 8:
            data.append(value & 0xFF)
            value >>= 8
            count -= 8
        if i >= 1 and code != clear:
            if running < 4097:
                running += 1
            if running > limit and width < 12:
                limit <<= 1
                width += 1
    if count:
        data.append(value & 0xFF)
    blocks = b"".join(bytes([len(data[i : i + 255])]) + bytes(data[i : i + 255]) for i in range(0, len(data), 255))
    return (b"GIF89a" + struct.pack("<HHBBB", *screen, 0x80, 0, 0) + bytes([0, 0, 0, 255, 255, 255]) + b","
            + struct.pack("<HHHHB", 0, 0, *frame, 0) + bytes([bits]) + blocks + b"\0;")


def heif_grid(path, rows, columns):
    """A HEIF whose primary item is a grid of `rows` x `columns` cells, each the coded tile of `path`."""
    data = open(path, "rb").read()

    def children(start, end):
        out = {}
        while start < end:
            size, kind = struct.unpack(">I4s", data[start : start + 8])
            out.setdefault(kind, []).append((start, size))
            start += size
        return out

    top = children(0, len(data))
    meta_at, meta_size = top[b"meta"][0]
    meta = children(meta_at + 12, meta_at + meta_size)
    iprp_at, iprp_size = meta[b"iprp"][0]
    ipco_at, ipco_size = children(iprp_at + 8, iprp_at + iprp_size)[b"ipco"][0]
    ipco = children(ipco_at + 8, ipco_at + ipco_size)
    config_kind = b"hvcC" if b"hvcC" in ipco else b"av1C"
    at, size = ipco[config_kind][0]
    config = data[at : at + size]
    item = b"hvc1" if config_kind == b"hvcC" else b"av01"
    at, _ = ipco[b"ispe"][0]
    tile_width, tile_height = struct.unpack(">II", data[at + 12 : at + 20])
    # The coded item: the iloc extent with construction method 0.
    iloc_at, _ = meta[b"iloc"][0]
    p = iloc_at + 8
    version = data[p]
    p += 4
    offset_size, length_size = data[p] >> 4, data[p] & 15
    base_size, index_size = data[p + 1] >> 4, (data[p + 1] & 15) if version in (1, 2) else 0
    p += 2
    count = struct.unpack(">H", data[p : p + 2])[0]
    p += 2
    coded = None
    for _ in range(count):
        p += 2
        method = 0
        if version in (1, 2):
            method = struct.unpack(">H", data[p : p + 2])[0] & 15
            p += 2
        p += 2
        base = int.from_bytes(data[p : p + base_size], "big")
        p += base_size
        extents = struct.unpack(">H", data[p : p + 2])[0]
        p += 2
        for _ in range(extents):
            p += index_size
            offset = int.from_bytes(data[p : p + offset_size], "big")
            p += offset_size
            length = int.from_bytes(data[p : p + length_size], "big")
            p += length_size
            if method == 0:
                coded = data[base + offset : base + offset + length]

    def box(kind, payload):
        return struct.pack(">I", 8 + len(payload)) + kind + payload

    def full(kind, version, flags, payload):
        return box(kind, bytes([version]) + flags.to_bytes(3, "big") + payload)

    width, height = columns * tile_width, rows * tile_height
    brand = b"heic" if item == b"hvc1" else b"avif"
    ftyp = box(b"ftyp", brand + b"\0\0\0\0mif1" + brand + b"miaf")
    grid_data = bytes([0, 0, rows - 1, columns - 1]) + struct.pack(">HH", width, height)
    parts = [
        full(b"hdlr", 0, 0, b"\0\0\0\0pict" + bytes(13)),
        full(b"pitm", 0, 0, struct.pack(">H", 2)),
        None,  # iloc, once the data's offset is known
        full(b"iinf", 0, 0, struct.pack(">H", 2) + full(b"infe", 2, 1, struct.pack(">HH", 1, 0) + item + b"\0")
             + full(b"infe", 2, 0, struct.pack(">HH", 2, 0) + b"grid\0")),
        box(b"iprp", box(b"ipco", config + full(b"ispe", 0, 0, struct.pack(">II", tile_width, tile_height))
                         + full(b"ispe", 0, 0, struct.pack(">II", width, height)))
            + full(b"ipma", 0, 0, struct.pack(">IHB", 2, 1, 2) + bytes([0x81, 2]) + struct.pack(">HB", 2, 1) + bytes([3]))),
        full(b"iref", 0, 0, box(b"dimg", struct.pack(">HH", 2, rows * columns) + struct.pack(">H", 1) * (rows * columns))),
        box(b"idat", grid_data),
    ]

    def assemble(data_at):
        parts[2] = full(b"iloc", 1, 0, bytes([0x44, 0x00]) + struct.pack(">H", 2)
                        + struct.pack(">HHHH", 1, 0, 0, 1) + struct.pack(">II", data_at, len(coded))
                        + struct.pack(">HHHH", 2, 1, 0, 1) + struct.pack(">II", 0, len(grid_data)))
        return full(b"meta", 0, 0, b"".join(parts))

    data_at = len(ftyp) + len(assemble(0)) + 8
    return ftyp + assemble(data_at) + box(b"mdat", coded)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libpng-git", help="a libpng git directory, for its crasher PNGs")
    arguments = parser.parse_args()
    for folder in (CORPUS, HOSTILE):
        os.makedirs(folder, exist_ok=True)
    for name in os.listdir(CORPUS):
        os.remove(os.path.join(CORPUS, name))
    for name in os.listdir(HOSTILE):
        if not (name.startswith("libpng-") and not arguments.libpng_git):
            os.remove(os.path.join(HOSTILE, name))
    try:
        jpeg_cases()
        png_cases()
        gif_cases()
        tiff_cases()
        tiff_warning_cases()
        webp_cases()
        icc_cases()
        heif_printing_cases()
        hostile_cases(arguments.libpng_git)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    versions = {
        "python": sys.version.split()[0], "Pillow": PIL.__version__, "numpy": np.__version__,
        "libvips": version(["vips", "--version"]), "libtiff": version(["tiffinfo"]),
        "cwebp": version(["cwebp", "-version"]), "djpeg": version(["djpeg", "-version"]),
        "libheif": version(["heif-convert", "--version"]),
    }
    with open(os.path.join(CORPUS, "corpus.json"), "w") as f:
        json.dump({"versions": versions, "files": ENTRIES, "refused": REFUSED}, f, indent=1)
        f.write("\n")
    with open(os.path.join(HOSTILE, "hostile.json"), "w") as f:
        json.dump({"files": HOSTILE_ENTRIES}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
