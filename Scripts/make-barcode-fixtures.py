"""Makes the Vision plugin's barcode fixtures: codes drawn module by module from what segno (QR codes) and
python-barcode (EAN-13, EAN-8, UPC-A, Code 128, Code 39) encode, at several sizes, turned and blurred,
and a few pasted in perspective onto the people photos; with what zxing-cpp's own Python wheel reads in
each, and how long it takes.

Needs a Python with segno, python-barcode, zxing-cpp, opencv-python (or -contrib) and numpy, e.g.
`pip install segno python-barcode zxing-cpp opencv-python-headless numpy` in a throwaway venv; never run
by `make test`. Writes into Plugins/Vision/Tests/Fixtures/barcodes/:

- `<case>.png`: one code on white, 8-bit gray (the photos: RGB JPEG, `<case>.jpg`).
- `barcodes.json`: {"segno": version, "python-barcode": version, "zxing-cpp": version,
    "cases": [{"image": file, "symbology": Vision's name, "payload": text, "module": px, "degrees": d,
               "blur": sigma, "corners": [[x, y] x 4] (the code's outer corners without its quiet zone,
               top-left, top-right, bottom-right, bottom-left as it reads, in image pixels with integers
               at pixel centres),
               "zxing": {"read": bool, "payload": text or null, "symbology": name or null},
               (read: the payload, or for UPC-A also as EAN-13 with a leading 0, as zxing-cpp 3 gives it)
               "zxingSeconds": best of 5 reads}, ...]}
  The codes are drawn from the encoders' module lists (segno's matrix, python-barcode's build()), so
  the corners are known exactly; a turn is cv2.warpAffine (bilinear, white beyond), a blur
  cv2.GaussianBlur. zxing-cpp reads with its defaults (try harder, rotate and downscale on).
"""
import importlib.metadata
import json
import os
import sys
import time

import barcode
import cv2
import numpy as np
import segno
import zxingcpp
from fixture_json import dump

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Plugins/Vision/Tests/Fixtures/barcodes")

# zxing-cpp's format names, as Vision names the symbologies.
NAMES = {"QRCode": "qr", "EAN13": "ean13", "EAN8": "ean8", "UPCA": "upca", "Code128": "code128",
         "Code39": "code39"}


def qr(payload, module):
    """The QR code's modules (True dark) and its quiet zone, 4 modules, drawn `module` px each."""
    matrix = np.array(segno.make_qr(payload, error="m").matrix, dtype=bool)
    return draw(matrix, module, 4, module)


def linear(kind, digits, module, height):
    options = {"add_checksum": False} if kind == "code39" else {}
    code = barcode.get_barcode_class(kind)(digits, **options)
    row = np.array([c == "1" for c in "".join(code.build())], dtype=bool)
    return draw(row[None, :].repeat(1, axis=0), module, 10, height), code.get_fullcode()


def draw(matrix, module, quiet, row_height):
    """White paper, dark modules; the code's own corners (pixel edges) without the quiet zone."""
    rows, columns = matrix.shape
    h = rows * row_height
    w = columns * module
    q = quiet * module
    image = np.full((h + 2 * q, w + 2 * q), 255, np.uint8)
    for r in range(rows):
        for c in range(columns):
            if matrix[r, c]:
                image[q + r * row_height:q + (r + 1) * row_height, q + c * module:q + (c + 1) * module] = 0
    corners = np.array([[q, q], [q + w, q], [q + w, q + h], [q, q + h]], float)
    return image, corners


def turned(image, corners, degrees):
    """Turned counterclockwise (as seen) by `degrees` on a canvas that holds it, white beyond."""
    h, w = image.shape[:2]
    side = int(np.ceil(np.hypot(w, h))) + 8
    m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
    m[0, 2] += side / 2 - w / 2
    m[1, 2] += side / 2 - h / 2
    out = cv2.warpAffine(image, m, (side, side), flags=cv2.INTER_LINEAR, borderValue=255)
    edges = np.hstack([corners, np.ones((4, 1))]) @ m.T
    return out, edges


def zxing(image):
    best = float("inf")
    results = []
    for _ in range(5):
        start = time.perf_counter()
        results = zxingcpp.read_barcodes(image)
        best = min(best, time.perf_counter() - start)
    return results, best


os.makedirs(OUT, exist_ok=True)
for name in os.listdir(OUT):
    if name.endswith((".png", ".jpg")):
        os.remove(os.path.join(OUT, name))
cases = []
number = 0


