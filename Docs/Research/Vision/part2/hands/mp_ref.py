import cv2, json, time, glob, os, numpy as np
import mediapipe as mp
t0=time.perf_counter()
hands = mp.solutions.hands.Hands(static_image_mode=True, max_num_hands=2, model_complexity=1,
                                 min_detection_confidence=0.5, min_tracking_confidence=0.5)
init=time.perf_counter()-t0
out={}
for f in sorted(glob.glob('/work/shared/images/people/*.jpg')):
    img = cv2.cvtColor(cv2.imread(f), cv2.COLOR_BGR2RGB)
    H,W = img.shape[:2]
    ts=[]
    for i in range(6):
        t=time.perf_counter(); r = hands.process(img); ts.append(time.perf_counter()-t)
    rs=[]
    for k,(lm,hd) in enumerate(zip(r.multi_hand_landmarks or [], r.multi_handedness or [])):
        pts=np.array([[p.x*W,p.y*H,p.z*W] for p in lm.landmark])
        c=hd.classification[0]
        rs.append(dict(label=c.label, score=c.score, index=c.index, lm=pts.tolist()))
    out[os.path.basename(f)] = dict(W=W,H=H,hands=rs, t_first=ts[0]*1e3, t_med=float(np.median(ts[1:]))*1e3)
    # also flipped
    rf = hands.process(cv2.flip(img,1))
    out[os.path.basename(f)]['flipped_labels']=[(h.classification[0].label, h.classification[0].score) for h in (rf.multi_handedness or [])]
out['_init_ms']=init*1e3
json.dump(out, open('mp_ref.json','w'))
for k,v in out.items():
    if k.startswith('_'): print(k,v); continue
    print(k, v['W'],'x',v['H'], 'n=',len(v['hands']), 'first %.1f ms, median %.1f ms'%(v['t_first'],v['t_med']))
    for h in v['hands']:
        p=np.array(h['lm']); mn=p[:,:2].min(0); mx=p[:,:2].max(0); wh=mx-mn
        print('   %s %.4f box x[%.1f,%.1f] y[%.1f,%.1f] w=%.1f h=%.1f diag=%.1f wrist=(%.1f,%.1f)'%(h['label'],h['score'],mn[0],mx[0],mn[1],mx[1],wh[0],wh[1],np.hypot(*wh),p[0,0],p[0,1]))
    print('   flipped:', v['flipped_labels'])
