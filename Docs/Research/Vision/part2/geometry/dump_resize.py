"""cv2.resize INTER_LINEAR references on random uint8 images: up/down by ~2x, exact halving, odd ratios."""
import json
import numpy as np, cv2
rng = np.random.default_rng(5)
OUT = "/tmp/textgeom/data"
cases = [((64, 48, 3), (128, 96)), ((64, 48, 3), (32, 24)), ((101, 77, 3), (50, 38)), ((101, 77, 3), (203, 155)),
         ((960, 720, 3), (992, 736)), ((960, 640, 3), (1088, 736)), ((600, 150, 3), (2944, 736)),
         ((686, 35, 3), (941, 48)), ((37, 29, 3), (62, 48)), ((2000, 1504, 3), (1984, 1504)),
         ((333, 111, 1), (97, 45)), ((50, 40, 4), (173, 9)), ((17, 13, 3), (17, 13)), ((640, 480, 3), (320, 240)),
         ((431, 97, 3), (213, 48)), ((1200, 37, 3), (1557, 48)), ((5, 300, 3), (48, 48))]
recs = []
for i, ((w, h, c), (tw, th)) in enumerate(cases):
    img = rng.integers(0, 256, (h, w, c), dtype=np.uint8)
    if i % 2 == 0:  # smoother content too
        img = cv2.GaussianBlur(img, (0, 0), 1.5) if c != 4 else img
    out = cv2.resize(img, (tw, th))
    img.tofile(f"{OUT}/rs{i}_in.u8"); out.reshape(th, tw, c).tofile(f"{OUT}/rs{i}_out.u8")
    recs.append({"name": f"rs{i}", "w": w, "h": h, "c": c, "tw": tw, "th": th})
json.dump(recs, open(f"{OUT}/resize.json", "w"))
print(len(recs))
