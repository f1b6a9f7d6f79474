# Compare our OpenVINO + fd_decode pipeline to MediaPipe's own Python solution.
import glob, sys, time, cv2, numpy as np, openvino as ov, mediapipe as mp
sys.path.insert(0, "/tmp/vision-research")
from fd_decode import *
from prep import letterbox
M = "/tmp/vision-research/mp/mediapipe/modules/face_detection/"
core = ov.Core()
models = {0: (core.compile_model(M + "face_detection_short_range.tflite", "CPU", {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32"}), SHORT),
          1: (core.compile_model(M + "face_detection_full_range_sparse.tflite", "CPU", {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32"}), FULL)}
imgs = sorted(glob.glob("/work/shared/images/people/*.jpg")) + ["/work/shared/images/astronaut.png"]
for sel in (0, 1):
    cm, cfg = models[sel]
    print("== model_selection", sel, [o.get_any_name() for o in cm.outputs], [tuple(o.get_shape()) for o in cm.outputs])
    with mp.solutions.face_detection.FaceDetection(model_selection=sel, min_detection_confidence=0.5) as fd:
        for p in imgs:
            bgr = cv2.imread(p); H, W = bgr.shape[:2]
            r = fd.process(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
            ref = [] if not r.detections else r.detections
            x, _ = letterbox(p, cfg["size"])
            out = cm(x[None])
            reg = out[cm.outputs[0]].reshape(-1, 16); cls = out[cm.outputs[1]].reshape(-1)
            ours = unletterbox(weighted_nms(decode(reg, cls, cfg, min_score=0.5)), W, H)
            line = f"{p.split('/')[-1]:20s} mp={len(ref)} ours={len(ours)}"
            for d in ref:
                bb = d.location_data.relative_bounding_box
                rb = np.array([bb.xmin, bb.ymin, bb.xmin + bb.width, bb.ymin + bb.height])
                best = max(ours, key=lambda o: iou(o[1], rb), default=None)
                if best is None: line += " MISSING"; continue
                kp = np.array([[k.x, k.y] for k in d.location_data.relative_keypoints])
                fw = (rb[2] - rb[0]) * W
                kerr = np.abs((best[2] - kp) * [W, H]).max() / fw
                line += f" | mpScore={d.score[0]:.3f} ourScore={best[0]:.3f} IoU={iou(best[1], rb):.4f} kpMaxErr={kerr*100:.2f}%ofFaceW"
            print(line)
