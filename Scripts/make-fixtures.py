#!/usr/bin/env python3
"""Generate image-codec test fixtures for TesseraIO with independent encoders.

Run from the repository root:

    python3 Scripts/make-fixtures.py

Writes PNG, TIFF and JPEG files plus raw expected samples and manifest.json
into Tests/TesseraIOTests/Fixtures/, then re-reads every fixture with
independent decoders (Pillow, pypng, libpng and libtiff via imagecodecs,
tifffile) and checks the results. Exits non-zero if a check fails.

Encoders: Pillow (PNG 8-bit, JPEG), pypng (PNG sub-byte, 16-bit, palette,
Adam7), libpng via imagecodecs.png_encode (PNG with chosen row filters),
tifffile + imagecodecs (TIFF).

Manifest contract (one entry per fixture):
  file, format, width, height, layout, bitDepth, sampleType, expected,
  tolerance, description, and optionally interlaced, progressive, tiled,
  tileSize, rowsPerStrip, compression, orientation, expectedStored,
  storedWidth, storedHeight.
Extra informational keys (decoders may ignore them): predictor,
compressionTag, photometric, alpha, byteOrder, planar, indexBitDepth,
pngFilter, subsampling, restartInterval, encoder, optional.
"optional": true marks fixtures beyond the core list (big-endian, planar,
old-style Deflate, ...): valid files that a complete decoder should handle.
"""

import io
import json
import os
import platform
import shutil
import subprocess
import sys
import zlib

import numpy as np
import png  # pypng
import tifffile
import imagecodecs
import PIL
from PIL import Image, ImageOps, features

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
OUT = os.path.join(REPO, "Tests", "TesseraIOTests", "Fixtures")
ASTRONAUT = "/work/shared/images/astronaut.png"
SEED = 20240611

CHANNELS = {"gray": 1, "grayAlpha": 2, "rgb": 3, "rgba": 4}

# --------------------------------------------------------------------------
# versions


def library_versions():
    libs = dict(imagecodecs.version(dict))
    v = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "Pillow": PIL.__version__,
        "Pillow.libjpeg_turbo": features.version("libjpeg_turbo"),
        "Pillow.zlib": features.version("zlib"),
        "pypng": png.__version__,
        "tifffile": tifffile.__version__,
        "imagecodecs": imagecodecs.__version__,
    }
    for key in ("libpng", "libjpeg_turbo", "zlib", "libtiff"):
        if key in libs:
            v["imagecodecs." + key] = str(libs[key])
    return v


# --------------------------------------------------------------------------
# content


