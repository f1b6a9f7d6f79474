import onnx, sys
for m in ["ch_PP-OCRv4_det_infer.onnx","ch_PP-OCRv4_rec_infer.onnx","ch_ppocr_mobile_v2.0_cls_infer.onnx"]:
    p="src/rapidocr_onnxruntime/models/"+m
    mo=onnx.load(p)
    print("==",m,"ir",mo.ir_version,"opsets",[(o.domain,o.version) for o in mo.opset_import],"producer",mo.producer_name,mo.producer_version)
    for i in mo.graph.input: print(" in",i.name,[d.dim_param or d.dim_value for d in i.type.tensor_type.shape.dim], i.type.tensor_type.elem_type)
    for o in mo.graph.output: print(" out",o.name,[d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim])
    for kv in mo.metadata_props:
        v=kv.value
        print(" meta",kv.key,len(v), repr(v[:80]))
    print(" nodes",len(mo.graph.node), sorted(set(n.op_type for n in mo.graph.node)))
