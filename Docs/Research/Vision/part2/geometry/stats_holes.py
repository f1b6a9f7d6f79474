"""How many boxes in the reference data come from hole borders, and whether the 1000-candidate cap bites."""
import json, numpy as np, cv2, glob
from rapidocr_onnxruntime import RapidOCR
post = RapidOCR().text_det.postprocess_op
holes_total = holes_boxes = capped = 0
files = [(r["name"], r["mapWidth"], r["mapHeight"]) for r in json.load(open("/tmp/textgeom/data/synth.json"))]
files += [(n, json.load(open(f"/tmp/textgeom/data/{n}.json"))["mapWidth"], json.load(open(f"/tmp/textgeom/data/{n}.json"))["mapHeight"]) for n in json.load(open("/tmp/textgeom/data/index.json"))]
for name, w, h in files:
    m = np.fromfile(f"/tmp/textgeom/data/{name}_map.f32", np.float32).reshape(h, w)
    bm = cv2.dilate((m > 0.3).astype(np.uint8), np.ones((2, 2)))
    cs, hier = cv2.findContours(bm * 255, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if len(cs) > 1000: capped += 1
    for c, hh in zip(cs, hier[0] if hier is not None else []):
        if hh[3] < 0: continue
        holes_total += 1
        pts, s = post.get_mini_boxes(c)
        if s < 3: continue
        if post.box_score_fast(m, pts.reshape(-1, 2)) < 0.5: continue
        holes_boxes += 1
print("hole contours", holes_total, "hole contours passing size+score", holes_boxes, "maps over 1000 contours", capped)
