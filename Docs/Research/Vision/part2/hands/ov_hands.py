# Validation re-implementation of HandLandmarkTrackingCpu (static mode) over OpenVINO, per REPORT.md.
import openvino as ov, numpy as np, cv2, json, glob, os, time, math
core = ov.Core(); cfg = {'INFERENCE_NUM_THREADS':1,'INFERENCE_PRECISION_HINT':'f32'}
M='wheel/mediapipe/modules/'
palm = core.compile_model(M+'palm_detection/palm_detection_full.tflite','CPU',cfg).create_infer_request()
lmk  = core.compile_model(M+'hand_landmark/hand_landmark_full.tflite','CPU',cfg).create_infer_request()

def anchors():
    a=[]
    for stride,n in [(8,2),(16,6)]:
        fm = math.ceil(192/stride)
        for y in range(fm):
            for x in range(fm):
                for _ in range(n): a.append(((x+0.5)/fm,(y+0.5)/fm))
    return np.array(a,np.float32)
ANCH = anchors(); assert len(ANCH)==2016

def crop(img, cx, cy, w, h, rot, size, border):
    pts = cv2.boxPoints(((cx,cy),(w,h),rot*180/math.pi)).astype(np.float32)
    dst = np.array([[0,size],[0,0],[size,0],[size,size]],np.float32)
    P = cv2.getPerspectiveTransform(pts,dst)
    out = cv2.warpPerspective(img,P,(size,size),flags=cv2.INTER_LINEAR,borderMode=border,borderValue=0)
    return out.astype(np.float32)/255.0

def iou(a,b):  # boxes xmin,ymin,xmax,ymax
    ix=max(0,min(a[2],b[2])-max(a[0],b[0])); iy=max(0,min(a[3],b[3])-max(a[1],b[1]))
    if ix<=0 or iy<=0: return 0.0
    i=ix*iy; return i/((a[2]-a[0])*(a[3]-a[1])+(b[2]-b[0])*(b[3]-b[1])-i)

def detect_palms(img):
    H,W=img.shape[:2]
    if H/W < 1: nw=nh=W; px=0.0; py=(1-H/W)/2
    else: nw=nh=H; px=(1-W/H)/2; py=0.0
    t = crop(img, W/2, H/2, nw, nh, 0.0, 192, cv2.BORDER_CONSTANT)
    palm.infer({0:t[None]})
    raw = palm.get_output_tensor(0).data[0]; sc = palm.get_output_tensor(1).data[0,:,0]
    s = 1/(1+np.exp(-np.clip(sc,-100,100)))
    dets=[]
    for i in np.nonzero(s>=0.5)[0]:
        r=raw[i]; ax,ay=ANCH[i]
        xc=r[0]/192+ax; yc=r[1]/192+ay; w=r[2]/192; h=r[3]/192
        if w<0 or h<0: continue
        kp=np.stack([r[4::2]/192+ax, r[5::2]/192+ay],1)
        dets.append([s[i], np.array([xc-w/2,yc-h/2,xc+w/2,yc+h/2]), kp])
    dets.sort(key=lambda d:-d[0])
    out=[]
    while dets:
        top=dets[0]; cand=[d for d in dets if iou(d[1],top[1])>0.3]; rest=[d for d in dets if iou(d[1],top[1])<=0.3]
        ws=np.array([d[0] for d in cand])
        box=(np.stack([d[1] for d in cand])*ws[:,None]).sum(0)/ws.sum()
        kp=(np.stack([d[2] for d in cand])*ws[:,None,None]).sum(0)/ws.sum()
        out.append([top[0],box,kp])
        if len(rest)==len(dets): break
        dets=rest
    for d in out:  # letterbox removal
        d[1]=(d[1]-[px,py,px,py])/[1-2*px,1-2*py,1-2*px,1-2*py]
        d[2]=(d[2]-[px,py])/[1-2*px,1-2*py]
    return out

