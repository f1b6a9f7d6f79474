import time, sys, numpy as np
import openvino as ov
from rapidocr_onnxruntime import RapidOCR
from rapidocr_onnxruntime.utils import infer_engine
core=ov.Core()
cfg={"INFERENCE_NUM_THREADS":1,"INFERENCE_PRECISION_HINT":"f32"}
shapes=[]
class Wrap:
    def __init__(s, sess, tag): s.sess=sess; s.tag=tag
    def __call__(s, x):
        shapes.append((s.tag, x.shape)); return s.sess(x)
def make(eng):
    eng.text_det.infer=Wrap(eng.text_det.infer,"det"); eng.text_cls.infer=Wrap(eng.text_cls.infer,"cls"); eng.text_rec.session=Wrap(eng.text_rec.session,"rec")
class OVSess:
    def __init__(s, path):
        s.cm=core.compile_model(core.read_model(path),"CPU",cfg); s.req=s.cm.create_infer_request()
    def __call__(s, x):
        s.req.infer({0:x}); return [s.req.get_output_tensor(0).data.copy()]
ort=RapidOCR(intra_op_num_threads=1, inter_op_num_threads=1)
ovr=RapidOCR()
ovr.text_det.infer=OVSess(ovr.text_det.infer.session._model_path if hasattr(ovr.text_det.infer.session,'_model_path') else "src/rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx")
ovr.text_cls.infer=OVSess("src/rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx")
ovr.text_rec.session=OVSess("src/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx")
make(ort); make(ovr)
for name in ["images/page.png","images/photo_text.png"]:
    out={}
    for tag,eng in [("ort1",ort),("ov1",ovr)]:
        shapes.clear(); ts=[]
        for k in range(3):
            t=time.perf_counter(); res,el=eng(name); ts.append((time.perf_counter()-t, el))
        print(name, tag, "input shapes per run:", shapes[:len(shapes)//3])
        for tot,el in ts: print(f"   total {tot*1000:.0f} ms det/cls/rec {[round(e*1000) for e in el]}")
        out[tag]=res
    for a,b in zip(out["ort1"],out["ov1"]):
        print("  ORT",a[1],round(a[2],5),"| OV",b[1],round(b[2],5),"| box maxdiff",float(np.abs(np.array(a[0])-np.array(b[0])).max()))
