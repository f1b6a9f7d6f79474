import ctypes, time, sys
L=sys.argv[1]
c=ctypes.CDLL(L+"/libopenvino_c.so.2641")
core=ctypes.c_void_p(); print("core_create",c.ov_core_create(ctypes.byref(core)))
for m in ["ch_PP-OCRv4_det_infer.onnx","ch_PP-OCRv4_rec_infer.onnx","ch_ppocr_mobile_v2.0_cls_infer.onnx"]:
    model=ctypes.c_void_p()
    r=c.ov_core_read_model(core, ("src/rapidocr_onnxruntime/models/"+m).encode(), None, ctypes.byref(model))
    cm=ctypes.c_void_p()
    t=time.perf_counter()
    r2=c.ov_core_compile_model(core, model, b"CPU", ctypes.c_size_t(4), ctypes.byref(cm), b"INFERENCE_NUM_THREADS", b"1", b"INFERENCE_PRECISION_HINT", b"f32")
    print(m,"read",r,"compile",r2, f"{(time.perf_counter()-t)*1000:.0f} ms")
maps=open("/proc/self/maps").read()
import re
print(sorted(set(re.findall(r"/[^\s]*\.so[^\s]*",maps))))
class P(ctypes.Structure): _fields_=[("key",ctypes.c_char_p),("value",ctypes.c_char_p)]
arr=(P*2)(P(b"INFERENCE_NUM_THREADS",b"1"),P(b"INFERENCE_PRECISION_HINT",b"f32"))
model=ctypes.c_void_p(); c.ov_core_read_model(core,b"src/rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",None,ctypes.byref(model))
cm=ctypes.c_void_p(); print("compile_model_props", c.ov_core_compile_model_props(core,model,b"CPU",ctypes.c_size_t(2),arr,ctypes.byref(cm)))
