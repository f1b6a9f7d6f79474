"""Test images for the text geometry checks: rotated paragraphs and a dense page."""
import random
from PIL import Image, ImageDraw, ImageFont
F = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
random.seed(7)
words = ("alpha beta gamma delta invoice total amount 2024 street city north south river "
         "coffee morning open daily price euro dollar item quantity").split()
def line(n): return " ".join(random.choice(words) for _ in range(n))

def rotated_page(angle, size=(1100, 900), nlines=9, fsize=30, name=None, bg=(250, 250, 245)):
    big = Image.new("RGB", (size[0] * 2, size[1] * 2), bg)
    d = ImageDraw.Draw(big)
    f = ImageFont.truetype(F, fsize)
    y = size[1] // 2 + 40
    for i in range(nlines):
        d.text((size[0] // 2 + 60, y), line(random.randint(3, 8)), font=f, fill=(20, 20, 30))
        y += int(fsize * 1.9)
    big = big.rotate(angle, resample=Image.BICUBIC, fillcolor=bg)
    im = big.crop((size[0] // 2, size[1] // 2, size[0] // 2 + size[0], size[1] // 2 + size[1]))
    im.save(f"/tmp/textgeom/images/{name}.png")

rotated_page(5, name="rot05")
rotated_page(12, name="rot12", fsize=26)
rotated_page(20, name="rot20", fsize=34, nlines=7)
rotated_page(30, name="rot30", fsize=28)
rotated_page(-17, name="rotm17", size=(800, 1000), fsize=24, nlines=12)

# dense page: many short and long lines, mixed sizes, two columns
pg = Image.new("RGB", (1240, 1600), (255, 255, 255)); d = ImageDraw.Draw(pg)
y = 30
while y < 1540:
    fs = random.choice([14, 16, 18, 22, 28])
    f = ImageFont.truetype(F, fs)
    d.text((40, y), line(random.randint(2, 6)), font=f, fill=(0, 0, 0))
    d.text((660, y + random.randint(-3, 3)), line(random.randint(1, 6)), font=f, fill=(30, 30, 30))
    y += int(fs * 1.5) + random.randint(0, 8)
pg.save("/tmp/textgeom/images/dense.png")

# big page for timing (2000 x 1504 after rapidocr preprocessing keeps it as is)
pg = Image.new("RGB", (2000, 1504), (255, 255, 255)); d = ImageDraw.Draw(pg)
y = 20
while y < 1460:
    fs = random.choice([18, 22, 26, 32])
    f = ImageFont.truetype(F, fs)
    x = 30
    while x < 1700:
        t = line(random.randint(1, 4)); d.text((x, y), t, font=f, fill=(0, 0, 0)); x += int(d.textlength(t, font=f)) + random.randint(40, 200)
    y += int(fs * 1.6)
pg.save("/tmp/textgeom/images/big.png")

# small wide strip (letterbox path: h <= 30 / w/h > 8)
st = Image.new("RGB", (600, 40), (255, 255, 255)); ImageDraw.Draw(st).text((8, 6), "narrow strip of text 123", font=ImageFont.truetype(F, 24), fill=(0, 0, 0))
st.save("/tmp/textgeom/images/strip.png")
