"""Runs rapidocr-onnxruntime 1.4.4's detector on test images and dumps the reference data.

For each image: the probability map (float32), the letterboxed BGR image and the detector input
(uint8), rapidocr's boxes after DBPostProcess / filter_tag_det_res / sorted_boxes, per-contour
intermediates for debugging, and cv2 crops (warpPerspective INTER_CUBIC + BORDER_REPLICATE) and
their height-48 resizes.
"""
import json, sys, glob, os, math
import numpy as np, cv2
from scores import final_scores
from rapidocr_onnxruntime import RapidOCR
from shapely.geometry import Polygon
import pyclipper

OUT = "/tmp/textgeom/data"
eng = RapidOCR()
det = eng.text_det
post = det.postprocess_op

def contour_debug(pred, bitmap):
    """Per-contour intermediates in findContours order (first max_candidates)."""
    outs = cv2.findContours((bitmap * 255).astype(np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    contours = outs[0] if len(outs) == 2 else outs[1]
    res = []
    for c in contours[: post.max_candidates]:
        d = {"n": int(len(c)), "p0": c[0, 0].tolist()}
        pts, sside = post.get_mini_boxes(c)
        d["box1"] = pts.astype(np.float64).tolist(); d["sside1"] = float(sside)
        if sside < post.min_size: res.append(d); continue
        score = post.box_score_fast(pred, pts.reshape(-1, 2)); d["score"] = float(score)
        if post.box_thresh > score: res.append(d); continue
        poly = Polygon(pts); d["dist"] = poly.area * post.unclip_ratio / poly.length
        off = pyclipper.PyclipperOffset(); off.AddPath(pts, pyclipper.JT_ROUND, pyclipper.ET_CLOSEDPOLYGON)
        exp = off.Execute(d["dist"]); d["unclip"] = [list(map(int, p)) for p in exp[0]] if exp else []
        box, s2 = post.get_mini_boxes(np.array(exp).reshape((-1, 1, 2)))
        d["box2"] = box.astype(np.float64).tolist(); d["sside2"] = float(s2)
        res.append(d)
    return len(contours), res

def run(path, name, crops=True):
    img = eng.load_img(path)
    raw_h, raw_w = img.shape[:2]
    img, ratio_h, ratio_w = eng.preprocess(img)
    img, op = eng.maybe_add_letterbox(img, {})
    h, w = img.shape[:2]
    pre = det.get_preprocess(max(h, w))
    resized = pre.resize(img)
    x = pre(img)
    pred = det.infer(x)[0]
    mh, mw = pred.shape[2:]
    pmap = pred[0, 0].astype(np.float32)
    pmap.tofile(f"{OUT}/{name}_map.f32")
    img.tofile(f"{OUT}/{name}_img.u8")
    resized.tofile(f"{OUT}/{name}_detin.u8")
    boxes, scores = post(pred, (h, w))
    filt = det.filter_tag_det_res(boxes, (h, w))
    final = eng.sorted_boxes(filt) if len(filt) else []
    seg = pmap > post.thresh
    mask = cv2.dilate(seg.astype(np.uint8), post.dilation_kernel)
    ncont, dbg = contour_debug(pmap, mask)
    rec = {"name": name, "imageWidth": w, "imageHeight": h, "mapWidth": int(mw), "mapHeight": int(mh),
           "detInWidth": int(resized.shape[1]), "detInHeight": int(resized.shape[0]),
           "post": [[b.tolist(), float(s)] for b, s in zip(boxes, scores)],
           "final": [np.asarray(b).astype(np.int64).tolist() for b in final], "finalScores": final_scores(det, boxes, scores, (h, w), final),
           "contours": ncont, "debug": dbg, "crops": []}
    if crops:
        for i, points in enumerate(final):
            points = np.asarray(points, dtype=np.float32)
            cw = int(max(np.linalg.norm(points[0] - points[1]), np.linalg.norm(points[2] - points[3])))
            ch = int(max(np.linalg.norm(points[0] - points[3]), np.linalg.norm(points[1] - points[2])))
            std = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]]).astype(np.float32)
            M = cv2.getPerspectiveTransform(points, std)
            crop = cv2.warpPerspective(img, M, (cw, ch), borderMode=cv2.BORDER_REPLICATE, flags=cv2.INTER_CUBIC)
            crop.tofile(f"{OUT}/{name}_crop{i}.u8")
            rw = int(math.ceil(48 * cw / ch))
            r48 = cv2.resize(crop, (rw, 48))
            r48.tofile(f"{OUT}/{name}_crop{i}_r48.u8")
            rec["crops"].append({"w": cw, "h": ch, "r48w": rw, "M": M.tolist()})
    json.dump(rec, open(f"{OUT}/{name}.json", "w"))
    print(name, (w, h), (mw, mh), "post", len(boxes), "final", len(final), "contours", ncont)
    return name

names = []
imgs = sorted(glob.glob("/tmp/vision2-text/images/*.png")) + sorted(glob.glob("/tmp/textgeom/images/*.png"))
for p in imgs:
    n = os.path.splitext(os.path.basename(p))[0]
    names.append(run(p, n))
json.dump(names, open(f"{OUT}/index.json", "w"))