def add(name, image, symbology, payload, module, degrees, blur, corners, extension="png"):
    path = os.path.join(OUT, f"{name}.{extension}")
    cv2.imwrite(path, image, [cv2.IMWRITE_JPEG_QUALITY, 90] if extension == "jpg" else [])
    read_back = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    results, seconds = zxing(read_back)
    # A UPC-A code is an EAN-13 one with a leading 0: zxing-cpp (as Apple's Vision) may say so.
    accepted = [payload, "0" + payload] if symbology == "upca" else [payload]
    hit = next((r for r in results if r.text in accepted), results[0] if results else None)
    cases.append({"image": os.path.basename(path), "symbology": symbology, "payload": payload, "module": module,
                  "degrees": degrees, "blur": blur,
                  # Pixel edges to pixel centres (integers at centres, as the plugin's coordinates).
                  "corners": [[round(x - 0.5, 2), round(y - 0.5, 2)] for x, y in corners],
                  "zxing": {"read": hit is not None and hit.text in accepted,
                            "payload": hit.text if hit else None,
                            "symbology": NAMES.get(hit.format.name, hit.format.name) if hit else None},
                  "zxingSeconds": round(seconds, 6)})


for symbology in ["qr", "ean13", "ean8", "upca", "code128", "code39"]:
    for module in (2, 4):
        for degrees in (0, 30, 90, 180):
            for blur in (0, 1.5):
                number += 1
                if symbology == "qr":
                    payload = f"https://tessera.example/q/{number}?m={module}"
                    image, corners = qr(payload, module)
                else:
                    digits = {"ean13": f"{400638133390 + number:012d}", "ean8": f"{9638500 + number:07d}",
                              "upca": f"{3600029145 + number:011d}", "code128": f"Tessera-{number}",
                              "code39": f"TESSERA {number}"}[symbology]
                    image, corners = None, None
                    kind = {"upca": "upc"}.get(symbology, symbology)
                    (image, corners), payload = linear(kind, digits, module, 40 * module)
                image, corners = turned(image, corners, degrees)
                if blur:
                    image = cv2.GaussianBlur(image, (0, 0), blur)
                add(f"{symbology}-m{module}-r{degrees}-b{blur:g}", image, symbology, payload, module, degrees, blur,
                    corners)

# Codes pasted in perspective onto the people photos (a QR code on a sign, an EAN-13 on a box), saved as
# JPEG: the photo's texture around them, a slant, and compression.
photos = ["phone-2", "four-fingers-1", "phone-4", "four-fingers-3"]
for index, stem in enumerate(photos):
    photo = cv2.imread(os.path.join(ROOT, f"Examples/images/people/{stem}.jpg"), cv2.IMREAD_COLOR)
    photo = cv2.resize(photo, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC)
    h, w = photo.shape[:2]
    if index % 2 == 0:
        payload = f"https://tessera.example/photo/{stem}"
        code, corners = qr(payload, 6)
        symbology = "qr"
    else:
        (code, corners), payload = linear("ean13", f"{590123412345 + index:012d}", 3, 90)
        symbology = "ean13"
    ch, cw = code.shape
    # The code's paper corners onto a slanted quadrilateral in the photo's lower left.
    size = min(w, h) * 0.45
    x0, y0 = w * 0.08, h * 0.5
    target = np.float32([[x0, y0 + size * 0.05], [x0 + size, y0], [x0 + size * 0.95, y0 + size * ch / cw],
                         [x0 + size * 0.02, y0 + size * ch / cw * 1.05]])
    paper = np.float32([[0, 0], [cw, 0], [cw, ch], [0, ch]])
    m = cv2.getPerspectiveTransform(paper, target)
    warped = cv2.warpPerspective(cv2.cvtColor(code, cv2.COLOR_GRAY2BGR), m, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((ch, cw), 255, np.uint8), m, (w, h), flags=cv2.INTER_LINEAR)
    alpha = (mask.astype(np.float32) / 255)[..., None]
    # Paper a little darker than white, as a photo shows it.
    composite = (photo * (1 - alpha) + warped.astype(np.float32) * 0.9 * alpha).round().astype(np.uint8)
    edges = cv2.perspectiveTransform(corners[None].astype(np.float32), m)[0]
    add(f"photo-{stem}", composite, symbology, payload, 0, 0, 0, edges.tolist(), extension="jpg")

doc = {"segno": segno.__version__, "python-barcode": barcode.version,
       "zxing-cpp": importlib.metadata.version("zxing-cpp"), "cases": cases}
with open(os.path.join(OUT, "barcodes.json"), "w") as f:
    f.write(dump(doc))
read = sum(c["zxing"]["read"] for c in cases)
print(f"{len(cases)} codes; zxing-cpp reads {read}, in {sum(c['zxingSeconds'] for c in cases):.3f} s in all")
for c in cases:
    if not c["zxing"]["read"]:
        print("  zxing-cpp misses", c["image"], c["zxing"])
