import ov_hands as O, numpy as np, cv2, glob, os, json, math
ref=json.load(open('mp_ref.json'))
def fcrop(img,cx,cy,w,h,rot,size,border,half):
    # float bilinear: src = c + R(rot) * ((u+off)*w/size - w/2, (v+off)*h/size - h/2)
    off=0.5 if half else 0.0
    u,v=np.meshgrid(np.arange(size)+off,np.arange(size)+off)
    lx=u*w/size-w/2; ly=v*h/size-h/2
    c,s=math.cos(rot),math.sin(rot)
    sx=cx+c*lx-s*ly; sy=cy+s*lx+c*ly
    if half: sx-=0.5; sy-=0.5
    H,W=img.shape[:2]; f=img.astype(np.float32)
    x0=np.floor(sx).astype(int); y0=np.floor(sy).astype(int); ax=(sx-x0)[...,None]; ay=(sy-y0)[...,None]
    def px(x,y):
        if border==cv2.BORDER_REPLICATE: return f[np.clip(y,0,H-1),np.clip(x,0,W-1)]
        m=((x>=0)&(x<W)&(y>=0)&(y<H))[...,None]; return f[np.clip(y,0,H-1),np.clip(x,0,W-1)]*m
    out=(px(x0,y0)*(1-ax)*(1-ay)+px(x0+1,y0)*ax*(1-ay)+px(x0,y0+1)*(1-ax)*ay+px(x0+1,y0+1)*ax*ay)
    return out/255.0
orig=O.crop
for name,fn in [('cv2 warpPerspective (MediaPipe way)',orig),('float bilinear, corner-aligned',lambda *a:fcrop(*a,False)),('float bilinear, pixel-centre (+0.5)',lambda *a:fcrop(*a,True))]:
    O.crop=fn; worst=0; ws=[]
    for f in sorted(glob.glob('/work/shared/images/people/*.jpg')):
        k=os.path.basename(f); img=cv2.cvtColor(cv2.imread(f),cv2.COLOR_BGR2RGB)
        hs=O.process(img)
        assert len(hs)==len(ref[k]['hands'])
        for h,r in zip(hs,ref[k]['hands']):
            p=np.array(h['lm'])[:,:2]; q=np.array(r['lm'])[:,:2]; d=np.hypot(*(q.max(0)-q.min(0)))
            ws.append(np.hypot(*(p-q).T).max()/d*100)
    print('%-40s max joint err per hand (%% of diag):'%name, ' '.join('%.2f'%w for w in ws))
O.crop=lambda *a: np.round(fcrop(*a,False)*255)/255
ws=[]
for f in sorted(glob.glob('/work/shared/images/people/*.jpg')):
    k=os.path.basename(f); img=cv2.cvtColor(cv2.imread(f),cv2.COLOR_BGR2RGB)
    for h,r in zip(O.process(img),ref[k]['hands']):
        p=np.array(h['lm'])[:,:2]; q=np.array(r['lm'])[:,:2]; d=np.hypot(*(q.max(0)-q.min(0)))
        ws.append(np.hypot(*(p-q).T).max()/d*100)
print('float bilinear corner-aligned + round to uint8:', ' '.join('%.2f'%w for w in ws))
