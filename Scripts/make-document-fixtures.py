"""Makes the Vision plugin's document and rectangle fixtures: a page (and a card) drawn with Pillow, warped
onto the repository's photos with known corners at several angles, scales, tilts and blurs, with what
OpenCV's contour-and-approxPolyDP document scanner finds in each and OpenCV's warpPerspective of a few.

Needs a Python with opencv-python (or -headless), Pillow and numpy, e.g.
`pip install opencv-python-headless pillow numpy` in a throwaway venv; never run by `make test`. Fonts:
DejaVu (Debian's fonts-dejavu-core). Writes into Plugins/Vision/Tests/Fixtures/documents/:

- `<case>.jpg`: the photo with the page or card in it, 800 x 600, JPEG quality 90 (`gray-*.png`: 8-bit
  gray, `*.png` where the straightening is compared).
- `<case>-straight.png`: for the cases named in STRAIGHTEN, cv2.warpPerspective of the photo (INTER_LINEAR,
  BORDER_REPLICATE) from getPerspectiveTransform of the known corners to (0, 0), (W-1, 0), (W-1, H-1),
  (0, H-1), W the longer of the top and bottom sides and H of the left and right, rounded.
- `documents.json`: {"opencv": version, "cases": [{"image": file, "kind": "page" or "card",
    "corners": [[x, y] x 4] (top-left, top-right, bottom-right, bottom-left; the page's outer corners in
    image pixels, integers at pixel centres), "degrees": turn, "tilt": share, "blur": sigma,
    "opencv": {"corners": [[x, y] x 4] or null, "error": largest corner distance over the page's longer
    side, or null}, "straight": file or null}, ...],
   "empty": [files in which there is no page]}
  OpenCV's approach is the one its users follow (the pyimagesearch document scanner): GaussianBlur 5 x 5,
  Canny 75 / 200, contours (RETR_LIST), the five largest, approxPolyDP at 2 % of the perimeter, the first
  with four points; and the usual repair of it ("opencvDilated"): the edges dilated 3 x 3 so the page's
  outline closes, outer contours only (RETR_EXTERNAL).
"""
import json
import math
import os
import random
import sys

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Plugins/Vision/Tests/Fixtures/documents")
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
WIDTH, HEIGHT = 800, 600
STRAIGHTEN = {"page-camera-11", "card-astronaut-10"}


def page():
    """A letter page: a heading, paragraphs, a table and a logo, 600 x 800 (dark ink on off-white)."""
    image = Image.new("RGB", (600, 800), (246, 244, 238))
    draw = ImageDraw.Draw(image)
    draw.text((50, 50), "Invoice 2026-0417", font=ImageFont.truetype(BOLD, 34), fill=(20, 20, 30))
    draw.ellipse((470, 40, 550, 120), fill=(200, 60, 40))
    body = ImageFont.truetype(FONT, 16)
    words = "the quick brown fox jumps over the lazy dog while tessera straightens the page".split()
    rng = random.Random(7)
    for line in range(12):
        text = " ".join(rng.choice(words) for _ in range(9))
        draw.text((50, 150 + 26 * line), text, font=body, fill=(40, 40, 50))
    for row in range(6):
        for column in range(3):
            x, y = 50 + 170 * column, 490 + 40 * row
            draw.rectangle((x, y, x + 170, y + 40), outline=(60, 60, 70), width=2)
            draw.text((x + 10, y + 10), f"item {row}{column}  {rng.randint(1, 99)}.00", font=body, fill=(40, 40, 50))
    draw.text((50, 740), "Thank you.", font=ImageFont.truetype(BOLD, 20), fill=(20, 20, 30))
    return np.array(image)


def card():
    """A bank card, 85.6 x 54 mm at 5 pixels a millimetre: deep blue, a chip and digits."""
    image = Image.new("RGB", (428, 270), (24, 52, 120))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((40, 90, 100, 135), radius=6, fill=(212, 180, 90))
    draw.text((40, 170), "4000 1234 5678 9010", font=ImageFont.truetype(BOLD, 26), fill=(235, 235, 245))
    draw.text((40, 220), "A N OTHER", font=ImageFont.truetype(FONT, 18), fill=(235, 235, 245))
    return np.array(image)


