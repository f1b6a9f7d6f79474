# Decode the C program's raw output for one photo and draw it.
import sys, cv2, numpy as np
from fd_decode import *
img_path, prefix = sys.argv[1], sys.argv[2]
reg = np.fromfile(prefix + ".out0.f32", np.float32).reshape(-1, 16)
cls = np.fromfile(prefix + ".out1.f32", np.float32)
img = cv2.imread(img_path); H, W = img.shape[:2]
dets = unletterbox(weighted_nms(decode(reg, cls, SHORT)), W, H)
names = ["rightEye", "leftEye", "noseTip", "mouth", "rightEarTragion", "leftEarTragion"]
for sc, b, k in dets:
    px = b * [W, H, W, H]
    print(f"score {sc:.3f} box px xmin={px[0]:.1f} ymin={px[1]:.1f} w={px[2]-px[0]:.1f} h={px[3]-px[1]:.1f}")
    cv2.rectangle(img, (int(px[0]), int(px[1])), (int(px[2]), int(px[3])), (0, 255, 0), 2)
    for (x, y), n in zip(k, names):
        print(f"   {n}: ({x*W:.1f}, {y*H:.1f})")
        cv2.circle(img, (int(x*W), int(y*H)), 3, (0, 0, 255), -1)
cv2.imwrite(sys.argv[3], img)
