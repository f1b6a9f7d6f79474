#!/usr/bin/python3
"""Makes the fixtures of shrink-on-load (the `load` node's `shrink`) and of the `thumbnail` node.

Run once from the repository root with Debian's Pillow and NumPy (apt-get install python3-pil
python3-numpy); the outputs are committed in Tests/TesseraNodesTests/Fixtures with a `shrink-` prefix.
References are PNG where they are 8-bit decodes, else float32 arrays in the `.f32` format the tests
read (three little-endian uint32: width, height, channels; then the samples row by row, interleaved).

- `shrink-photo.jpg` (4:2:0, Pillow's default) and `shrink-photo-444.jpg`: a 203x149 crop of the
  example photo at its own resolution (sharp detail, the hard case), JPEG quality 90. 203 and 149 are
  not multiples of 8, so the last blocks are partial.
- `shrink-photo[-444]-dct{2,4,8}.png`: Pillow's `draft` decode at 1/2, 1/4, 1/8: libjpeg's DCT
  scaling (scale_denom), asked through another program than Tessera. Sizes are ceil(side / shrink).
- `shrink-photo[-444]-box{2,4,8}.f32`: the full decode averaged over blocks (Pillow's `reduce` on
  float images, one channel at a time; the last blocks average the pixels they have): what a full
  decode shrunk by a box filter gives, to state how far DCT scaling is from it.
- `shrink-mosaic.jpg`: 1024x768, twelve 256x256 crops of the example photos at their own resolution
  (camera.png and coffee.png from ../shared/images, CC0, and the astronaut), some inverted, mirrored
  or with red and blue swapped, so that hard edges of saturated colour meet: the hardest of the photos
  measured for shrink-on-load (RenderPlan.shrinkLeftToReaders). Quality 90, 4:2:0 as cameras write.
- `shrink-rgb.png` and `shrink-rgb-box{2,4,8}.f32`: a 93x70 crop of photo.png and its block averages
  (Pillow's `reduce` on float images).
- `shrink-alpha.png` and `shrink-alpha-box{2,4,8}.f32`: the same crop of photo-alpha.png (RGBA), and
  its block averages with premultiplied alpha, in NumPy (color = sum(c * a) / sum(a), alpha = mean(a)).
- `shrink-photo-thumb{12,24,40}.f32`: the thumbnail pipeline in Pillow for a box of that side: the
  draft decode at vips' shrink (the largest of 8, 4, 2 leaving a factor of 2), then `resize` with
  LANCZOS on float images to the fitted size, of the part of the decode the file covers (`box`: the
  last pixels hold partial blocks). `shrink-photo-full{12,24,40}.f32`: the same resize of the full
  decode.
"""
import math
import os

import numpy as np
from PIL import Image, ImageOps, features

import f32

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests/TesseraNodesTests/Fixtures")
SHRINKS = (2, 4, 8)


def path(name):
    return os.path.join(OUT, name)


def floats(image):
    """An 8-bit image as Tessera decodes it: samples over 255, float32, (height, width, channels)."""
    return np.asarray(image).astype(np.float32) / 255


def per_channel(array, operation):
    """`operation` applied by Pillow to each channel as a mode "F" image, stacked again."""
    return np.dstack([np.asarray(operation(Image.fromarray(array[:, :, c]))) for c in range(array.shape[2])])


