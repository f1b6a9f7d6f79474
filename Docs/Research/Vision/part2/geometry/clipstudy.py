import math, random, numpy as np, pyclipper, cv2
def Round(v): return int(v-0.5) if v<0 else int(v+0.5)
def area(p):
    a=0.0; j=len(p)-1
    for i in range(len(p)):
        a += (float(p[j][0])+p[i][0])*(float(p[j][1])-p[i][1]); j=i
    return -a*0.5
def dooffset(path, delta):
    # AddPath dedupe
    hi=len(path)-1
    while hi>0 and path[0]==path[hi]: hi-=1
    c=[path[0]]
    for i in range(1,hi+1):
        if c[-1]!=path[i]: c.append(path[i])
    if len(c)<3: return []
    if not area(c)>=0: c=c[::-1]
    y = min(0.25, abs(delta)*0.25) if 0.25<=abs(delta)*0.25 else abs(delta)*0.25
    y = 0.25 if not (0.25 > abs(delta)*0.25) else abs(delta)*0.25
    steps = math.pi/math.acos(1-y/abs(delta))
    if steps > abs(delta)*math.pi: steps=abs(delta)*math.pi
    s=math.sin(2*math.pi/steps); co=math.cos(2*math.pi/steps); spr=steps/(2*math.pi)
    n=len(c); N=[]
    for j in range(n):
        a=c[j]; b=c[(j+1)%n]
        dx=float(b[0]-a[0]); dy=float(b[1]-a[1]); f=1*1.0/math.sqrt(dx*dx+dy*dy); dx*=f; dy*=f
        N.append((dy,-dx))
    out=[]; k=n-1
    for j in range(n):
        sinA = N[k][0]*N[j][1]-N[j][0]*N[k][1]
        if abs(sinA*delta)<1.0:
            cosA = N[k][0]*N[j][0]+N[j][1]*N[k][1]
            if cosA>0:
                out.append((Round(c[j][0]+N[k][0]*delta),Round(c[j][1]+N[k][1]*delta))); continue
        elif sinA>1: sinA=1.0
        elif sinA<-1: sinA=-1.0
        if sinA*delta<0:
            out += [(Round(c[j][0]+N[k][0]*delta),Round(c[j][1]+N[k][1]*delta)), tuple(c[j]), (Round(c[j][0]+N[j][0]*delta),Round(c[j][1]+N[j][1]*delta))]
        else:
            a=math.atan2(sinA, N[k][0]*N[j][0]+N[k][1]*N[j][1])
            st=max(int(Round(spr*abs(a))),1)
            X,Y=N[k]
            for i in range(st):
                out.append((Round(c[j][0]+X*delta),Round(c[j][1]+Y*delta)))
                X2=X; X=X*co-s*Y; Y=X2*s+Y*co
            out.append((Round(c[j][0]+N[j][0]*delta),Round(c[j][1]+N[j][1]*delta)))
        k=j
    return out
random.seed(1)
bad=0; firsts={}
for t in range(3000):
    cx,cy=random.uniform(20,500),random.uniform(20,500); w,h=random.uniform(3,300),random.uniform(3,60); ang=random.uniform(-90,0)
    if random.random()<0.3: ang=-90.0
    box=cv2.boxPoints(((cx,cy),(w,h),ang))
    pts=sorted(list(box),key=lambda x:x[0])
    i1,i4=(0,1) if pts[1][1]>pts[0][1] else (1,0)
    i2,i3=(2,3) if pts[3][1]>pts[2][1] else (3,2)
    box=np.array([pts[i1],pts[i2],pts[i3],pts[i4]])
    from shapely.geometry import Polygon
    poly=Polygon(box); d=poly.area*1.6/poly.length
    o=pyclipper.PyclipperOffset(); o.AddPath(box,pyclipper.JT_ROUND,pyclipper.ET_CLOSEDPOLYGON)
    res=o.Execute(d)
    ipath=[(int(p[0]),int(p[1])) for p in box]
    raw=dooffset(ipath,d)
    if len(res)!=1: print("multi",len(res)); continue
    r=[tuple(p) for p in res[0]]
    # dedupe raw and remove collinear
    if not set(r) <= set(raw): bad+=1; print("notsubset", t); continue
    # where does r start? characterize: index of r[0] in raw, orientation
    ys=[p[1] for p in r]; 
    maxy=max(ys); cand=[p for p in r if p[1]==maxy]
    key=("first_is_maxy", r[0][1]==maxy, "minx_among" if r[0]==min(cand) else ("maxx" if r[0]==max(cand) else "mid"))
    firsts[key]=firsts.get(key,0)+1
    if area(r)<0: firsts["neg"]=firsts.get("neg",0)+1
print(bad, firsts)
random.seed(2)
stats={}
for t in range(3000):
    cx,cy=random.uniform(20,500),random.uniform(20,500); w,h=random.uniform(3,300),random.uniform(3,60); ang=random.uniform(-90,0)
    if random.random()<0.3: ang=-90.0
    box=cv2.boxPoints(((cx,cy),(w,h),ang))
    pts=sorted(list(box),key=lambda x:x[0])
    i1,i4=(0,1) if pts[1][1]>pts[0][1] else (1,0)
    i2,i3=(2,3) if pts[3][1]>pts[2][1] else (3,2)
    box=np.array([pts[i1],pts[i2],pts[i3],pts[i4]])
    from shapely.geometry import Polygon
    poly=Polygon(box); d=poly.area*1.6/poly.length
    o=pyclipper.PyclipperOffset(); o.AddPath(box,pyclipper.JT_ROUND,pyclipper.ET_CLOSEDPOLYGON)
    r=[tuple(p) for p in o.Execute(d)[0]]
    ys=[p[1] for p in r]; miny=min(ys); cand=[p for p in r if p[1]==miny]
    k=(r[0][1]==miny, r[0]==min(cand), r[0]==max(cand), area(r)>0, len(cand))
    stats[k]=stats.get(k,0)+1
    if t<3: print(r)
print(stats)
random.seed(3)
ok=0; badc=0
for t in range(20000):
    cx,cy=random.uniform(5,500),random.uniform(5,500); w,h=random.uniform(1,300),random.uniform(1,60); ang=random.uniform(-90,0)
    if random.random()<0.3: ang=-90.0
    box=cv2.boxPoints(((cx,cy),(w,h),ang))
    pts=sorted(list(box),key=lambda x:x[0])
    i1,i4=(0,1) if pts[1][1]>pts[0][1] else (1,0)
    i2,i3=(2,3) if pts[3][1]>pts[2][1] else (3,2)
    box=np.array([pts[i1],pts[i2],pts[i3],pts[i4]])
    from shapely.geometry import Polygon
    poly=Polygon(box); 
    if poly.length==0: continue
    d=poly.area*1.6/poly.length
    if d<=0: continue
    o=pyclipper.PyclipperOffset(); o.AddPath(box,pyclipper.JT_ROUND,pyclipper.ET_CLOSEDPOLYGON)
    rr=o.Execute(d)
    if len(rr)!=1: print("multi", len(rr)); continue
    r=[tuple(p) for p in rr[0]]
    ys=[p[1] for p in r]; miny=min(ys); cand=[p for p in r if p[1]==miny]
    if r[-1]==max(cand) and area(r)>0: ok+=1
    else:
        badc+=1
        if badc<4: print(box, d, r)
print(ok,badc)
