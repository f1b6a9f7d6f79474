import numpy as np, openvino as ov, onnxruntime as ort
from rapidocr_onnxruntime import RapidOCR
eng=RapidOCR()
cap={}
for tag,obj,attr in [("det",eng.text_det,"infer"),("cls",eng.text_cls,"infer"),("rec",eng.text_rec,"session")]:
    s=getattr(obj,attr)
    def mk(s,tag):
        def f(x): cap.setdefault(tag,x.copy()); return s(x)
        return f
    setattr(obj,attr,mk(s,tag))
eng("images/page.png")
core=ov.Core(); cfg={"INFERENCE_NUM_THREADS":1,"INFERENCE_PRECISION_HINT":"f32"}
M="src/rapidocr_onnxruntime/models/"
for tag,f in [("det","ch_PP-OCRv4_det_infer.onnx"),("cls","ch_ppocr_mobile_v2.0_cls_infer.onnx"),("rec","ch_PP-OCRv4_rec_infer.onnx")]:
    x=cap[tag]
    so=ort.SessionOptions(); so.intra_op_num_threads=1
    a=ort.InferenceSession(M+f,so,providers=["CPUExecutionProvider"]).run(None,{"x":x})[0]
    b=core.compile_model(M+f,"CPU",cfg)({0:x})[0]
    print(tag,x.shape,"->",a.shape,"max|ort-ov|",float(np.abs(a-b).max()), "argmax equal" , bool((a.argmax(-1)==b.argmax(-1)).all()) if tag!="det" else bool(((a>0.3)==(b>0.3)).all()))
    if tag=="det": print("   det map range",float(a.min()),float(a.max()))
for w in [320,321,327,328,640,1135]:
    b=core.compile_model(M+"ch_PP-OCRv4_rec_infer.onnx","CPU",cfg)({0:np.zeros((1,3,48,w),np.float32)})[0]
    print("rec width",w,"-> T",b.shape[1])