def draft(file, shrink):
    """Pillow's DCT-scaled decode at 1/shrink: draft picks the largest scale whose size is at least the
    one asked for, so it is asked for floor(side / shrink)."""
    with Image.open(file) as image:
        width, height = image.size
        image.draft("RGB", (width // shrink, height // shrink))
        decoded = image.convert("RGB")
        assert decoded.size == (math.ceil(width / shrink), math.ceil(height / shrink)), decoded.size
        return decoded


def fitted(width, height, box):
    """The thumbnail node's size for a box of `box` x `box` (fit down): the deciding side takes the box."""
    if width >= height:
        return box, max(1, round(height * box / width))
    return max(1, round(width * box / height)), box


def jpeg_shrink(width, height, target):
    factor = min(width / target[0], height / target[1])
    return next((s for s in (8, 4, 2) if factor >= 2 * s), 1)


def mosaic():
    shared = os.path.join(ROOT, "..", "shared", "images")
    sources = [Image.open(os.path.join(shared, name)).convert("RGB") for name in ("camera.png", "coffee.png")]
    sources.append(Image.open(os.path.join(ROOT, "Examples/images/astronaut.png")).convert("RGB"))
    variants = [lambda t: t, ImageOps.invert, lambda t: Image.merge("RGB", t.split()[::-1]), ImageOps.mirror]
    out = Image.new("RGB", (1024, 768))
    for index in range(12):
        source = sources[index % 3]
        x, y = (index * 97) % (source.width - 256), (index * 61) % (source.height - 256)
        tile = variants[(index * 3) % 4](source.crop((x, y, x + 256, y + 256)))
        out.paste(tile, (index % 4 * 256, index // 4 * 256))
    out.save(path("shrink-mosaic.jpg"), quality=90, subsampling=2)


def main():
    mosaic()
    print("Pillow", Image.__version__, "libjpeg-turbo", features.version("libjpeg_turbo"))
    photo = Image.open(os.path.join(ROOT, "Examples/images/astronaut.png")).convert("RGB")
    crop = photo.crop((150, 110, 150 + 203, 110 + 149))
    for name, subsampling in (("shrink-photo", -1), ("shrink-photo-444", 0)):
        file = path(name + ".jpg")
        crop.save(file, quality=90, subsampling=subsampling)
        full = floats(Image.open(file).convert("RGB"))
        for shrink in SHRINKS:
            dct = draft(file, shrink)
            dct.save(path(f"{name}-dct{shrink}.png"))
            box = per_channel(full, lambda c: c.reduce(shrink))
            assert box.shape[:2] == np.asarray(dct).shape[:2]
            f32.write_f32(path(f"{name}-box{shrink}.f32"), box)
            difference = np.abs(floats(dct) - box) * 255
            print(f"{name} 1/{shrink}: DCT vs block mean of the full decode, in levels: "
                  f"max {difference.max():.2f}, mean {difference.mean():.3f}")

    # Block averages of PNGs of odd size, opaque and with alpha.
    rgb = Image.open(path("photo.png")).convert("RGB").crop((1, 1, 94, 71))
    rgb.save(path("shrink-rgb.png"))
    for shrink in SHRINKS:
        f32.write_f32(path(f"shrink-rgb-box{shrink}.f32"), per_channel(floats(rgb), lambda c: c.reduce(shrink)))
    rgba = Image.open(path("photo-alpha.png")).convert("RGBA").crop((1, 1, 94, 71))
    rgba.save(path("shrink-alpha.png"))
    pixels = floats(rgba).astype(np.float64)
    height, width, _ = pixels.shape
    for shrink in SHRINKS:
        rows, columns = math.ceil(height / shrink), math.ceil(width / shrink)
        out = np.zeros((rows, columns, 4))
        for y in range(rows):
            for x in range(columns):
                block = pixels[y * shrink:(y + 1) * shrink, x * shrink:(x + 1) * shrink].reshape(-1, 4)
                alpha = block[:, 3].sum()
                color = (block[:, :3] * block[:, 3:]).sum(0) / alpha if alpha > 0 else np.zeros(3)
                out[y, x] = [*color, alpha / len(block)]
        f32.write_f32(path(f"shrink-alpha-box{shrink}.f32"), out)

    # The thumbnail pipeline.
    file = path("shrink-photo.jpg")
    full = floats(Image.open(file).convert("RGB"))
    for box in (12, 24, 40):
        target = fitted(*crop.size, box)
        shrink = jpeg_shrink(*crop.size, target)
        decoded = floats(draft(file, shrink)) if shrink > 1 else full
        # The file covers side / shrink of the ceil(side / shrink) decoded pixels: that part is resized.
        content = (0, 0, crop.size[0] / shrink, crop.size[1] / shrink)
        thumb = per_channel(decoded, lambda c: c.resize(target, Image.Resampling.LANCZOS, box=content))
        lanczos = lambda c: c.resize(target, Image.Resampling.LANCZOS)
        f32.write_f32(path(f"shrink-photo-thumb{box}.f32"), thumb)
        whole = per_channel(full, lanczos)
        f32.write_f32(path(f"shrink-photo-full{box}.f32"), whole)
        difference = np.abs(thumb - whole) * 255
        print(f"thumbnail {box}: {target[0]}x{target[1]} via 1/{shrink}; against a full decode, in levels: "
              f"max {difference.max():.2f}, mean {difference.mean():.3f}")


if __name__ == "__main__":
    main()
