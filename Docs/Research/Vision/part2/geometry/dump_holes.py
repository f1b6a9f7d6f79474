"""Maps with small holes inside solid regions, where the hole border itself yields a box."""
import json, random
import numpy as np, cv2
from rapidocr_onnxruntime import RapidOCR
from scores import final_scores
random.seed(4)
eng = RapidOCR(); det = eng.text_det; post = det.postprocess_op
recs = []
for i in range(40):
    w, h = 320, 160
    m = np.zeros((h, w), np.float32)
    for k in range(6):
        x, y = random.randint(5, 250), random.randint(5, 110)
        bw, bh = random.randint(12, 60), random.randint(10, 40)
        m[y:y + bh, x:x + bw] = random.uniform(0.9, 1.0)
        hw, hh = random.randint(2, 5), random.randint(2, 5)
        hx, hy = x + random.randint(2, max(2, bw - hw - 2)), y + random.randint(2, max(2, bh - hh - 2))
        m[hy:hy + hh, hx:hx + hw] = random.uniform(0.0, 0.29) if k % 2 else random.uniform(0.26, 0.299)
    if i % 2: m = cv2.warpAffine(m, cv2.getRotationMatrix2D((w / 2, h / 2), random.uniform(-20, 20), 1), (w, h))
    name = f"hole{i:02d}"
    m.astype(np.float32).tofile(f"/tmp/textgeom/data/{name}_map.f32")
    boxes, scores = post(m[None, None], (h, w)); filt = det.filter_tag_det_res(boxes, (h, w))
    final = eng.sorted_boxes(filt) if len(filt) else []
    recs.append({"name": name, "mapWidth": w, "mapHeight": h, "imageWidth": w, "imageHeight": h,
                 "final": [np.asarray(b).astype(np.int64).tolist() for b in final],
                 "finalScores": final_scores(det, boxes, scores, (h, w), final)})
json.dump(recs, open("/tmp/textgeom/data/holes.json", "w"))
# count boxes coming from hole borders
n = 0
for r in recs:
    m = np.fromfile(f"/tmp/textgeom/data/{r['name']}_map.f32", np.float32).reshape(160, 320)
    bm = cv2.dilate((m > 0.3).astype(np.uint8), np.ones((2, 2)))
    cs, hi = cv2.findContours(bm * 255, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    for c, hh in zip(cs, hi[0]):
        if hh[3] < 0: continue
        pts, s = post.get_mini_boxes(c)
        if s >= 3 and post.box_score_fast(m, pts.reshape(-1, 2)) >= 0.5:
            box = post.unclip(pts); b2, s2 = post.get_mini_boxes(box)
            if s2 >= 5: n += 1
print("maps", len(recs), "final boxes", sum(len(r["final"]) for r in recs), "boxes from hole borders", n)
