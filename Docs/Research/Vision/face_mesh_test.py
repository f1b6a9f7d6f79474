# Face mesh through OpenVINO vs mp.solutions.face_mesh (static images).
import glob, sys, math, time, cv2, numpy as np, openvino as ov, mediapipe as mp
sys.path.insert(0, "/tmp/vision-research")
from fd_decode import *; from prep import letterbox
M = "/tmp/vision-research/mp/mediapipe/modules/"
core = ov.Core(); cfgp = {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32"}
fdm = core.compile_model(M + "face_detection/face_detection_short_range.tflite", "CPU", cfgp)
flm = core.compile_model(M + "face_landmark/face_landmark.tflite", "CPU", cfgp)

def roi_from_detection(box, kps, W, H):
    """Box centre, rotation from right-eye->left-eye keypoints, 1.5x, square (long side in px)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    w, h = box[2] - box[0], box[3] - box[1]
    x0, y0 = kps[0] * [W, H]; x1, y1 = kps[1] * [W, H]
    rot = -math.atan2(-(y1 - y0), x1 - x0)              # target angle 0
    rot = rot - 2 * math.pi * math.floor((rot + math.pi) / (2 * math.pi))
    side = max(w * W, h * H)
    return cx * W, cy * H, side * 1.5, side * 1.5, rot   # pixels, radians

def crop(rgb, roi, S):
    cx, cy, w, h, rot = roi
    src = cv2.boxPoints(((cx, cy), (w, h), rot * 180 / math.pi)).astype(np.float32)
    dst = np.float32([[0, S], [0, 0], [S, 0], [S, S]])
    P = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(rgb, P, (S, S), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

def project(lm, roi, W, H, S=192):
    """lm [468,3] in tensor pixels -> image pixels (z in the same scale as x)."""
    cx, cy, w, h, rot = roi
    x = lm[:, 0] / S - 0.5; y = lm[:, 1] / S - 0.5
    c, s = math.cos(rot), math.sin(rot)
    return np.stack([(c * x - s * y) * w + cx, (s * x + c * y) * h + cy, lm[:, 2] / S * w], 1)

imgs = sorted(glob.glob("/work/shared/images/people/*.jpg")) + ["/work/shared/images/astronaut.png"]
with mp.solutions.face_mesh.FaceMesh(static_image_mode=True, max_num_faces=1, refine_landmarks=False) as fm:
    for p in imgs:
        bgr = cv2.imread(p); H, W = bgr.shape[:2]; rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
        r = fm.process(rgb)
        x, _ = letterbox(p, 128); out = fdm(x[None])
        dets = unletterbox(weighted_nms(decode(out[fdm.outputs[0]].reshape(-1, 16), out[fdm.outputs[1]].reshape(-1), SHORT)), W, H)
        if not dets:
            print(f"{p.split('/')[-1]:20s} no detection (mp mesh: {0 if not r.multi_face_landmarks else len(r.multi_face_landmarks)})"); continue
        sc, box, kps = max(dets, key=lambda d: d[0])
        roi = roi_from_detection(box, kps, W, H)
        t = crop(rgb, roi, 192).astype(np.float32) / 255.0
        t0 = time.perf_counter(); o = flm(t[None]); dt = (time.perf_counter() - t0) * 1e3
        lm = o[flm.outputs[0]].reshape(468, 3); flag = 1 / (1 + math.exp(-float(o[flm.outputs[1]].reshape(-1)[0])))
        ours = project(lm, roi, W, H)
        if not r.multi_face_landmarks:
            print(f"{p.split('/')[-1]:20s} mp mesh none; ours presence={flag:.3f}"); continue
        ref = np.array([[l.x * W, l.y * H, l.z * W] for l in r.multi_face_landmarks[0].landmark])
        fw = ref[:, 0].max() - ref[:, 0].min()
        d = np.linalg.norm(ours[:, :2] - ref[:, :2], axis=1)
        print(f"{p.split('/')[-1]:20s} presence={flag:.3f} roll={math.degrees(roi[4]):+.1f}deg meanErr={d.mean()/fw*100:.3f}% maxErr={d.max()/fw*100:.3f}% of face width ({fw:.0f}px) zErrMax={np.abs(ours[:,2]-ref[:,2]).max():.2f}px infer={dt:.2f}ms")
        if p.endswith("phone-2.jpg"):
            vis = bgr.copy()
            for (a, b, _) in ours: cv2.circle(vis, (int(a), int(b)), 1, (0, 255, 0), -1)
            cv2.imwrite("/tmp/vision-research/mesh.png", vis[150:300, 100:250].repeat(3, 0).repeat(3, 1))
