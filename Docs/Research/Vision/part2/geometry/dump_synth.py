"""Synthetic probability maps for stress-testing the DB post-processing port.

Random rotated bars, rings (holes), thin strokes, specks and blobs touching the border, blurred,
plus one grid with more than 1000 candidates. rapidocr's DBPostProcess, filter_tag_det_res and
sorted_boxes give the reference boxes.
"""
import json, math, random
import numpy as np, cv2
from scores import final_scores
from rapidocr_onnxruntime import RapidOCR

OUT = "/tmp/textgeom/data"
eng = RapidOCR()
det = eng.text_det
post = det.postprocess_op
rng = np.random.default_rng(11)
random.seed(11)

def synth(w, h, n):
    m = np.zeros((h, w), np.float32)
    for _ in range(n):
        kind = random.random()
        v = random.uniform(0.35, 1.0)
        if kind < 0.55:
            cx, cy = random.uniform(-20, w + 20), random.uniform(-20, h + 20)
            L, T = random.uniform(3, w / 2), random.uniform(1.5, 40)
            ang = random.choice([0, 0, 90, random.uniform(-90, 90), random.uniform(-30, 30), 45])
            pts = cv2.boxPoints(((cx, cy), (L, T), ang))
            cv2.fillPoly(m, [np.round(pts * 4).astype(np.int32)], v, lineType=cv2.LINE_AA, shift=2)
        elif kind < 0.7:
            c = (random.randint(0, w), random.randint(0, h)); r = random.randint(4, 60)
            cv2.circle(m, c, r, v, thickness=random.randint(2, 8))
        elif kind < 0.8:
            p1 = (random.randint(0, w), random.randint(0, h)); p2 = (random.randint(0, w), random.randint(0, h))
            cv2.line(m, p1, p2, v, thickness=random.randint(1, 3))
        elif kind < 0.9:
            for _ in range(30):
                x, y = random.randint(0, w - 1), random.randint(0, h - 1); s = random.randint(1, 4)
                m[y:y + s, x:x + s] = v
        else:
            c = (random.randint(0, w), random.randint(0, h))
            cv2.ellipse(m, c, (random.randint(3, 80), random.randint(3, 30)), random.uniform(0, 180), 0, 360, v, -1)
    if random.random() < 0.6:
        m = cv2.GaussianBlur(m, (0, 0), random.uniform(0.5, 2.5))
    m += rng.normal(0, random.choice([0, 0.02, 0.08]), m.shape).astype(np.float32)
    return np.clip(m, 0, 1).astype(np.float32)

def grid():
    m = np.zeros((480, 640), np.float32)
    for y in range(2, 480 - 8, 11):
        for x in range(2, 640 - 8, 11):
            m[y:y + 7, x:x + 6] = 0.9
    return m

cases = []
for i in range(140):
    w, h = random.choice([(96, 64), (320, 224), (640, 480), (992, 736), (1088, 736), (736, 1312)])
    m = synth(w, h, random.randint(3, 60))
    cases.append(m)
cases.append(grid())
recs = []
for i, m in enumerate(cases):
    mh, mw = m.shape
    s = random.choice([1.0, 1.0, random.uniform(0.4, 2.5)])
    iw, ih = max(8, int(mw * s * random.uniform(0.97, 1.03))), max(8, int(mh * s * random.uniform(0.97, 1.03)))
    pred = m[None, None]
    boxes, scores = post(pred, (ih, iw))
    filt = det.filter_tag_det_res(boxes, (ih, iw))
    final = eng.sorted_boxes(filt) if len(filt) else []
    name = f"synth{i:03d}"
    m.tofile(f"{OUT}/{name}_map.f32")
    recs.append({"name": name, "mapWidth": mw, "mapHeight": mh, "imageWidth": iw, "imageHeight": ih,
                 "post": [[b.tolist(), float(sc)] for b, sc in zip(boxes, scores)],
                 "final": [np.asarray(b).astype(np.int64).tolist() for b in final], "finalScores": final_scores(det, boxes, scores, (ih, iw), final)})
json.dump(recs, open(f"{OUT}/synth.json", "w"))
print(len(recs), "maps", sum(len(r["final"]) for r in recs), "final boxes", sum(len(r["post"]) for r in recs), "post boxes")
