"""Rewrites MediaPipe's selfie segmentation model so OpenVINO can read it.

usage: rewrite_selfie.py IN.tflite OUT.tflite

The selfie models end in MediaPipe's own TFLite custom op Convolution2DTransposeBias (a transposed
convolution plus a bias), which OpenVINO's TFLite frontend has no translator for. The op:
  inputs          (input, weights [Cout, kh, kw, Cin], bias [Cout])
  custom_options  the raw bytes of TfLiteTransposeConvParams {int32 padding (1 = SAME, 2 = VALID),
                  int32 stride_w, int32 stride_h}; not a flexbuffer.
It becomes the builtin TRANSPOSE_CONV (version 3), whose inputs are (output_shape int32 [4], weights,
input, bias); OpenVINO converts that to ConvolutionBackpropData + Add. The output shape goes into a new
constant tensor; nothing else in the model changes. The result is the same for the same input, so
fetch-runtime.sh checks it against runtime.sha256.

Needs two modules on PYTHONPATH, both from pinned wheels (fetch-runtime.sh unzips them): flatbuffers
(the flatbuffers wheel) and schema_py_generated (the TFLite schema's Python object API, from the mediapipe
wheel's mediapipe/tasks/metadata/). numpy is optional: flatbuffers uses it when it
is there, and the output is the same without it (only slower).
"""

import struct
import sys

import flatbuffers
import schema_py_generated as tflite

CUSTOM_OP = b"Convolution2DTransposeBias"
# TfLiteTransposeConvParams' padding (TfLitePadding) -> the schema's Padding enum.
PADDING = {1: tflite.Padding.SAME, 2: tflite.Padding.VALID}


def rewrite(model):
    """Replaces every CUSTOM_OP in model (a tflite.ModelT) with TRANSPOSE_CONV; returns how many."""
    custom = {i for i, code in enumerate(model.operatorCodes) if code.customCode == CUSTOM_OP}
    if not custom:
        return 0

    code = tflite.OperatorCodeT()
    code.builtinCode = tflite.BuiltinOperator.TRANSPOSE_CONV
    code.deprecatedBuiltinCode = tflite.BuiltinOperator.TRANSPOSE_CONV
    code.version = 3
    model.operatorCodes.append(code)
    transpose_conv = len(model.operatorCodes) - 1

    count = 0
    for graph in model.subgraphs:
        for op in graph.operators:
            if op.opcodeIndex not in custom:
                continue
            padding, stride_w, stride_h = struct.unpack("<iii", bytes(op.customOptions[:12]))
            if padding not in PADDING:
                raise ValueError(f"{CUSTOM_OP.decode()}: unknown padding {padding}")
            source, weights, bias = op.inputs
            output = graph.tensors[op.outputs[0]]

            # The output shape, as a constant int32 [4] tensor with a buffer of its own.
            buffer = tflite.BufferT()
            buffer.data = list(struct.pack("<4i", *output.shape))
            model.buffers.append(buffer)
            shape = tflite.TensorT()
            shape.shape = [4]
            shape.type = tflite.TensorType.INT32
            shape.buffer = len(model.buffers) - 1
            shape.name = (output.name or b"") + b"/output_shape"
            graph.tensors.append(shape)

            options = tflite.TransposeConvOptionsT()
            options.padding = PADDING[padding]
            options.strideW, options.strideH = stride_w, stride_h

            op.opcodeIndex = transpose_conv
            op.inputs = [len(graph.tensors) - 1, weights, source, bias]
            op.builtinOptionsType = tflite.BuiltinOptions.TransposeConvOptions
            op.builtinOptions = options
            op.customOptions = None
            op.customOptionsFormat = 0
            count += 1
    return count


def main(argv):
    if len(argv) != 3:
        sys.exit(f"usage: {argv[0]} IN.tflite OUT.tflite")
    source, destination = argv[1], argv[2]
    with open(source, "rb") as file:
        data = file.read()
    model = tflite.ModelT.InitFromObj(tflite.Model.GetRootAsModel(data, 0))
    count = rewrite(model)
    if count == 0:
        sys.exit(f"{source}: no {CUSTOM_OP.decode()} op to rewrite")
    builder = flatbuffers.Builder(len(data) + 4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    with open(destination, "wb") as file:
        file.write(builder.Output())


if __name__ == "__main__":
    main(sys.argv)
