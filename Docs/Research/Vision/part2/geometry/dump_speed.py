"""A dense 2000x1504 synthetic map (many text-like bars + noise) for timing find(), with rapidocr's result."""
import json, random, time
import numpy as np, cv2
from rapidocr_onnxruntime import RapidOCR
from scores import final_scores
random.seed(3); rng = np.random.default_rng(3)
m = np.zeros((1504, 2000), np.float32)
for _ in range(900):
    cx, cy = random.uniform(0, 2000), random.uniform(0, 1504)
    pts = cv2.boxPoints(((cx, cy), (random.uniform(20, 400), random.uniform(6, 30)), random.uniform(-10, 10)))
    cv2.fillPoly(m, [np.round(pts).astype(np.int32)], random.uniform(0.6, 1.0))
m = cv2.GaussianBlur(m, (0, 0), 1.2) + rng.normal(0, 0.05, m.shape).astype(np.float32)
m = np.clip(m, 0, 1).astype(np.float32)
m.tofile("/tmp/textgeom/data/speed_map.f32")
eng = RapidOCR(); det = eng.text_det; post = det.postprocess_op
t = time.perf_counter()
boxes, scores = post(m[None, None], (1504, 2000)); filt = det.filter_tag_det_res(boxes, (1504, 2000)); final = eng.sorted_boxes(filt)
print("python post-processing ms", (time.perf_counter() - t) * 1000, len(final))
json.dump({"name": "speed", "mapWidth": 2000, "mapHeight": 1504, "imageWidth": 2000, "imageHeight": 1504,
           "final": [np.asarray(b).astype(np.int64).tolist() for b in final],
           "finalScores": final_scores(det, boxes, scores, (1504, 2000), final)}, open("/tmp/textgeom/data/speed.json", "w"))
