import time, json, sys
from rapidocr_onnxruntime import RapidOCR
threads=int(sys.argv[1]) if len(sys.argv)>1 else -1
t=time.perf_counter(); eng=RapidOCR(intra_op_num_threads=threads, inter_op_num_threads=threads) if threads>0 else RapidOCR(); print(f"init {time.perf_counter()-t:.3f}s threads={threads}")
# hook to capture cls results
orig=eng.text_cls.__call__
store={}
def cls_hook(imgs):
    r=orig(imgs); store['cls']=r[1]; store['crops']=[i.shape for i in r[0]]; return r
eng.text_cls=cls_hook
for name in ["images/page.png","images/photo_text.png"]:
    for k in range(3):
        t=time.perf_counter(); res,el=eng(name); tot=time.perf_counter()-t
        print(f"{name} run{k}: total {tot*1000:.0f} ms; det/cls/rec {[round(e*1000) for e in el]} ms")
    for (box,txt,sc),c,s in zip(res,store['cls'],store['crops']):
        print("  ",[[round(x,1) for x in p] for p in box], repr(txt), round(sc,4), "cls",c[0],round(float(c[1]),3),"crop",s[:2])
