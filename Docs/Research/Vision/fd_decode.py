# Decode MediaPipe BlazeFace (face_detection_short_range / full_range) raw
# outputs: SSD anchors, box/keypoint decoding, sigmoid scores, weighted NMS,
# and undo of the letterbox. Written from the parameters in the .pbtxt graphs.
import numpy as np

SHORT = dict(size=128, strides=[8, 16, 16, 16], interp=1.0, scale=128.0, thresh=0.5)
FULL = dict(size=192, strides=[4], interp=0.0, scale=192.0, thresh=0.6)  # MediaPipe 0.10.21 python ignores min_detection_confidence

def anchors(cfg):
    """Centres of the SSD anchors; fixed_anchor_size means w = h = 1."""
    S, strides = cfg["size"], cfg["strides"]
    out, i = [], 0
    while i < len(strides):
        j, per_cell = i, 0
        while j < len(strides) and strides[j] == strides[i]:
            per_cell += 1 + (1 if cfg["interp"] > 0 else 0)   # aspect 1.0 (+ interpolated)
            j += 1
        fm = int(np.ceil(S / strides[i]))
        for y in range(fm):
            for x in range(fm):
                for _ in range(per_cell):
                    out.append(((x + 0.5) / fm, (y + 0.5) / fm))
        i = j
    return np.array(out, np.float32)

def decode(reg, cls, cfg, min_score=None):
    """reg [N,16] (x, y, w, h, then 6 keypoints x,y), cls [N] raw logits.
    Returns list of (score, box[xmin,ymin,xmax,ymax], kps[6,2]) in tensor-normalised coords."""
    a = anchors(cfg); assert len(a) == len(reg), (len(a), len(reg))
    s = cfg["scale"]
    cx = reg[:, 0] / s + a[:, 0]; cy = reg[:, 1] / s + a[:, 1]
    w = reg[:, 2] / s; h = reg[:, 3] / s
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1)
    kps = reg[:, 4:16].reshape(-1, 6, 2) / s + a[:, None, :]
    score = 1 / (1 + np.exp(-np.clip(cls, -100, 100)))
    thr = cfg["thresh"] if min_score is None else min_score
    keep = (score >= thr) & (w >= 0) & (h >= 0)
    return [(float(score[i]), boxes[i], kps[i]) for i in np.nonzero(keep)[0]]

def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0])); iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy; ua = (a[2]-a[0])*(a[3]-a[1]) + (b[2]-b[0])*(b[3]-b[1]) - inter
    return inter / ua if ua > 0 else 0.0

def weighted_nms(dets, thr=0.3):
    """Blend every box overlapping the best one (IoU > thr) weighted by score;
    the blended detection keeps the best score."""
    rest = sorted(dets, key=lambda d: -d[0]); out = []
    while rest:
        best = rest[0]
        cand = [d for d in rest if iou(d[1], best[1]) > thr]
        rest = [d for d in rest if iou(d[1], best[1]) <= thr]
        wsum = sum(d[0] for d in cand)
        box = sum(d[1] * d[0] for d in cand) / wsum
        kps = sum(d[2] * d[0] for d in cand) / wsum
        out.append((best[0], box, kps))
    return out

def unletterbox(dets, img_w, img_h):
    """Tensor-normalised -> image-normalised (undo the centred square pad)."""
    side = max(img_w, img_h); px = (1 - img_w / side) / 2; py = (1 - img_h / side) / 2
    sx, sy = 1 - 2 * px, 1 - 2 * py
    res = []
    for sc, b, k in dets:
        b = np.array([(b[0]-px)/sx, (b[1]-py)/sy, (b[2]-px)/sx, (b[3]-py)/sy])
        k = np.stack([(k[:, 0]-px)/sx, (k[:, 1]-py)/sy], 1)
        res.append((sc, b, k))
    return res
