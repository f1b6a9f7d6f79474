# Rewrite MediaPipe's custom op Convolution2DTransposeBias (inputs: input,
# weights[Cout,kh,kw,Cin], bias[Cout]; custom_options = raw TfLiteTransposeConvParams
# {int32 padding (1=SAME,2=VALID), stride_w, stride_h}) into the builtin
# TRANSPOSE_CONV (inputs: output_shape int32[4], weights, input, bias), which
# OpenVINO's TFLite frontend converts (ConvolutionBackpropData + Add).
# usage: python rewrite_selfie.py IN.tflite OUT.tflite  (needs the tflite schema
# module schema_py_generated.py from the mediapipe wheel + the flatbuffers runtime)
import struct, sys
sys.path.insert(0, "/tmp/vision-research/mp/mediapipe/tasks/metadata")
import flatbuffers, numpy as np
import schema_py_generated as S

src, dst = sys.argv[1], sys.argv[2]
buf = open(src, "rb").read()
m = S.ModelT.InitFromObj(S.Model.GetRootAsModel(buf, 0))
custom = [i for i, oc in enumerate(m.operatorCodes) if oc.customCode == b"Convolution2DTransposeBias"]
if not custom: sys.exit("no Convolution2DTransposeBias op")
tc = S.OperatorCodeT(); tc.builtinCode = S.BuiltinOperator.TRANSPOSE_CONV
tc.deprecatedBuiltinCode = S.BuiltinOperator.TRANSPOSE_CONV; tc.version = 3
m.operatorCodes.append(tc); tc_index = len(m.operatorCodes) - 1
n = 0
for sg in m.subgraphs:
    for op in sg.operators:
        if op.opcodeIndex not in custom: continue
        padding, sw, sh = struct.unpack("<iii", bytes(op.customOptions[:12]))
        x, w, b = op.inputs; out = op.outputs[0]
        shape = np.array(sg.tensors[out].shape, np.int32)
        bufobj = S.BufferT(); bufobj.data = list(shape.tobytes()); m.buffers.append(bufobj)
        t = S.TensorT(); t.shape = [4]; t.type = S.TensorType.INT32
        t.buffer = len(m.buffers) - 1; t.name = (sg.tensors[out].name or b"") + b"/output_shape"
        sg.tensors.append(t)
        opt = S.TransposeConvOptionsT(); opt.padding = {1: S.Padding.SAME, 2: S.Padding.VALID}[padding]
        opt.strideW, opt.strideH = sw, sh
        op.opcodeIndex = tc_index; op.inputs = [len(sg.tensors) - 1, w, x, b]
        op.builtinOptionsType = S.BuiltinOptions.TransposeConvOptions; op.builtinOptions = opt
        op.customOptions = None; op.customOptionsFormat = 0
        print(f"op -> TRANSPOSE_CONV pad={'SAME' if padding == 1 else 'VALID'} stride={sw}x{sh} "
              f"w={list(sg.tensors[w].shape)} out={shape.tolist()}"); n += 1
fb = flatbuffers.Builder(len(buf) + 4096)
fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
open(dst, "wb").write(fb.Output()); print(f"rewrote {n} ops -> {dst}")
