#!/usr/bin/env python3
"""Write the crafted files of the hostile-input table (issue 14): small files whose headers claim
buffers far beyond what they hold (decompression bombs).

Run from the repository root:

    python3 Scripts/make-bomb-fixtures.py

Writes Tests/TesseraIOTests/Fixtures/bombs/*. Headers are packed by hand with struct (TIFF directories,
PNG chunks with their CRCs, JPEG markers) and image data compressed with zlib, so each file says
exactly what the test needs and nothing more. Each file is tiny; each would make a decoder that trusts
its header allocate gigabytes. BrokenFileTests (TesseraCLITests) and LimitTests (TesseraIOTests) run them.
"""

import os
import struct
import zlib

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir))
OUT = os.path.join(REPO, "Tests", "TesseraIOTests", "Fixtures", "bombs")

SHORT, LONG = 3, 4


def tiff(entries, data):
    """A little-endian classic TIFF with one directory. `entries` maps tag -> (type, [values]); `data`
    is placed after the directory and its offset is substituted for the value "DATA". Values that do
    not fit in the entry's 4 bytes go after the data."""
    ifd_offset = 8
    count = len(entries)
    ifd_size = 2 + 12 * count + 4
    data_offset = ifd_offset + ifd_size
    extra_offset = data_offset + len(data)
    extra = b""
    directory = struct.pack("<H", count)
    for tag in sorted(entries):
        kind, values = entries[tag]
        values = [data_offset if v == "DATA" else v for v in values]
        packed = b"".join(struct.pack("<H" if kind == SHORT else "<I", v) for v in values)
        if len(packed) <= 4:
            field = packed.ljust(4, b"\0")
        else:
            field = struct.pack("<I", extra_offset + len(extra))
            extra += packed
        directory += struct.pack("<HHI", tag, kind, len(values)) + field
    directory += struct.pack("<I", 0)
    return b"II*\0" + struct.pack("<I", ifd_offset) + directory + data + extra


def tiff_image(width, height, channels, bits, layout, compression=1, data=b"\0" * 16):
    """`layout` is ("tiles", tile_width, tile_length) or ("strips", rows_per_strip); one chunk of `data`."""
    entries = {
        256: (LONG, [width]),
        257: (LONG, [height]),
        258: (SHORT, [bits] * channels),
        259: (SHORT, [compression]),
        262: (SHORT, [2 if channels >= 3 else 1]),  # RGB or min-is-black
        277: (SHORT, [channels]),
        284: (SHORT, [1]),  # contiguous samples
    }
    if channels in (2, 4):
        entries[338] = (SHORT, [2])  # unassociated alpha
    if layout[0] == "tiles":
        entries[322] = (LONG, [layout[1]])
        entries[323] = (LONG, [layout[2]])
        entries[324] = (LONG, ["DATA"])
        entries[325] = (LONG, [len(data)])
    else:
        entries[273] = (LONG, ["DATA"])
        entries[278] = (LONG, [layout[1]])
        entries[279] = (LONG, [len(data)])
    return tiff(entries, data)


def png_chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def png(width, height, bit_depth, color_type, raw=b"\0\0"):
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + png_chunk(b"IHDR", ihdr)
        + png_chunk(b"IDAT", zlib.compress(raw, 9))
        + png_chunk(b"IEND", b"")
    )


def jpeg_marker(code, payload):
    return struct.pack(">BBH", 0xFF, code, len(payload) + 2) + payload


def progressive_jpeg(width, height, entropy_bytes):
    """SOF2 (progressive Huffman), 3 components at 4:2:0, a DC table and the first DC scan, then
    `entropy_bytes` zero bytes of scan data: a header libjpeg reads, promising whole-image coefficient
    buffers (2 bytes per coefficient) that the few bytes after it cannot fill."""
    dqt = jpeg_marker(0xDB, b"\x00" + bytes([1] * 64))
    sof = jpeg_marker(0xC2, struct.pack(">BHHB", 8, height, width, 3) + bytes([1, 0x22, 0, 2, 0x11, 0, 3, 0x11, 0]))
    # One DC code of length 1 for category 0 (a zero difference).
    dht = jpeg_marker(0xC4, b"\x00" + bytes([1] + [0] * 15) + b"\x00")
    sos = jpeg_marker(0xDA, bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0]))
    return b"\xff\xd8" + dqt + sof + dht + sos + b"\0" * entropy_bytes + b"\xff\xd9"


def deflated(raw_bytes=64):
    return zlib.compress(b"\0" * raw_bytes, 9)


FILES = {
    # A tile 2^31 pixels wide over a 16x16 image: TIFFTileSize64 is 2^31 * 16 bytes.
    "tile-2g-wide.tif": tiff_image(16, 16, 1, 8, ("tiles", 1 << 31, 16)),
    # A 65536 x 65536 tile over a 64x64 image: 4 GiB for one tile.
    "tile-65536.tif": tiff_image(64, 64, 1, 8, ("tiles", 65536, 65536)),
    # A 32768 x 32768 RGBA 16-bit tile over a 100x100 image: 8 GiB for one tile.
    "tile-32768-rgba16.tif": tiff_image(100, 100, 4, 16, ("tiles", 32768, 32768)),
    # One deflate strip of 2^30 RGBA 16-bit pixels (rows per strip 2^32 - 1): 8 GiB for one strip,
    # though the image is within the pixel limit.
    "strip-32768-rgba16.tif": tiff_image(32768, 32768, 4, 16, ("strips", 0xFFFFFFFF), 8, deflated()),
    # The same at 16384 x 16384: a 2 GiB strip, within a budget of a few GiB; its data ends at once.
    "strip-16384-rgba16.tif": tiff_image(16384, 16384, 4, 16, ("strips", 0xFFFFFFFF), 8, deflated()),
    # The same strips LZW-compressed, whose expansion has no simple bound: the memory limit refuses the
    # 8 GiB one; the 2 GiB one is within it, and fails when libtiff finds its data ends, without the
    # strip ever becoming resident.
    "strip-32768-rgba16-lzw.tif": tiff_image(32768, 32768, 4, 16, ("strips", 0xFFFFFFFF), 5, b"\x80" + b"\0" * 15),
    "strip-16384-rgba16-lzw.tif": tiff_image(16384, 16384, 4, 16, ("strips", 0xFFFFFFFF), 5, b"\x80" + b"\0" * 15),
    # One uncompressed 16384 x 16384 RGBA 16-bit tile (2 GiB) holding 16 bytes.
    "tile-16384-rgba16-raw.tif": tiff_image(16384, 16384, 4, 16, ("tiles", 16384, 16384)),
    # A tile larger than the image, as writers pad small images: valid, and decodes.
    "tile-256-over-16x16.tif": tiff_image(16, 16, 1, 8, ("tiles", 256, 256), 8, zlib.compress(bytes(range(256)) * 256, 9)),
    # 2147483647 x 1 gray: over the pixel limit; libpng's row would be 2 GiB.
    "wide-2g.png": png(2147483647, 1, 8, 0),
    # 2^30 x 1 RGBA 16-bit: at the pixel limit, an 8 GiB row.
    "wide-1g-rgba16.png": png(1 << 30, 1, 16, 6),
    # 8585283 x 45 RGBA 8-bit: 386 million pixels, 1.5 GB of rows from a few bytes of deflate.
    "8585283x45.png": png(8585283, 45, 8, 6),
    # A progressive 32000 x 32000 JPEG of 766 bytes: 2.9 GiB of coefficient buffers.
    "progressive-32000.jpg": progressive_jpeg(32000, 32000, 766 - 128),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, data in FILES.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
