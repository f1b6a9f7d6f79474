import glob, sys, time, cv2, numpy as np, openvino as ov, mediapipe as mp
M = "/tmp/vision-research/mp/mediapipe/modules/"
core = ov.Core(); cfgp = {"INFERENCE_NUM_THREADS": 1, "INFERENCE_PRECISION_HINT": "f32"}
selfie = core.compile_model("/tmp/vision-research/selfie_segmentation_rewritten.tflite", "CPU", cfgp)
pose = core.compile_model(M + "pose_landmark/pose_landmark_full.tflite", "CPU", cfgp)
def iou(a, b): a, b = a > 0.5, b > 0.5; return (a & b).sum() / max(1, (a | b).sum())
imgs = sorted(glob.glob("/work/shared/images/people/*.jpg")) + ["/work/shared/images/astronaut.png"]
ss = mp.solutions.selfie_segmentation.SelfieSegmentation(model_selection=0)
ps = mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1, enable_segmentation=True)
panels = []
for p in imgs:
    bgr = cv2.imread(p); H, W = bgr.shape[:2]; rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    ref = ss.process(rgb).segmentation_mask
    pr = ps.process(rgb); pref = pr.segmentation_mask
    # selfie: stretch to 256x256 (edge-aligned like MediaPipe), [0,1]; output is already a probability
    A = cv2.getAffineTransform(np.float32([[0, 0], [W, 0], [W, H]]), np.float32([[0, 0], [256, 0], [256, 256]]))
    t = cv2.warpAffine(rgb, A, (256, 256), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    t0 = time.perf_counter(); o = selfie(t[None])[selfie.outputs[0]].reshape(256, 256); dt = (time.perf_counter() - t0) * 1e3
    ours = cv2.resize(o, (W, H))
    # pose_landmark_full on the letterboxed whole image (no pose detector / ROI): mask logits -> sigmoid
    side = max(W, H); A2 = cv2.getAffineTransform(np.float32([[W/2-side/2, H/2-side/2], [W/2+side/2, H/2-side/2], [W/2+side/2, H/2+side/2]]), np.float32([[0, 0], [256, 0], [256, 256]]))
    t2 = cv2.warpAffine(rgb, A2, (256, 256), flags=cv2.INTER_LINEAR).astype(np.float32) / 255
    po = pose(t2[None]); logit = po[pose.outputs[2]].reshape(256, 256); flag = float(po[pose.outputs[1]].reshape(-1)[0])
    pm = cv2.warpAffine(1 / (1 + np.exp(-logit)), A2, (W, H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    line = f"{p.split('/')[-1]:20s} selfie IoU={iou(ours, ref):.4f} meanAbs={np.abs(ours-ref).mean():.4f} ({dt:.1f}ms) | poseMask(letterbox) vs selfieRef IoU={iou(pm, ref):.3f} poseFlag={flag:.2f}"
    if pref is not None: line += f" | mpPoseMask vs selfieRef IoU={iou(pref, ref):.3f} ourPose vs mpPose IoU={iou(pm, pref):.3f}"
    print(line)
    if len(panels) < 8:
        def tint(m): v = bgr.copy(); v[m > 0.5] = (0.5 * v[m > 0.5] + [0, 127, 0]).astype(np.uint8); return cv2.resize(v, (192, 256))
        panels.append(np.vstack([tint(ours), tint(pm)]))
cv2.imwrite("/tmp/vision-research/masks.png", np.hstack(panels))
