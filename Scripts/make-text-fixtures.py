"""Makes the Vision plugin's text-recognition fixtures: test images with known text, and what RapidOCR finds in them.

Run by Scripts/make-text-fixtures.sh (or directly with a Python that has rapidocr-onnxruntime==1.4.4 and
Pillow). It renders the images in IMAGES below with Pillow and the DejaVu fonts
(/usr/share/fonts/truetype/dejavu, Debian's fonts-dejavu-core; FONTS overrides the folder) onto a white page
or onto the photos in Examples/images, and writes into Plugins/Vision/Tests/Fixtures/text/:

- `<name>.png`: the image, 8-bit RGB.
- `<name>.json`: {"rapidocr": "1.4.4", "image": file name, "width": W, "height": H,
    "truth": [{"text": s, "box": [x, y, w, h], "angle": a}, ...],   # every rendered line, in drawing order
    "lines": [{"quad": [[x, y] x 4], "text": s, "score": s}, ...],  # RapidOCR() default config (det+cls+rec)
    "detected": [[[x, y] x 4], ...]}                                # RapidOCR()(img, use_cls=False, use_rec=False)
  `box` is Pillow's textbbox of the line (stroke included); for a rotated line it is the axis-aligned bounding
  box of that box's four rotated corners. `angle` is the line's rotation in degrees, counter-clockwise as on
  screen (180 = upside down). Quads are RapidOCR's, in image pixels: top-left, top-right, bottom-right,
  bottom-left as it orders them (by x, then y, so an upside-down line's "top-left" is its end), in RapidOCR's
  order (top to bottom, then left to right). `detected` is the detector alone: every box before the
  recognizer's score filter (text_score 0.5), so it can hold boxes that `lines` drops. Numbers are rounded
  to 4 decimals, one item per line.

The images are read back from the PNG files by RapidOCR (PIL, converted to BGR), as a test would read them.

Character error rate (printed, not stored): each RapidOCR line is given to the truth line whose box covers
the largest part of the line's quad bounding box (none if no truth box overlaps it, and then it counts as
inserted text). A truth line's reading is its lines joined by one space, left to right (right to left for an
upside-down line). CER = (sum over truth lines of the Levenshtein distance between the truth text and its
reading + the length of unassigned text) / (sum of truth lengths). Spaces count as characters.
"""
import json
import math
import os
import sys

from PIL import Image, ImageDraw, ImageFont

import rapidocr_onnxruntime
from rapidocr_onnxruntime import RapidOCR
from fixture_json import dump

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Plugins/Vision/Tests/Fixtures/text")
FONT_DIR = os.environ.get("FONTS", "/usr/share/fonts/truetype/dejavu")
VERSION = "1.4.4"
try:
    from importlib.metadata import version
    found = version("rapidocr-onnxruntime")
except Exception:
    found = getattr(rapidocr_onnxruntime, "__version__", "?")
if found != VERSION:
    sys.exit(f"needs rapidocr-onnxruntime {VERSION}, found {found}")


def font(name, size):
    return ImageFont.truetype(os.path.join(FONT_DIR, f"DejaVu{name}.ttf"), size, layout_engine=ImageFont.Layout.BASIC)


def photo(name, scale=1.0):
    im = Image.open(os.path.join(ROOT, "Examples/images", name)).convert("RGB")
    if scale != 1.0:
        im = im.resize((round(im.width * scale), round(im.height * scale)), Image.Resampling.BICUBIC)
    return im


def rotate_point(x, y, cx, cy, angle):
    """Where Image.rotate(angle, center=(cx, cy)) moves (x, y): counter-clockwise on screen (y down)."""
    a = math.radians(angle)
    dx, dy = x - cx, y - cy
    return cx + dx * math.cos(a) + dy * math.sin(a), cy - dx * math.sin(a) + dy * math.cos(a)