def pattern(rng, h, w, ch):
    """Float64 array (h, w, ch) in 0..1: per-channel gradients mixed with noise.

    About 30 % of pixels plus a vertical band are uniform noise; the rest is a
    gradient whose direction differs per channel. Pixel (0,0) is 0 and the
    last pixel is 1 in every channel so the full range is always used.
    """
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    fx = x / max(w - 1, 1)
    fy = y / max(h - 1, 1)
    grads = [
        fx,
        fy,
        (fx + (1 - fy)) / 2,
        1 - np.abs(2 * fx - 1) * (1 - fy),
    ]
    band = (x >= w // 2) & (x < w // 2 + max(1, w // 8))
    out = np.empty((h, w, ch))
    for c in range(ch):
        noise = rng.random((h, w))
        mask = (rng.random((h, w)) < 0.3) | band
        out[..., c] = np.where(mask, noise, grads[c % 4])
    out[0, 0, :] = 0.0
    if h * w > 1:
        out[-1, -1, :] = 1.0
    return out


def quantize(f, bits):
    maxval = (1 << bits) - 1
    q = np.floor(f * maxval + 0.5).clip(0, maxval)
    return q.astype(np.uint16 if bits == 16 else np.uint8)


def int_image(rng, h, w, layout, bits):
    return quantize(pattern(rng, h, w, CHANNELS[layout]), bits)


def float_image(rng, h, w, layout):
    a = pattern(rng, h, w, CHANNELS[layout]).astype(np.float32)
    # values outside 0..1 that must survive unclamped
    a[1, 2, :] = -0.5
    a[2, 3, :] = 2.0
    a[3, 5, 0] = 1.5
    a[4, 7, -1] = -0.25
    a[5, 11, :] = 1e-30  # tiny (normal) value
    return a


def astronaut_rgb(w, h, box):
    """Resized crop of the astronaut photo: smooth, natural content."""
    im = Image.open(ASTRONAUT).convert("RGB")
    return im.crop(box).resize((w, h), Image.Resampling.LANCZOS)


# --------------------------------------------------------------------------
# writing helpers

entries = []


def rel(*parts):
    return "/".join(parts)


def write_raw(relpath, arr, layout, bits, sample_type):
    """Write expected samples: uint8 / uint16-LE / float32-LE, interleaved."""
    a = np.asarray(arr)
    h, w = a.shape[:2]
    a = a.reshape(h, w, CHANNELS[layout])
    if sample_type == "float":
        assert bits == 32
        data = a.astype("<f4").tobytes()
    elif bits == 16:
        data = a.astype("<u2").tobytes()
    else:
        assert bits <= 8 and a.max() <= (1 << bits) - 1
        data = a.astype(np.uint8).tobytes()
    with open(os.path.join(OUT, relpath), "wb") as f:
        f.write(data)


def add(file, fmt, expected_arr, layout, bits, description, *, sample_type="uint",
        tolerance=0, **extra):
    base = os.path.splitext(file)[0]
    expected = base + ".raw"
    write_raw(expected, expected_arr, layout, bits, sample_type)
    h, w = np.asarray(expected_arr).shape[:2]
    e = {
        "file": file,
        "format": fmt,
        "width": int(w),
        "height": int(h),
        "layout": layout,
        "bitDepth": bits,
        "sampleType": sample_type,
        "expected": expected,
        "tolerance": tolerance,
        "description": description,
    }
    for k, v in extra.items():
        if v is not None:
            e[k] = v
    entries.append(e)
    return e


# --------------------------------------------------------------------------
# PNG


def pypng_write(relpath, arr, *, greyscale, alpha, bits, interlace=False, palette=None):
    a = np.asarray(arr)
    h, w = a.shape[:2]
    rows = a.reshape(h, -1).tolist()
    if palette is not None:
        writer = png.Writer(w, h, palette=palette, bitdepth=bits, interlace=interlace,
                            compression=9)
    else:
        writer = png.Writer(w, h, greyscale=greyscale, alpha=alpha, bitdepth=bits,
                            interlace=interlace, compression=9)
    with open(os.path.join(OUT, relpath), "wb") as f:
        writer.write(f, rows)


def pillow_png(relpath, img):
    img.save(os.path.join(OUT, relpath), format="PNG", compress_level=9)


def libpng_write(relpath, arr, filt):
    data = imagecodecs.png_encode(np.ascontiguousarray(arr), level=9,
                                  filter=getattr(imagecodecs.PNG.FILTER, filt))
    with open(os.path.join(OUT, relpath), "wb") as f:
        f.write(data)


def make_png(rng):
    os.makedirs(os.path.join(OUT, "png"), exist_ok=True)

    # --- grayscale, all bit depths
    for bits, (w, h) in [(1, (37, 23)), (2, (37, 23)), (4, (37, 23))]:
        a = int_image(rng, h, w, "gray", bits)[..., 0]
        f = rel("png", f"gray-{bits}bit.png")
        if bits == 1:
            pillow_png(f, Image.fromarray(a.astype(bool)))  # mode "1"
            enc = "Pillow"
        else:
            pypng_write(f, a, greyscale=True, alpha=False, bits=bits)
            enc = "pypng"
        add(f, "png", a, "gray", bits,
            f"Grayscale {bits}-bit, rows not byte-aligned (width {w}); samples unscaled 0...{(1 << bits) - 1}.",
            encoder=enc)

    a = int_image(rng, 47, 61, "gray", 8)[..., 0]
    pillow_png(rel("png", "gray-8bit.png"), Image.fromarray(a))
    add(rel("png", "gray-8bit.png"), "png", a, "gray", 8,
        "Grayscale 8-bit, Pillow adaptive row filters.", encoder="Pillow")

    a = int_image(rng, 23, 37, "gray", 16)[..., 0]
    pillow_png(rel("png", "gray-16bit.png"), Image.fromarray(a))  # mode I;16
    add(rel("png", "gray-16bit.png"), "png", a, "gray", 16,
        "Grayscale 16-bit (big-endian in file, little-endian in .raw).", encoder="Pillow")

    # --- gray + alpha
    a = int_image(rng, 23, 37, "grayAlpha", 8)
    pillow_png(rel("png", "grayalpha-8bit.png"), Image.fromarray(a))  # mode LA
    add(rel("png", "grayalpha-8bit.png"), "png", a, "grayAlpha", 8,
        "Gray+alpha 8-bit, straight alpha; color kept where alpha is 0.", encoder="Pillow")

    a = int_image(rng, 23, 37, "grayAlpha", 16)
    pypng_write(rel("png", "grayalpha-16bit.png"), a, greyscale=True, alpha=True, bits=16)
    add(rel("png", "grayalpha-16bit.png"), "png", a, "grayAlpha", 16,
        "Gray+alpha 16-bit, straight alpha.", encoder="pypng")

    # --- RGB / RGBA
    a = int_image(rng, 47, 61, "rgb", 8)
    pillow_png(rel("png", "rgb-8bit.png"), Image.fromarray(a))
    add(rel("png", "rgb-8bit.png"), "png", a, "rgb", 8,
        "RGB 8-bit, Pillow adaptive row filters.", encoder="Pillow")

    a = int_image(rng, 23, 37, "rgb", 16)
    pypng_write(rel("png", "rgb-16bit.png"), a, greyscale=False, alpha=False, bits=16)
    add(rel("png", "rgb-16bit.png"), "png", a, "rgb", 16, "RGB 16-bit.", encoder="pypng")

    a = int_image(rng, 47, 61, "rgba", 8)
    pillow_png(rel("png", "rgba-8bit.png"), Image.fromarray(a))
    add(rel("png", "rgba-8bit.png"), "png", a, "rgba", 8,
        "RGBA 8-bit, straight alpha; color kept where alpha is 0.", encoder="Pillow")

    a = int_image(rng, 23, 37, "rgba", 16)
    pypng_write(rel("png", "rgba-16bit.png"), a, greyscale=False, alpha=True, bits=16)
    add(rel("png", "rgba-16bit.png"), "png", a, "rgba", 16, "RGBA 16-bit, straight alpha.",
        encoder="pypng")

    # --- palette
    def palette_case(name, bits, n_colors, n_alpha, w, h, interlace=False, optional=None):
        cols = rng.integers(0, 256, size=(n_colors, 3), dtype=np.int64)
        cols[0] = (0, 0, 0)
        cols[-1] = (255, 255, 255)
        alphas = None
        pal = [tuple(int(v) for v in c) for c in cols]
        if n_alpha:
            alphas = rng.integers(1, 255, size=n_alpha, dtype=np.int64)
            alphas[0] = 0
            if n_alpha > 2:
                alphas[1] = 255
            # pypng: entries with alpha first, tRNS is then shorter than PLTE
            pal = [tuple(int(v) for v in cols[i]) + (int(alphas[i]),) if i < n_alpha
                   else tuple(int(v) for v in cols[i]) for i in range(n_colors)]
        g = pattern(rng, h, w, 1)[..., 0]
        idx = np.floor(g * (n_colors - 1) + 0.5).astype(np.uint8)
        idx[0, 0] = 0
        idx[-1, -1] = n_colors - 1
        f = rel("png", name + ".png")
        pypng_write(f, idx, greyscale=False, alpha=False, bits=bits, interlace=interlace,
                    palette=pal)
        if n_alpha:
            full_alpha = np.full(n_colors, 255, dtype=np.int64)
            full_alpha[:n_alpha] = alphas
            rgba = np.concatenate([cols, full_alpha[:, None]], axis=1).astype(np.uint8)
            exp, layout = rgba[idx], "rgba"
            desc = (f"Palette {bits}-bit index, {n_colors} PLTE entries, tRNS with {n_alpha} entries "
                    f"(0, 255 and partial alphas; later entries opaque) -> expanded to RGBA 8-bit.")
        else:
            exp, layout = cols.astype(np.uint8)[idx], "rgb"
            desc = (f"Palette {bits}-bit index, {n_colors} PLTE entries (fewer than 2^{bits}), "
                    f"no tRNS -> expanded to RGB 8-bit.")
        if interlace:
            desc = "Adam7 interlaced. " + desc
        add(f, "png", exp, layout, 8, desc, indexBitDepth=bits, encoder="pypng",
            interlaced=True if interlace else None, optional=optional)

    palette_case("palette-8bit", 8, 200, 0, 61, 47)
    palette_case("palette-8bit-trns", 8, 200, 60, 61, 47)
    palette_case("palette-4bit", 4, 13, 0, 37, 23)
    palette_case("palette-4bit-trns", 4, 13, 5, 37, 23)
    palette_case("palette-2bit-trns", 2, 4, 2, 37, 23, optional=True)
    palette_case("palette-1bit", 1, 2, 0, 37, 23, optional=True)
    palette_case("palette-4bit-interlaced", 4, 13, 5, 37, 23, interlace=True, optional=True)

    # --- Adam7 interlaced
    for layout, bits, (w, h) in [("gray", 8, (37, 23)), ("rgb", 8, (37, 23)),
                                 ("rgba", 16, (37, 23)), ("gray", 1, (37, 23)),
                                 ("grayAlpha", 8, (37, 23))]:
        a = int_image(rng, h, w, layout, bits)
        name = {"gray": "gray", "rgb": "rgb", "rgba": "rgba", "grayAlpha": "grayalpha"}[layout]
        f = rel("png", f"{name}-{bits}bit-interlaced.png")
        pypng_write(f, a, greyscale=layout in ("gray", "grayAlpha"),
                    alpha=layout in ("rgba", "grayAlpha"), bits=bits, interlace=True)
        add(f, "png", a, layout, bits, f"Adam7 interlaced {layout} {bits}-bit, {w}x{h}.",
            interlaced=True, encoder="pypng", optional=True if layout == "grayAlpha" else None)

    # tiny interlaced: several Adam7 passes are empty
    a = int_image(rng, 3, 5, "gray", 8)
    pypng_write(rel("png", "gray-8bit-interlaced-5x3.png"), a, greyscale=True, alpha=False,
                bits=8, interlace=True)
    add(rel("png", "gray-8bit-interlaced-5x3.png"), "png", a, "gray", 8,
        "Adam7 interlaced 5x3 gray 8-bit: passes 2 and 4 are empty.", interlaced=True,
        encoder="pypng", optional=True)

    # --- edge sizes
    a = np.array([[173]], dtype=np.uint8)
    pillow_png(rel("png", "gray-8bit-1x1.png"), Image.fromarray(a))
    add(rel("png", "gray-8bit-1x1.png"), "png", a, "gray", 8, "1x1 gray 8-bit (value 173).",
        encoder="Pillow")

    a = int_image(rng, 29, 1, "gray", 8)[..., 0]
    pillow_png(rel("png", "gray-8bit-1x29.png"), Image.fromarray(a))
    add(rel("png", "gray-8bit-1x29.png"), "png", a, "gray", 8,
        "Single column: 1 pixel wide, 29 rows, gray 8-bit.", encoder="Pillow")

    a = int_image(rng, 1, 29, "gray", 8)[..., 0]
    pillow_png(rel("png", "gray-8bit-29x1.png"), Image.fromarray(a))
    add(rel("png", "gray-8bit-29x1.png"), "png", a, "gray", 8,
        "Single row: 29 pixels wide, 1 row, gray 8-bit.", encoder="Pillow")

    # --- color-key transparency (tRNS on gray and RGB): the key color becomes alpha 0, the rest opaque.
    # A separate generator, so adding these does not shift the random data of the other fixtures.
    krng = np.random.default_rng(20261121)
    for name, layout, bits in (("gray-8bit-trns-key", "gray", 8), ("gray-2bit-trns-key", "gray", 2),
                               ("rgb-16bit-trns-key", "rgb", 16), ("rgb-8bit-trns-key", "rgb", 8)):
        top = (1 << bits) - 1
        a = krng.integers(0, top + 1, size=(23, 37, 1 if layout == "gray" else 3)).astype(
            np.uint16 if bits == 16 else np.uint8)
        key = tuple(int(v) for v in a[3, 5])  # a color that occurs, at least once
        f = rel("png", name + ".png")
        w = png.Writer(37, 23, greyscale=layout == "gray", alpha=False, bitdepth=bits, compression=9,
                       transparent=key[0] if layout == "gray" else key)
        with open(os.path.join(OUT, f), "wb") as out:
            w.write(out, a.reshape(23, -1).tolist())
        mask = np.all(a == np.array(key, dtype=a.dtype), axis=-1)
        # libpng expands sub-byte gray with tRNS to 8 bits (v * 255 / top), so the expectation is 8-bit.
        value_bits = 8 if bits < 8 else bits
        color = (a.astype(np.uint32) * 255 // top).astype(np.uint8) if bits < 8 else a
        alpha = np.where(mask, 0, (1 << value_bits) - 1).astype(color.dtype)[..., None]
        exp = np.concatenate([color, alpha], axis=-1)
        add(f, "png", exp, "grayAlpha" if layout == "gray" else "rgba", value_bits,
            f"{layout} {bits}-bit with a tRNS color key {key}: pixels of that color become transparent"
            + (" (stored 2-bit; libpng expands it to 8-bit when adding alpha)" if bits < 8 else "") + ".",
            encoder="pypng")

    # --- explicit row filters via libpng (pypng only writes filter 0)
    for filt in ("SUB", "UP", "AVG", "PAETH"):
        a = int_image(rng, 23, 37, "rgb", 8)
        f = rel("png", f"rgb-8bit-filter-{filt.lower()}.png")
        libpng_write(f, a, filt)
        add(f, "png", a, "rgb", 8, f"RGB 8-bit, every row uses PNG filter {filt.title()} (libpng).",
            pngFilter=filt.lower(), encoder="libpng", optional=True)
    for layout, bits, filt in [("gray", 16, "AVG"), ("grayAlpha", 16, "SUB"),
                               ("rgb", 16, "ALL"), ("rgba", 16, "PAETH"),
                               ("rgba", 8, "ALL")]:
        a = int_image(rng, 23, 37, layout, bits)
        name = {"gray": "gray", "rgb": "rgb", "rgba": "rgba", "grayAlpha": "grayalpha"}[layout]
        f = rel("png", f"{name}-{bits}bit-filter-{filt.lower()}.png")
        libpng_write(f, a[..., 0] if layout == "gray" else a, filt)
        what = "adaptive choice among all filters" if filt == "ALL" else f"filter {filt.title()} on every row"
        add(f, "png", a, layout, bits, f"{layout} {bits}-bit, libpng {what}.",
            pngFilter=filt.lower(), encoder="libpng", optional=True)


# --------------------------------------------------------------------------
# TIFF

TIFF_COMPRESSION = {"none": None, "lzw": "lzw", "deflate": "adobe_deflate", "jpeg": "jpeg"}


def make_tiff(rng):
    os.makedirs(os.path.join(OUT, "tiff"), exist_ok=True)

    def case(name, layout, kind, *, w=37, h=23, compression="none", predictor=None,
             tile=None, rps=None, alpha="unassociated", byteorder="<", planar=False,
             subsampling=None, old_deflate=False, optional=None, note=""):
        """kind: 8, 16 or 'float'."""
        ch = CHANNELS[layout]
        if kind == "float":
            data = float_image(rng, h, w, layout)
            bits, stype = 32, "float"
        elif compression == "jpeg":
            img = astronaut_rgb(w, h, (150, 60, 150 + 4 * w, 60 + 4 * h))
            if layout == "gray":
                img = img.convert("L")
            data = np.asarray(img).reshape(h, w, ch)
            bits, stype = 8, "uint"
        else:
            bits, stype = kind, "uint"
            data = int_image(rng, h, w, layout, bits)
        photometric = "minisblack" if layout in ("gray", "grayAlpha") else "rgb"
        kw = dict(photometric=photometric, metadata=None, software="tifffile",
                  byteorder=byteorder)
        if layout in ("grayAlpha", "rgba"):
            kw["extrasamples"] = ["unassalpha" if alpha == "unassociated" else "assocalpha"]
        if compression != "none":
            kw["compression"] = "deflate" if old_deflate else TIFF_COMPRESSION[compression]
        if compression == "jpeg":
            kw["compressionargs"] = {"level": 90}
            if layout == "rgb":
                kw["subsampling"] = subsampling or (2, 2)
        if predictor:
            kw["predictor"] = {2: "horizontal", 3: "floatingpoint"}[predictor]
        if tile:
            kw["tile"] = (tile[1], tile[0])  # tifffile wants (length, width)
        else:
            kw["rowsperstrip"] = rps
        write = data if layout != "gray" else data[..., 0]
        if planar:
            kw["planarconfig"] = "separate"
            write = np.ascontiguousarray(np.moveaxis(data, -1, 0))
        stored = data
        if alpha == "associated":
            # data is straight color; store premultiplied, expect unpremultiplied
            a = data[..., 3:4].astype(np.float64)
            prem = np.floor(data[..., :3] * a / 255.0 + 0.5).astype(np.uint8)
            stored = np.concatenate([prem, data[..., 3:4]], axis=-1)
            write = stored
        f = rel("tiff", name + ".tif")
        path = os.path.join(OUT, f)
        tifffile.imwrite(path, write, **kw)

        if compression == "jpeg":
            expected = tifffile.imread(path).reshape(h, w, ch)
            tol = 2
        elif alpha == "associated":
            p = stored.astype(np.float64)
            a = p[..., 3:4]
            with np.errstate(divide="ignore", invalid="ignore"):
                un = np.where(a > 0, np.floor(p[..., :3] * 255.0 / a + 0.5), 0)
            expected = np.concatenate([un.clip(0, 255), p[..., 3:4]], axis=-1).astype(np.uint8)
            tol = 1
        else:
            expected = data
            tol = 0

        parts = [f"{layout} {'32-bit float' if kind == 'float' else str(bits) + '-bit'}"]
        if tile:
            parts.append(f"{tile[0]}x{tile[1]} tiles on {w}x{h} (partial edge tiles)")
        else:
            nstrips = -(-h // rps)
            parts.append(f"{rps} rows per strip ({nstrips} strips)")
        ctext = {"none": "uncompressed", "lzw": "LZW",
                 "deflate": "Deflate (old code 32946)" if old_deflate else "Adobe Deflate (8)",
                 "jpeg": "JPEG q90"}[compression]
        if predictor == 2:
            ctext += " + horizontal predictor"
        if predictor == 3:
            ctext += " + floating-point predictor"
        parts.append(ctext)
        if compression == "jpeg":
            if layout == "rgb":
                parts.append(f"YCbCr subsampling {kw['subsampling'][0]}x{kw['subsampling'][1]}")
            parts.append("expected = tifffile.imread decode")
        if layout in ("grayAlpha", "rgba"):
            if alpha == "associated":
                parts.append("ASSOCIATED (premultiplied) alpha; expected is unpremultiplied "
                             "round(c*255/a), 0 where a=0")
            else:
                parts.append("unassociated alpha")
        if kind == "float":
            parts.append("includes -0.5, 2.0, 1.5, -0.25, 1e-30")
        if byteorder == ">":
            parts.append("big-endian (MM)")
        if planar:
            parts.append("planar (separate) configuration")
        if note:
            parts.append(note)
        desc = "; ".join(parts) + "."
        desc = desc[0].upper() + desc[1:]
        add(f, "tiff", expected, layout, bits, desc, sample_type=stype, tolerance=tol,
            tiled=True if tile else None, tileSize=list(tile) if tile else None,
            rowsPerStrip=None if tile else rps, compression=compression,
            predictor=predictor or 1,
            compressionTag={"none": 1, "lzw": 5, "jpeg": 7,
                            "deflate": 32946 if old_deflate else 8}[compression],
            photometric="ycbcr" if (compression == "jpeg" and layout == "rgb") else photometric,
            alpha=alpha if layout in ("grayAlpha", "rgba") else None,
            byteOrder="big" if byteorder == ">" else "little",
            planar=True if planar else None, optional=optional)

    T = (16, 16)
    # gray
    case("gray-8bit-strips-none", "gray", 8, rps=5)
    case("gray-8bit-tiles-deflate-pred", "gray", 8, tile=T, compression="deflate", predictor=2)
    case("gray-16bit-tiles-lzw-pred", "gray", 16, tile=T, compression="lzw", predictor=2)
    case("gray-16bit-strips-none", "gray", 16, rps=5)
    case("gray-32f-strips-deflate", "gray", "float", rps=5, compression="deflate")
    case("gray-32f-tiles-lzw-fpred", "gray", "float", tile=T, compression="lzw", predictor=3)
    # rgb
    case("rgb-8bit-tiles-none", "rgb", 8, tile=T)
    case("rgb-8bit-strips-lzw-pred", "rgb", 8, rps=5, compression="lzw", predictor=2)
    case("rgb-8bit-tiles-lzw", "rgb", 8, tile=T, compression="lzw")
    case("rgb-16bit-strips-deflate-pred", "rgb", 16, rps=5, compression="deflate", predictor=2)
    case("rgb-16bit-tiles-none", "rgb", 16, tile=T)
    case("rgb-32f-tiles-deflate-fpred", "rgb", "float", tile=T, compression="deflate",
         predictor=3)
    case("rgb-32f-strips-none", "rgb", "float", rps=5)
    # rgba
    case("rgba-8bit-strips-deflate", "rgba", 8, rps=5, compression="deflate")
    case("rgba-8bit-tiles-lzw-pred", "rgba", 8, tile=T, compression="lzw", predictor=2)
    case("rgba-16bit-tiles-none", "rgba", 16, tile=T)
    case("rgba-16bit-strips-lzw-pred", "rgba", 16, rps=5, compression="lzw", predictor=2)
    case("rgba-32f-strips-none", "rgba", "float", rps=5)
    case("rgba-32f-tiles-deflate-fpred", "rgba", "float", tile=T, compression="deflate",
         predictor=3)
    case("rgba-8bit-assocalpha-strips-lzw", "rgba", 8, rps=5, compression="lzw",
         alpha="associated")
    # jpeg-in-tiff (8-bit gray / RGB only)
    case("gray-8bit-strips-jpeg", "gray", 8, rps=8, compression="jpeg")
    case("gray-8bit-tiles-jpeg", "gray", 8, tile=T, compression="jpeg")
    case("rgb-8bit-strips-jpeg", "rgb", 8, rps=16, compression="jpeg", subsampling=(2, 2))
    case("rgb-8bit-tiles-jpeg", "rgb", 8, tile=T, compression="jpeg", subsampling=(2, 2))
    case("rgb-8bit-strips-jpeg-444", "rgb", 8, rps=8, compression="jpeg", subsampling=(1, 1),
         optional=True)
    # extras: byte order, planar, old deflate code, gray+alpha
    case("rgb-16bit-bigendian-strips-lzw-pred", "rgb", 16, rps=5, compression="lzw",
         predictor=2, byteorder=">", optional=True)
    case("gray-32f-bigendian-strips-none", "gray", "float", rps=5, byteorder=">",
         optional=True)
    case("rgb-32f-bigendian-tiles-deflate-fpred", "rgb", "float", tile=T,
         compression="deflate", predictor=3, byteorder=">", optional=True)
    case("rgb-8bit-planar-strips-deflate", "rgb", 8, rps=5, compression="deflate",
         planar=True, optional=True)
    case("gray-8bit-strips-olddeflate", "gray", 8, rps=5, compression="deflate",
         old_deflate=True, optional=True)
    case("grayalpha-8bit-strips-lzw", "grayAlpha", 8, rps=5, compression="lzw",
         optional=True)
    case("gray-16bit-strips-none-61x47", "gray", 16, w=61, h=47, rps=47,
         note="single strip", optional=True)


# --------------------------------------------------------------------------
# JPEG


def make_jpeg(rng):
    os.makedirs(os.path.join(OUT, "jpeg"), exist_ok=True)
    w, h = 61, 47
    color = astronaut_rgb(w, h, (120, 40, 120 + 5 * w, 40 + 5 * h))

    def save(name, img, layout, desc, **opts):
        f = rel("jpeg", name + ".jpg")
        path = os.path.join(OUT, f)
        img.save(path, format="JPEG", **opts)
        with Image.open(path) as im:
            exp = np.asarray(im.convert("L" if layout == "gray" else "RGB"))
        sub = opts.get("subsampling")
        extra = {}
        if layout == "rgb":
            extra["subsampling"] = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0", None: "4:2:0"}[sub]
        if "restart_marker_blocks" in opts:
            extra["restartInterval"] = opts["restart_marker_blocks"]
        add(f, "jpeg", exp, layout, 8, desc, tolerance=2,
            progressive=True if opts.get("progressive") else None, **extra)

    save("color-baseline", color, "rgb",
         "Baseline JPEG q90, 4:2:0, 61x47 (partial MCUs); expected = Pillow decode.",
         quality=90)
    save("gray-baseline", color.convert("L"), "gray",
         "Baseline grayscale JPEG q90, 61x47; expected = Pillow decode.", quality=90)
    save("color-progressive", color, "rgb",
         "Progressive JPEG q90, 4:2:0, 61x47; expected = Pillow decode.", quality=90,
         progressive=True)
    save("gray-progressive", color.convert("L"), "gray",
         "Progressive grayscale JPEG q90, 61x47; expected = Pillow decode.", quality=90,
         progressive=True)
    # extras
    save("color-baseline-444", color, "rgb",
         "Baseline JPEG q90, 4:4:4 (no chroma subsampling); expected = Pillow decode.",
         quality=90, subsampling=0)
    save("color-baseline-422", color, "rgb",
         "Baseline JPEG q90, 4:2:2; expected = Pillow decode.", quality=90, subsampling=1)
    save("color-baseline-restart", color, "rgb",
         "Baseline JPEG q90, 4:2:0 with restart markers every 2 MCUs; expected = Pillow decode.",
         quality=90, restart_marker_blocks=2)
    save("color-progressive-optimized-large",
         astronaut_rgb(127, 95, (0, 0, 508, 380)), "rgb",
         "Progressive JPEG q85, optimized Huffman tables, 127x95; expected = Pillow decode.",
         quality=85, progressive=True, optimize=True)
    for e in entries[-4:]:
        e["optional"] = True

    # --- EXIF orientation 1..8 on a non-square, asymmetric picture
    ow, oh = 40, 24
    base = np.asarray(astronaut_rgb(ow, oh, (56, 150, 56 + 10 * ow, 150 + 10 * oh))).copy()
    base[0:8, 0:8] = (255, 0, 0)        # red block top-left
    base[0:4, 8:24] = (0, 255, 0)       # green bar along the top, left half
    base[16:24, 32:40] = (0, 0, 255)    # blue block bottom-right
    img = Image.fromarray(base)
    for n in range(1, 9):
        f = rel("jpeg", f"orient-{n}.jpg")
        path = os.path.join(OUT, f)
        exif = Image.Exif()
        exif[0x0112] = n
        img.save(path, format="JPEG", quality=90, exif=exif.tobytes())
        with Image.open(path) as im:
            stored = np.asarray(im.convert("RGB"))
            shown = np.asarray(ImageOps.exif_transpose(im).convert("RGB"))
        stored_rel = rel("jpeg", f"orient-{n}.stored.raw")
        write_raw(stored_rel, stored, "rgb", 8, "uint")
        add(f, "jpeg", shown, "rgb", 8,
            f"EXIF orientation {n} on a {ow}x{oh} stored image (red block at stored top-left); "
            f"expected = ImageOps.exif_transpose, expectedStored = plain decode.",
            tolerance=2, orientation=n, expectedStored=stored_rel,
            storedWidth=int(stored.shape[1]), storedHeight=int(stored.shape[0]),
            subsampling="4:2:0")


# --------------------------------------------------------------------------
# verification (independent decoders)


def read_raw(e, key="expected", w=None, h=None):
    ch = CHANNELS[e["layout"]]
    w = e["width"] if w is None else w
    h = e["height"] if h is None else h
    path = os.path.join(OUT, e[key])
    data = open(path, "rb").read()
    if e["sampleType"] == "float":
        dt, nb = "<f4", 4
    elif e["bitDepth"] == 16:
        dt, nb = "<u2", 2
    else:
        dt, nb = "u1", 1
    assert len(data) == w * h * ch * nb, f"{e[key]}: size {len(data)} != {w}*{h}*{ch}*{nb}"
    return np.frombuffer(data, dtype=dt).reshape(h, w, ch)


def png_chunks(data):
    pos, out = 8, []
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        out.append((data[pos + 4:pos + 8].decode("latin1"), data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return out


def png_filter_types(data):
    """Set of PNG row filter types actually used (handles Adam7)."""
    chunks = png_chunks(data)
    ihdr = chunks[0][1]
    w, h = int.from_bytes(ihdr[0:4], "big"), int.from_bytes(ihdr[4:8], "big")
    bits, ctype, interlace = ihdr[8], ihdr[9], ihdr[12]
    spp = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(b"".join(d for t, d in chunks if t == "IDAT"))
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
              (1, 0, 2, 2), (0, 1, 1, 2)] if interlace else [(0, 0, 1, 1)]
    types, pos = set(), 0
    for x0, y0, dx, dy in passes:
        pw = (w - x0 + dx - 1) // dx if w > x0 else 0
        ph = (h - y0 + dy - 1) // dy if h > y0 else 0
        if pw == 0 or ph == 0:
            continue
        rowbytes = (pw * spp * bits + 7) // 8
        for _ in range(ph):
            types.add(raw[pos])
            pos += 1 + rowbytes
    assert pos == len(raw), "IDAT length mismatch"
    return types, bits, ctype, interlace


class quiet_stderr:
    """Silence C-level stderr (file descriptor 2) inside a with-block."""

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.close(devnull)

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)
        return False


def compare(name, got, exp, tol, report):
    got = np.asarray(got)
    if got.shape != exp.shape:
        report.append(f"  {name}: SHAPE {got.shape} != {exp.shape}")
        return False
    if exp.dtype.kind == "f":
        ok = np.array_equal(got.astype(np.float32).view(np.uint32), exp.view(np.uint32)) \
            if tol == 0 else np.abs(got - exp).max() <= tol
        d = 0.0 if ok and tol == 0 else float(np.nanmax(np.abs(got.astype(np.float64) - exp)))
    else:
        d = int(np.abs(got.astype(np.int64) - exp.astype(np.int64)).max())
        ok = d <= tol
    report.append(f"  {name}: maxdiff {d} {'ok' if ok else 'FAIL (tol %s)' % tol}")
    return ok


def verify(manifest):
    all_ok = True
    for e in manifest["fixtures"]:
        report = []
        ok = True
        path = os.path.join(OUT, e["file"])
        exp = read_raw(e)
        tol = e["tolerance"]
        ch = CHANNELS[e["layout"]]
        h, w = e["height"], e["width"]
        if e["format"] == "png" and "trns-key" in e["file"]:
            # pypng applies the color key as alpha; sub-byte samples are scaled to 8 bits to compare.
            pw, ph, rows, info = png.Reader(filename=path).asDirect()
            arr = np.array([list(row) for row in rows]).reshape(ph, pw, -1)
            if info["bitdepth"] < 8:
                arr = arr * (255 // ((1 << info["bitdepth"]) - 1))
            ok &= compare("pypng(asDirect)", arr, exp, tol, report)
            with Image.open(path) as im:
                # Pillow drops the key of sub-byte gray (all pixels come out opaque): pypng is the reference there.
                if e["bitDepth"] == 8 and "2bit" not in e["file"]:
                    pil = np.asarray(im.convert("LA" if e["layout"] == "grayAlpha" else "RGBA"))
                    ok &= compare("Pillow", pil.reshape(h, w, ch), exp, tol, report)
        elif e["format"] == "png":
            data = open(path, "rb").read()
            types, bits, ctype, inter = png_filter_types(data)
            want_bits = e.get("indexBitDepth", e["bitDepth"])
            if bits != want_bits or bool(inter) != bool(e.get("interlaced")):
                report.append(f"  IHDR bits={bits} interlace={inter} MISMATCH")
                ok = False
            has_trns = any(t == "tRNS" for t, _ in png_chunks(data))
            if ctype == 3 and has_trns != (e["layout"] == "rgba"):
                report.append("  tRNS presence MISMATCH")
                ok = False
            report.append(f"  IHDR bitdepth={bits} colortype={ctype} interlace={inter} "
                          f"filters={sorted(types)} tRNS={has_trns}")
            # pypng
            r = png.Reader(bytes=data)
            pw, ph, rows, info = r.asDirect()
            arr = np.array([list(row) for row in rows]).reshape(ph, pw, -1)
            ok &= compare("pypng", arr, exp, tol, report)
            # libpng (imagecodecs); expands sub-byte gray to 8 bit scaled
            with quiet_stderr():  # libpng warns about interlace handling; result is checked
                arr = imagecodecs.png_decode(data).reshape(h, w, -1)
            if ctype == 0 and bits < 8:
                ok &= compare("libpng", arr, exp.astype(np.int64) * (255 // ((1 << bits) - 1)),
                              tol, report)
            elif ctype == 3 and arr.shape[2] != ch:
                report.append(f"  libpng: returned {arr.shape[2]} channels (skipped)")
            else:
                ok &= compare("libpng", arr, exp, tol, report)
            # Pillow
            with Image.open(path) as im:
                mode = im.mode
                if ctype == 3:
                    arr = np.asarray(im.convert("RGBA" if e["layout"] == "rgba" else "RGB"))
                    ok &= compare(f"Pillow({mode})", arr, exp, tol, report)
                elif mode in ("1",):
                    ok &= compare("Pillow(1)", np.asarray(im).astype(np.uint8)[..., None],
                                  exp, tol, report)
                elif mode == "L" and ctype == 0 and bits < 8:
                    # Pillow scales 2/4-bit gray to 0...255
                    ok &= compare("Pillow(L, scaled)", np.asarray(im).reshape(h, w, 1),
                                  exp.astype(np.int64) * (255 // ((1 << bits) - 1)), tol, report)
                elif mode in ("L", "LA", "RGB", "RGBA") and e["bitDepth"] == 8:
                    ok &= compare(f"Pillow({mode})", np.asarray(im).reshape(h, w, ch), exp,
                                  tol, report)
                elif mode in ("I;16", "I;16B", "I") and e["bitDepth"] == 16:
                    ok &= compare(f"Pillow({mode})", np.asarray(im).reshape(h, w, 1), exp,
                                  tol, report)
                else:
                    report.append(f"  Pillow: mode {mode} not comparable (skipped)")
        elif e["format"] == "tiff":
            with tifffile.TiffFile(path) as t:
                p = t.pages[0]
                tags = {
                    "byteorder": t.byteorder,
                    "photometric": tifffile.PHOTOMETRIC(int(p.photometric)).name,
                    "compression": int(p.compression),
                    "predictor": int(p.predictor),
                    "bits": p.bitspersample,
                    "sampleformat": tifffile.SAMPLEFORMAT(int(p.sampleformat)).name,
                    "spp": p.samplesperpixel,
                    "planar": {1: "CONTIG", 2: "SEPARATE"}[int(p.planarconfig)],
                    "extrasamples": [int(x) for x in p.extrasamples],
                    "tiled": p.is_tiled,
                    "tile": (p.tilewidth, p.tilelength) if p.is_tiled else None,
                    "rps": None if p.is_tiled else p.rowsperstrip,
                    "segments": len(p.dataoffsets),
                }
                got = p.asarray()
            report.append("  tags " + json.dumps(tags))
            checks = [
                tags["compression"] == e["compressionTag"],
                tags["predictor"] == e["predictor"],
                tags["bits"] == e["bitDepth"],
                tags["spp"] == ch,
                tags["tiled"] == bool(e.get("tiled")),
                (tags["tile"] == tuple(e["tileSize"])) if e.get("tiled") else tags["rps"] == e["rowsPerStrip"],
                tags["byteorder"] == (">" if e["byteOrder"] == "big" else "<"),
                tags["extrasamples"] == ({"associated": [1], "unassociated": [2]}[e["alpha"]]
                                         if "alpha" in e else []),
                tags["planar"] == ("SEPARATE" if e.get("planar") else "CONTIG"),
            ]
            if not all(checks):
                report.append(f"  TAG MISMATCH {checks}")
                ok = False
            if e.get("planar"):
                got = np.moveaxis(got, 0, -1)
            got = got.reshape(h, w, ch)
            if e.get("alpha") == "associated":
                # independent: Pillow reads RGBa and unpremultiplies on convert
                with Image.open(path) as im:
                    report.append(f"  Pillow mode {im.mode}")
                    ok &= compare("Pillow(RGBa->RGBA)", np.asarray(im.convert("RGBA")), exp,
                                  tol, report)
                stored = got.astype(np.float64)
                report.append("  (tifffile returns premultiplied stored values)")
            else:
                ok &= compare("tifffile", got, exp, tol, report)
            # libtiff through imagecodecs
            try:
                lt = imagecodecs.tiff_decode(open(path, "rb").read())
                if e.get("planar"):
                    lt = np.moveaxis(lt, 0, -1)
                lt = np.asarray(lt).reshape(h, w, ch)
                if e.get("alpha") == "associated":
                    ok &= compare("libtiff(stored vs tifffile)", lt, got, 0, report)
                else:
                    ok &= compare("libtiff", lt, exp, tol, report)
            except Exception as ex:  # pragma: no cover
                report.append(f"  libtiff: {type(ex).__name__}: {ex}")
            # Pillow where it has a matching mode
            if e.get("alpha") != "associated":
                try:
                    with Image.open(path) as im:
                        mode = im.mode
                        # Pillow reads 16-bit RGB(A) TIFFs as 8-bit RGB(A): skip those
                        if (mode in ("L", "RGB", "RGBA", "LA") and e["bitDepth"] == 8) or \
                                mode in ("F", "I;16", "I;16B", "I;16N"):
                            arr = np.asarray(im)
                            if e["compression"] == "jpeg" and mode != ("L" if ch == 1 else "RGB"):
                                arr = np.asarray(im.convert("L" if ch == 1 else "RGB"))
                            ok &= compare(f"Pillow({mode})", arr.reshape(h, w, ch), exp, tol, report)
                        else:
                            report.append(f"  Pillow: mode {mode} (skipped)")
                except Exception as ex:
                    report.append(f"  Pillow: {type(ex).__name__}: {str(ex)[:60]} (skipped)")
        else:  # jpeg
            with Image.open(path) as im:
                report.append(f"  Pillow mode={im.mode} progressive={bool(im.info.get('progressive'))}"
                              f" size={im.size}")
                if bool(im.info.get("progressive")) != bool(e.get("progressive")):
                    report.append("  PROGRESSIVE FLAG MISMATCH")
                    ok = False
                orient = im.getexif().get(0x0112)
                if orient != e.get("orientation"):
                    report.append(f"  ORIENTATION {orient} MISMATCH")
                    ok = False
                stored_pil = np.asarray(im.convert("L" if ch == 1 else "RGB")).reshape(
                    im.size[1], im.size[0], ch)
            lj = imagecodecs.jpeg8_decode(open(path, "rb").read()).reshape(stored_pil.shape)
            if "orientation" in e:
                stored = read_raw(e, "expectedStored", e["storedWidth"], e["storedHeight"])
                ok &= compare("Pillow stored", stored_pil, stored, 0, report)
                ok &= compare("libjpeg-turbo(imagecodecs) stored", lj, stored, tol, report)
                n = e["orientation"]
                s = stored
                tr = {1: s, 2: s[:, ::-1], 3: s[::-1, ::-1], 4: s[::-1, :],
                      5: s.transpose(1, 0, 2), 6: np.rot90(s, -1), 7: s[::-1, ::-1].transpose(1, 0, 2),
                      8: np.rot90(s, 1)}[n]
                ok &= compare(f"numpy orientation {n}", tr, exp, 0, report)
            else:
                ok &= compare("Pillow", stored_pil, exp, 0, report)
                ok &= compare("libjpeg-turbo(imagecodecs)", lj, exp, tol, report)
        status = "OK  " if ok else "FAIL"
        print(f"{status} {e['file']}")
        if not ok or os.environ.get("VERBOSE"):
            print("\n".join(report))
        all_ok &= bool(ok)

    if "orientation" in "".join(json.dumps(x) for x in manifest["fixtures"]):
        imgs = [read_raw(x).tobytes() for x in manifest["fixtures"] if "orientation" in x]
        distinct = len(set(imgs))
        print(f"orientation fixtures: {distinct} distinct expected images of {len(imgs)}")
        all_ok &= distinct == len(imgs)
    return all_ok


# --------------------------------------------------------------------------


def main():
    versions = library_versions()
    print("Library versions:")
    for k, v in versions.items():
        print(f"  {k}: {v}")
    if os.path.isdir(OUT):
        for sub in ("png", "tiff", "jpeg"):
            shutil.rmtree(os.path.join(OUT, sub), ignore_errors=True)
    os.makedirs(OUT, exist_ok=True)

    make_png(np.random.default_rng([SEED, 1]))
    make_tiff(np.random.default_rng([SEED, 2]))
    make_jpeg(np.random.default_rng([SEED, 3]))

    manifest = {"generator": "Scripts/make-fixtures.py", "versions": versions,
                "fixtures": entries}
    with open(os.path.join(OUT, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")

    total = 0
    for root, _, files in os.walk(OUT):
        for n in files:
            total += os.path.getsize(os.path.join(root, n))
    print(f"Wrote {len(entries)} fixtures, {total / 1024:.1f} KiB total, to {os.path.relpath(OUT, REPO)}")

    print("Verifying with independent decoders...")
    if not verify(manifest):
        print("VERIFICATION FAILED")
        sys.exit(1)
    print("All fixtures verified.")


if __name__ == "__main__":
    main()
