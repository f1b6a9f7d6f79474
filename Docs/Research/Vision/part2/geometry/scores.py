"""Recovers the score of each final box (rapidocr drops scores in filter_tag_det_res)."""
import numpy as np

def final_scores(det, boxes, scores, shape, final):
    h, w = shape
    kept = []
    for box, s in zip(boxes, scores):
        b = det.clip_det_res(det.order_points_clockwise(np.array(box)), h, w)
        if int(np.linalg.norm(b[0] - b[1])) <= 3 or int(np.linalg.norm(b[0] - b[3])) <= 3:
            continue
        kept.append((b, float(s)))
    out, used = [], [False] * len(kept)
    for b in final:
        for i, (k, s) in enumerate(kept):
            if not used[i] and np.array_equal(np.asarray(b), k):
                used[i] = True; out.append(s); break
    assert len(out) == len(final)
    return out