class Canvas:
    """An image and the lines drawn on it. Each shape is drawn on its own transparent layer, whose colour
    channels are the shape's colour, so antialiased edges keep their colour; the layer is rotated (bicubic,
    about `center`, default the shape's own centre) and composited."""

    def __init__(self, image):
        self.image = image.convert("RGBA")
        self.truth = []

    def _layer(self, rgb):
        return Image.new("RGBA", self.image.size, tuple(rgb[:3]) + (0,))

    def _put(self, layer, box, angle, center):
        if angle:
            if center is None:
                center = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            layer = layer.rotate(angle, resample=Image.Resampling.BICUBIC, center=center)
        self.image.alpha_composite(layer)
        return center

    def rect(self, box, fill, outline=None, width=0, radius=0, angle=0, center=None):
        layer = self._layer(fill)
        ImageDraw.Draw(layer).rounded_rectangle(box, radius=radius, fill=fill, outline=outline, width=width)
        self._put(layer, box, angle, center)

    def text(self, xy, s, f, fill, stroke=0, stroke_fill=(0, 0, 0), band=None, pad=8, angle=0, center=None):
        """Draws one line with its top-left at xy; `band` (RGBA) is a rectangle `pad` px around it."""
        box = ImageDraw.Draw(self.image).textbbox(xy, s, font=f, stroke_width=stroke)
        if band is not None:
            self.rect([box[0] - pad, box[1] - pad, box[2] + pad, box[3] + pad], band, angle=angle,
                      center=center or ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
        layer = self._layer(stroke_fill if stroke else fill)
        ImageDraw.Draw(layer).text(xy, s, font=f, fill=fill, stroke_width=stroke, stroke_fill=stroke_fill)
        center = self._put(layer, box, angle, center)
        if angle:
            pts = [rotate_point(x, y, center[0], center[1], angle)
                   for x, y in ((box[0], box[1]), (box[2], box[1]), (box[2], box[3]), (box[0], box[3]))]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            box = (min(xs), min(ys), max(xs), max(ys))
        self.truth.append({"text": s, "box": [r4(box[0]), r4(box[1]), r4(box[2] - box[0]), r4(box[3] - box[1])],
                           "angle": angle})

    def width(self, s, f, stroke=0):
        box = ImageDraw.Draw(self.image).textbbox((0, 0), s, font=f, stroke_width=stroke)
        return box[2] - box[0]


def page():
    """A white invoice page: several sizes of sans and serif, numbers, punctuation, an e-mail address,
    a URL and one line upside down."""
    c = Canvas(Image.new("RGB", (880, 1180), (255, 255, 255)))
    ink, grey = (20, 20, 20), (90, 90, 90)
    c.text((60, 60), "Northwind Office Supplies", font("Sans-Bold", 40), ink)
    c.text((60, 122), "12 Harbour Road, Portsmouth PO1 3AX", font("Serif", 22), grey)
    c.text((60, 160), "Invoice No. 2024-0117", font("Sans", 30), ink)
    c.text((520, 160), "Date: 17/01/2024", font("Sans", 30), ink)
    c.text((60, 240), "Bill to: Dr. Maria Keller, Lakeside Labs", font("Serif", 26), ink)
    c.text((60, 282), "Contact: billing@northwind-supplies.com", font("Sans", 24), ink)
    items = [("3 x A4 paper, 500 sheets", "$29.85"), ("12 x Ballpoint pen (blue)", "$14.40"),
             ("1 x Laser toner TN-2420", "$89.99"), ("2 x Desk lamp, LED", "$1,100.32")]
    y = 370
    for what, price in items:
        c.text((60, y), what, font("Sans", 26), ink)
        c.text((820 - c.width(price, font("Sans", 26)), y), price, font("Sans", 26), ink)
        y += 52
    c.rect([60, y + 6, 820, y + 8], ink)
    total = "Total: $1,234.56"
    c.text((820 - c.width(total, font("Sans-Bold", 34)), y + 26), total, font("Sans-Bold", 34), ink)
    c.text((60, 720), "Payment due within 30 days. Thank you!", font("Serif", 24), ink)
    c.text((60, 760), "Questions? Call +44 23 9200 1234 or see www.northwind-supplies.com/help", font("Sans", 20), grey)
    c.text((180, 900), "Customer copy - keep for your records", font("Sans", 28), ink, angle=180)
    c.text((60, 1080), "Page 1 of 1 (ref. NW/24/0117-B)", font("Serif", 20), grey)
    return c


def astronaut():
    """The NASA portrait, 1.5x: a large white title with a black stroke, a white caption on a dark band,
    a yellow line rotated 8 degrees."""
    c = Canvas(photo("astronaut.png", 1.5))
    c.text((24, 18), "SPACE", font("Sans-Bold", 60), (255, 255, 255), stroke=3)
    c.text((30, 688), "Eileen Collins, NASA astronaut", font("Sans", 30), (255, 255, 255), band=(0, 0, 0, 170))
    c.text((420, 600), "STS-93, July 1999", font("Sans-Bold", 28), (255, 220, 0), stroke=2, angle=8)
    return c


def coffee():
    """The coffee cup, 1.6x, with a green sign board rotated 6 degrees and coloured text on the wood."""
    c = Canvas(photo("coffee.png", 1.6))
    center = (745, 145)
    c.rect([545, 35, 945, 255], (24, 74, 50, 255), outline=(245, 245, 235, 255), width=5, radius=14, angle=-6,
           center=center)
    for y, s, f, fill in ((62, "OPEN DAILY", font("Sans-Bold", 48), (255, 255, 255)),
                          (134, "7:00 AM - 6:30 PM", font("Sans", 34), (255, 255, 255)),
                          (188, "Espresso $2.50", font("Serif", 30), (255, 210, 90))):
        c.text((center[0] - c.width(s, f) / 2, y), s, f, fill, angle=-6, center=center)
    c.text((40, 560), "Fresh beans, roasted on Monday", font("Sans-Bold", 30), (255, 140, 40), stroke=2)
    return c


def people():
    """Two HaGRID photos side by side: a red title and two white captions, each on its own dark band."""
    left = Image.open(os.path.join(ROOT, "Examples/images/people/phone-3.jpg")).convert("RGB")
    right = Image.open(os.path.join(ROOT, "Examples/images/people/four-fingers-1.jpg")).convert("RGB")
    im = Image.new("RGB", (left.width + right.width, max(left.height, right.height)))
    im.paste(left, (0, 0))
    im.paste(right, (left.width, 0))
    c = Canvas(im)
    c.text((200, 20), "Call me later!", font("Sans-Bold", 52), (220, 30, 30))
    c.text((20, 420), "Photos: HaGRID data set, CC BY-SA 4.0", font("Sans", 24), (255, 255, 255),
           band=(0, 0, 0, 170), pad=6)
    c.text((20, 464), "Gestures: call and four fingers", font("Sans", 24), (255, 255, 255),
           band=(0, 0, 0, 170), pad=6)
    return c


def camera():
    """The cameraman, 1.5x: a large black title on the sky, a paper label with small print, and a white
    line rotated 5 degrees over the coat."""
    c = Canvas(photo("camera.png", 1.5))
    c.text((330, 24), "FIELD TEST", font("Sans-Bold", 62), (10, 10, 10))
    c.rect([440, 560, 750, 700], (250, 248, 240, 255), outline=(120, 120, 120, 255), width=2, radius=6)
    small = font("Sans", 18)
    c.text((452, 570), "Model TX-100, lens 50 mm f/2.8", small, (20, 20, 20))
    c.text((452, 598), "ISO 400, 1/250 s, focus 3.5 m", small, (20, 20, 20))
    c.text((452, 626), "Serial: 7A-55012 (tested)", small, (20, 20, 20))
    c.text((452, 654), "Operator: J. Smith", small, (20, 20, 20))
    c.text((30, 420), "Take 12", font("Sans-Bold", 36), (255, 255, 255), angle=5)
    return c


IMAGES = {"page": page, "astronaut": astronaut, "coffee": coffee, "people": people, "camera": camera}


def r4(v):
    return round(float(v), 4) + 0.0


def levenshtein(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def cer(truth, lines):
    """See the module docstring. Returns (errors, truth characters, readings per truth line, unassigned)."""
    assigned = [[] for _ in truth]
    unassigned = []
    for line in lines:
        xs, ys = [p[0] for p in line["quad"]], [p[1] for p in line["quad"]]
        best, best_area = None, 0.0
        for k, t in enumerate(truth):
            x, y, w, h = t["box"]
            area = max(0.0, min(max(xs), x + w) - max(min(xs), x)) * max(0.0, min(max(ys), y + h) - max(min(ys), y))
            if area > best_area:
                best, best_area = k, area
        if best is None:
            unassigned.append(line["text"])
        else:
            assigned[best].append(line)
    errors, total, readings = 0, 0, []
    for t, found in zip(truth, assigned):
        found.sort(key=lambda l: sum(p[0] for p in l["quad"]), reverse=abs(t["angle"]) > 90)
        reading = " ".join(l["text"] for l in found)
        readings.append(reading)
        errors += levenshtein(t["text"], reading)
        total += len(t["text"])
    errors += sum(len(s) for s in unassigned)
    return errors, total, readings, unassigned


def quad(box):
    return [[r4(x), r4(y)] for x, y in box]


os.makedirs(OUT, exist_ok=True)
engine = RapidOCR()
verbose = "-v" in sys.argv[1:]
all_errors = all_total = 0
print(f"{'image':10} {'size':>9} truth lines detected   CER")
for name, make in IMAGES.items():
    canvas = make()
    png = os.path.join(OUT, name + ".png")
    canvas.image.convert("RGB").save(png, optimize=True)
    result, _ = engine(png)
    lines = [{"quad": quad(box), "text": text, "score": r4(score)} for box, text, score, *_ in result or []]
    detected, _ = engine(png, use_cls=False, use_rec=False)
    W, H = canvas.image.size
    doc = {"rapidocr": VERSION, "image": name + ".png", "width": W, "height": H, "truth": canvas.truth,
           "lines": lines, "detected": [quad(b) for b in detected or []]}
    with open(os.path.join(OUT, name + ".json"), "w") as f:
        f.write(dump(doc))
    errors, total, readings, unassigned = cer(canvas.truth, lines)
    all_errors += errors
    all_total += total
    print(f"{name:10} {W:>4}x{H:<4} {len(canvas.truth):5} {len(lines):5} {len(doc['detected']):8} "
          f"{100 * errors / total:5.2f}%")
    for t, reading in zip(canvas.truth, readings):
        if verbose or reading != t["text"]:
            print(f"    {t['text']!r} -> {reading!r}")
    for s in unassigned:
        print(f"    (no truth line) {s!r}")
print(f"{'all':10} {'':9} {'':17} {100 * all_errors / all_total:5.2f}%")