def background(name):
    path = os.path.join(ROOT, "Examples/images", name)
    photo = cv2.imread(path, cv2.IMREAD_COLOR)
    h, w = photo.shape[:2]
    # Cropped to 4:3 around the middle, then to 800 x 600.
    if w * 3 > h * 4:
        side = h * 4 // 3
        photo = photo[:, (w - side) // 2:(w - side) // 2 + side]
    else:
        side = w * 3 // 4
        photo = photo[(h - side) // 2:(h - side) // 2 + side]
    return cv2.resize(photo, (WIDTH, HEIGHT), interpolation=cv2.INTER_CUBIC)


def corners_for(size, scale, degrees, tilt, center):
    """The page's corners: `size` (w, h) scaled so its height is `scale` of the photo's, turned, its top
    edge narrowed by `tilt` of its width (seen from below), centred at `center`."""
    w, h = size
    k = scale * HEIGHT / h
    w, h = w * k, h * k
    points = [(-w / 2 * (1 - tilt), -h / 2), (w / 2 * (1 - tilt), -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    a = math.radians(degrees)
    return [(center[0] + x * math.cos(a) - y * math.sin(a), center[1] + x * math.sin(a) + y * math.cos(a))
            for x, y in points]


def warp_onto(photo, sheet, corners, blur, rng):
    h, w = sheet.shape[:2]
    source = np.float32([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    matrix = cv2.getPerspectiveTransform(source, np.float32(corners))
    # The sheet at twice its size, warped, so its own pixels are smoothed as a camera would.
    big = cv2.resize(sheet, (w * 2, h * 2), interpolation=cv2.INTER_CUBIC)
    scale = np.float64([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]])
    full = matrix @ scale
    warped = cv2.warpPerspective(big, full, (WIDTH, HEIGHT), flags=cv2.INTER_AREA)
    coverage = cv2.warpPerspective(np.ones((h * 2, w * 2), np.float32), full, (WIDTH, HEIGHT),
                                   flags=cv2.INTER_LINEAR)[..., None]
    out = photo.astype(np.float32) * (1 - coverage) + warped[..., ::-1].astype(np.float32) * coverage
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    out += np.float32(rng.normal(0, 2.0, out.shape))
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)


def order(points):
    """Top-left first, clockwise on screen."""
    center = points.mean(axis=0)
    around = sorted(points.tolist(), key=lambda p: math.atan2(p[1] - center[1], p[0] - center[0]))
    start = min(range(4), key=lambda i: around[i][0] + around[i][1])
    return [around[(start + i) % 4] for i in range(4)]


def opencv_scanner(image, dilate=False):
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(cv2.GaussianBlur(gray, (5, 5), 0), 75, 200)
    if dilate:
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL if dilate else cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    for contour in sorted(contours, key=cv2.contourArea, reverse=True)[:5]:
        approx = cv2.approxPolyDP(contour, 0.02 * cv2.arcLength(contour, True), True)
        if len(approx) == 4:
            return order(approx.reshape(4, 2).astype(np.float64))
    return None


def side(corners):
    c = np.float64(corners)
    return max(np.linalg.norm(c[(i + 1) % 4] - c[i]) for i in range(4))


def error(found, corners):
    if found is None:
        return None
    return float(max(np.linalg.norm(np.float64(a) - np.float64(b)) for a, b in zip(found, corners)) / side(corners))


def straighten(image, corners):
    c = np.float64(corners)
    width = int(round(max(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[3]))))
    height = int(round(max(np.linalg.norm(c[3] - c[0]), np.linalg.norm(c[2] - c[1]))))
    target = np.float32([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]])
    matrix = cv2.getPerspectiveTransform(np.float32(c), target)
    return cv2.warpPerspective(image, matrix, (width, height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def main():
    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(2026)
    sheets = {"page": page(), "card": card()}
    # (kind, background, page height share, degrees, tilt, blur, centre offset)
    plan = [
        ("page", "coffee.png", 0.80, 0, 0.00, 0.0, (0, 0)),
        ("page", "coffee.png", 0.70, 12, 0.10, 1.0, (-60, 10)),
        ("page", "astronaut.png", 0.75, -18, 0.05, 0.0, (40, 0)),
        ("page", "astronaut.png", 0.55, 25, 0.15, 2.0, (-120, -20)),
        ("page", "people/phone-1.jpg", 0.85, 5, 0.12, 1.5, (0, 0)),
        ("page", "people/four-fingers-2.jpg", 0.65, -8, 0.00, 0.0, (150, 20)),
        ("page", "people/phone-3.jpg", 0.60, 35, 0.08, 1.0, (0, 0)),
        ("page", "people/four-fingers-4.jpg", 0.90, -3, 0.18, 2.5, (0, 0)),
        ("card", "coffee.png", 0.45, 20, 0.05, 1.0, (0, 0)),
        ("card", "people/phone-2.jpg", 0.35, -15, 0.10, 0.0, (180, 120)),
        ("card", "astronaut.png", 0.50, 6, 0.00, 0.5, (-100, 40)),
        ("page", "camera.png", 0.70, -12, 0.10, 1.0, (30, 0)),
    ]
    cases = []
    for index, (kind, name, scale, degrees, tilt, blur, offset) in enumerate(plan):
        sheet = sheets[kind]
        stem = os.path.splitext(os.path.basename(name))[0]
        case = f"{kind}-{stem}-{index}"
        corners = corners_for((sheet.shape[1], sheet.shape[0]), scale, degrees, tilt,
                              (WIDTH / 2 + offset[0], HEIGHT / 2 + offset[1]))
        photo = warp_onto(background(name), sheet, corners, blur, rng)
        gray = name == "camera.png"
        if gray:
            photo = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY)
            file = f"gray-{case}.png"
            cv2.imwrite(os.path.join(OUT, file), photo)
        elif case in STRAIGHTEN:
            file = f"{case}.png"
            cv2.imwrite(os.path.join(OUT, file), photo)
        else:
            file = f"{case}.jpg"
            cv2.imwrite(os.path.join(OUT, file), photo, [cv2.IMWRITE_JPEG_QUALITY, 90])
        # What the scanner sees is the file as saved.
        saved = cv2.imread(os.path.join(OUT, file), cv2.IMREAD_UNCHANGED)
        found = opencv_scanner(saved)
        closed = opencv_scanner(saved, dilate=True)
        straight = None
        if case in STRAIGHTEN:
            straight = f"{os.path.splitext(file)[0]}-straight.png"
            cv2.imwrite(os.path.join(OUT, straight), straighten(saved, corners))
        cases.append({
            "image": file, "kind": kind, "corners": [[round(x, 3), round(y, 3)] for x, y in corners],
            "degrees": degrees, "tilt": tilt, "blur": blur,
            "opencv": {"corners": found and [[float(x), float(y)] for x, y in found],
                       "error": error(found, corners)},
            "opencvDilated": {"corners": closed and [[float(x), float(y)] for x, y in closed],
                              "error": error(closed, corners)},
            "straight": straight,
        })
        def said(points):
            return "none" if points is None else f"{100 * error(points, corners):.2f} %"
        print(f"{file}: opencv {said(found)}, dilated {said(closed)}")
    # Photos with no page: a smooth gradient and noise.
    ramp = np.tile(np.linspace(40, 200, WIDTH, dtype=np.float32), (HEIGHT, 1))
    cv2.imwrite(os.path.join(OUT, "empty-gradient.png"), ramp.astype(np.uint8))
    noise = rng.integers(0, 256, (HEIGHT // 4, WIDTH // 4, 3), dtype=np.uint8)
    cv2.imwrite(os.path.join(OUT, "empty-noise.png"), noise)
    with open(os.path.join(OUT, "documents.json"), "w") as out:
        json.dump({"opencv": cv2.__version__, "cases": cases,
                   "empty": ["empty-gradient.png", "empty-noise.png"]}, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    sys.exit(main())
