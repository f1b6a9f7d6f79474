import openvino as ov, numpy as np, time, sys
core = ov.Core()
M = 'wheel/mediapipe/modules/'
for f in ['palm_detection/palm_detection_full.tflite','hand_landmark/hand_landmark_full.tflite','palm_detection/palm_detection_lite.tflite','hand_landmark/hand_landmark_lite.tflite']:
    t=time.perf_counter(); m = core.read_model(M+f); tr=time.perf_counter()-t
    ops = {}
    for op in m.get_ordered_ops(): ops[op.get_type_name()] = ops.get(op.get_type_name(),0)+1
    print('==', f, 'read %.1f ms'%(tr*1e3))
    print('  ops:', dict(sorted(ops.items())))
    for i in m.inputs: print('  in ', i.get_any_name(), i.get_partial_shape(), i.get_element_type())
    for o in m.outputs: print('  out', o.get_any_name(), o.get_partial_shape(), o.get_element_type())
    t=time.perf_counter()
    c = core.compile_model(m, 'CPU', {'INFERENCE_NUM_THREADS':1,'INFERENCE_PRECISION_HINT':'f32'})
    print('  compile %.1f ms'%((time.perf_counter()-t)*1e3), 'prec', c.get_property('INFERENCE_PRECISION_HINT'), 'threads', c.get_property('INFERENCE_NUM_THREADS'))
    req = c.create_infer_request()
    shp = list(m.inputs[0].get_shape())
    x = np.random.rand(*shp).astype(np.float32)
    req.infer({0:x})
    ts=[]
    for _ in range(30):
        t=time.perf_counter(); req.infer({0:x}); ts.append(time.perf_counter()-t)
    ts=np.array(ts)*1e3
    print('  infer median %.2f ms min %.2f ms (30 runs)'%(np.median(ts), ts.min()))
    for o in c.outputs:
        v = req.get_tensor(o).data
        print('   ', o.get_any_name(), v.shape, 'range', float(v.min()), float(v.max()))
