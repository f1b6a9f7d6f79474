import openvino as ov, numpy as np, time
core=ov.Core()
print("ov version", ov.get_version())
M="src/rapidocr_onnxruntime/models/"
cfg={"INFERENCE_NUM_THREADS":1,"INFERENCE_PRECISION_HINT":"f32"}
def bench(cm, shape, n=5):
    x=np.random.uniform(-1,1,shape).astype(np.float32)
    req=cm.create_infer_request()
    t=time.perf_counter(); r=req.infer({0:x}); first=time.perf_counter()-t
    ts=[]
    for _ in range(n):
        t=time.perf_counter(); r=req.infer({0:x}); ts.append(time.perf_counter()-t)
    out=list(r.values())[0]
    print(f"   in {shape} -> out {out.shape} first {first*1000:.1f} ms, median {np.median(ts)*1000:.1f} ms (n={n}), min {min(ts)*1000:.1f}")
for name, shapes in [("ch_PP-OCRv4_det_infer.onnx",[(1,3,736,992),(1,3,960,1280),(1,3,736,736)]),
                     ("ch_PP-OCRv4_rec_infer.onnx",[(1,3,48,320),(6,3,48,320),(1,3,48,640),(6,3,48,800)]),
                     ("ch_ppocr_mobile_v2.0_cls_infer.onnx",[(1,3,48,192),(6,3,48,192)])]:
    t=time.perf_counter(); m=core.read_model(M+name); tr=time.perf_counter()-t
    print("==",name,f"read {tr*1000:.0f} ms")
    for i in m.inputs: print("  input", i.get_any_name(), i.get_names(), i.get_partial_shape(), i.get_element_type())
    for o in m.outputs: print("  output", o.get_any_name(), o.get_names(), o.get_partial_shape(), o.get_element_type())
    rt=m.get_rt_info()
    try:
        keys=list(rt.keys()) if hasattr(rt,'keys') else rt
    except Exception as e: keys=repr(e)
    print("  rt_info keys", keys)
    for k in ["framework","character","model_info","conversion_parameters"]:
        try:
            if m.has_rt_info(k):
                v=m.get_rt_info(k)
                s=str(v.astype(str)) if hasattr(v,'astype') else str(v)
                print("   rt",k,len(s),repr(s[:120]))
        except Exception as e: print("   rt err",k,e)
    t=time.perf_counter(); cm=core.compile_model(m,"CPU",cfg); tc=time.perf_counter()-t
    print(f"  compile {tc*1000:.0f} ms; props threads={cm.get_property('INFERENCE_NUM_THREADS')} prec={cm.get_property('INFERENCE_PRECISION_HINT')}")
    for s in shapes: bench(cm,s)
