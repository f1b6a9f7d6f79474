# Letterbox an image into an SxS RGB float32 NHWC tensor in [-1,1], like
# MediaPipe's ImageToTensorCalculator (keep_aspect_ratio, BORDER_ZERO).
import sys, cv2, numpy as np
def letterbox(path, S):
    bgr = cv2.imread(path); h, w = bgr.shape[:2]
    side = max(w, h); cx, cy = w / 2, h / 2
    # ROI corners -> tensor corners (same corner mapping as MediaPipe: image
    # edge to tensor edge, not pixel centre to pixel centre)
    src = np.float32([[cx - side/2, cy - side/2], [cx + side/2, cy - side/2], [cx + side/2, cy + side/2]])
    dst = np.float32([[0, 0], [S, 0], [S, S]])
    M = cv2.getAffineTransform(src, dst)
    rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
    t = cv2.warpAffine(rgb, M, (S, S), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    x = t.astype(np.float32) * (2 / 255.0) - 1.0
    # padding as fractions of the tensor (to undo the letterbox)
    padx = (1 - w / side) / 2; pady = (1 - h / side) / 2
    return x, (w, h, padx, pady)
if __name__ == "__main__":
    path, S, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    x, info = letterbox(path, S)
    x.tofile(out); print("wrote", out, x.shape, "img w,h,padx,pady =", info)
