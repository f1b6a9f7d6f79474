"""Random quads (perspective, partly outside the image, tall and wide) cropped by cv2 as rapidocr does."""
import json, random
import numpy as np, cv2
random.seed(9); rng = np.random.default_rng(9)
OUT = "/tmp/textgeom/data"
recs = []
for n in range(60):
    w, h = random.randint(40, 700), random.randint(30, 500)
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), random.choice([0.6, 1.5, 3]))
    gray = n % 5 == 0
    if gray:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    img.tofile(f"{OUT}/cq{n}_img.u8")
    quads = []
    for k in range(8):
        cx, cy = random.uniform(-10, w + 10), random.uniform(-10, h + 10)
        bw, bh = random.uniform(4, 300), random.uniform(4, 120)
        if k % 3 == 0: bw, bh = bh, bw  # tall
        pts = cv2.boxPoints(((cx, cy), (bw, bh), random.uniform(-45, 45)))
        pts += rng.uniform(-3, 3, pts.shape).astype(np.float32)  # not a rectangle: true perspective
        pts = np.round(pts).astype(np.float32)
        s = pts.sum(1); d = np.diff(pts, axis=1)[:, 0]
        q = np.array([pts[np.argmin(s)], pts[np.argmin(d)], pts[np.argmax(s)], pts[np.argmax(d)]], np.float32)
        cw = int(max(np.linalg.norm(q[0] - q[1]), np.linalg.norm(q[2] - q[3])))
        ch = int(max(np.linalg.norm(q[0] - q[3]), np.linalg.norm(q[1] - q[2])))
        if cw < 1 or ch < 1: continue
        M = cv2.getPerspectiveTransform(q, np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float32))
        crop = cv2.warpPerspective(img, M, (cw, ch), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
        tall = crop.shape[0] / crop.shape[1] >= 1.5
        if tall: crop = np.rot90(crop)
        crop = np.ascontiguousarray(crop)
        crop.tofile(f"{OUT}/cq{n}_{len(quads)}.u8")
        cv2.rotate(crop, 1).tofile(f"{OUT}/cq{n}_{len(quads)}_180.u8")
        quads.append({"quad": q.tolist(), "w": cw, "h": ch, "tall": bool(tall)})
    recs.append({"name": f"cq{n}", "w": w, "h": h, "gray": gray, "quads": quads})
json.dump(recs, open(f"{OUT}/cropquads.json", "w"))
print(sum(len(r["quads"]) for r in recs), "quads")