def palm_to_roi(d,W,H):
    b,kp=d[1],d[2]
    xc=(b[0]+b[2])/2; yc=(b[1]+b[3])/2; w=b[2]-b[0]; h=b[3]-b[1]
    x0,y0=kp[0]*[W,H]; x1,y1=kp[2]*[W,H]
    a=math.pi/2-math.atan2(-(y1-y0),x1-x0); rot=a-2*math.pi*math.floor((a+math.pi)/(2*math.pi))
    xc+= (-H*h*(-0.5)*math.sin(rot))/W; yc+= (H*h*(-0.5)*math.cos(rot))/H
    L=max(w*W,h*H); return [xc,yc,L/W*2.6,L/H*2.6,rot]

def process(img, max_hands=2):
    H,W=img.shape[:2]
    palms=detect_palms(img)[:max_hands]
    rects=[]
    for d in palms:
        r=palm_to_roi(d,W,H)
        bx=lambda r:[r[0]-r[2]/2,r[1]-r[3]/2,r[0]+r[2]/2,r[1]+r[3]/2]
        rects=[q for q in rects if iou(bx(q),bx(r))<=0.5]+[r]
    hands=[]
    for (xc,yc,w,h,rot),d in zip(rects,palms):
        t=crop(img,xc*W,yc*H,w*W,h*H,rot,224,cv2.BORDER_REPLICATE)
        lmk.infer({0:t[None]})
        L=lmk.get_output_tensor(0).data[0].reshape(21,3); flag=float(lmk.get_output_tensor(1).data[0,0]); hd=float(lmk.get_output_tensor(2).data[0,0])
        if flag<0.5: continue
        x=L[:,0]/224-0.5; y=L[:,1]/224-0.5; z=L[:,2]/224/0.4
        nx=(math.cos(rot)*x-math.sin(rot)*y)*w+xc; ny=(math.sin(rot)*x+math.cos(rot)*y)*h+yc; nz=z*w
        label,score=('Left',hd) if hd>=0.5 else ('Right',1-hd)
        hands.append(dict(label=label,score=score,flag=flag,palm_score=float(d[0]),rect=[xc*W,yc*H,w*W,rot],lm=np.stack([nx*W,ny*H,nz*W],1).tolist()))
    return hands

if __name__=='__main__':
    ref=json.load(open('mp_ref.json'))
    for f in sorted(glob.glob('/work/shared/images/people/*.jpg')):
        k=os.path.basename(f); img=cv2.cvtColor(cv2.imread(f),cv2.COLOR_BGR2RGB)
        process(img); ts=[]
        for _ in range(5):
            t=time.perf_counter(); hs=process(img); ts.append(time.perf_counter()-t)
        print(k,'n=%d (mp %d)'%(len(hs),len(ref[k]['hands'])),'%.1f ms'%(np.median(ts)*1e3))
        for h in hs:
            p=np.array(h['lm']); mn=p[:,:2].min(0); mx=p[:,:2].max(0); diag=np.hypot(*(mx-mn))
            best=None
            for r in ref[k]['hands']:
                q=np.array(r['lm']); e=np.hypot(*(p[:,:2]-q[:,:2]).T)
                if best is None or e.mean()<best[0].mean(): best=(e,r,q)
            e,r,q=best; qd=np.hypot(*(q[:,:2].max(0)-q[:,:2].min(0)))
            print('   ov %s %.4f (mp %s %.4f) flag %.4f palm %.4f roi c=(%.1f,%.1f) side=%.1f rot=%.1fdeg | mean err %.2f px max %.2f px = %.2f%% / %.2f%% of diag %.1f; |dz| max %.2f px'%(
                h['label'],h['score'],r['label'],r['score'],h['flag'],h['palm_score'],h['rect'][0],h['rect'][1],h['rect'][2],math.degrees(h['rect'][3]),e.mean(),e.max(),100*e.mean()/qd,100*e.max()/qd,qd,np.abs(p[:,2]-q[:,2]).max()))
