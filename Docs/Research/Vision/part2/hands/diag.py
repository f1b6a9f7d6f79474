import ov_hands as O, numpy as np, cv2, glob, os, time, math
for f in sorted(glob.glob('/work/shared/images/people/*.jpg')):
    img=cv2.cvtColor(cv2.imread(f),cv2.COLOR_BGR2RGB); H,W=img.shape[:2]
    if H/W<1: nw=W; 
    else: nw=H
    t=O.crop(img,W/2,H/2,nw,nw,0.0,192,cv2.BORDER_CONSTANT); O.palm.infer({0:t[None]})
    sc=O.palm.get_output_tensor(1).data[0,:,0]; s=1/(1+np.exp(-sc))
    top=np.sort(s)[::-1][:3]
    palms=O.detect_palms(img)
    print(os.path.basename(f), 'raw>=0.5: %d'%(s>=0.5).sum(), 'after NMS: %d'%len(palms), 'palm scores', [round(float(p[0]),4) for p in palms], 'top raw', np.round(top,4))
# timing breakdown
img=cv2.cvtColor(cv2.imread('/work/shared/images/people/phone-3.jpg'),cv2.COLOR_BGR2RGB)
def tm(fn,n=50):
    fn(); ts=[]
    for _ in range(n):
        t=time.perf_counter(); fn(); ts.append(time.perf_counter()-t)
    return np.median(ts)*1e3, np.min(ts)*1e3
x=O.crop(img,192,256,512,512,0,192,cv2.BORDER_CONSTANT)[None]
y=O.crop(img,175,188,72,72,0.8,224,cv2.BORDER_REPLICATE)[None]
print('palm crop %.2f/%.2f ms'%tm(lambda:O.crop(img,192,256,512,512,0,192,cv2.BORDER_CONSTANT)))
print('palm infer %.2f/%.2f ms'%tm(lambda:O.palm.infer({0:x})))
print('lmk infer %.2f/%.2f ms'%tm(lambda:O.lmk.infer({0:y})))
print('full process (1 hand) %.2f/%.2f ms'%tm(lambda:O.process(img),30))
