"""Writes the character dictionary of PaddleOCR's recognition model (an ONNX file) to a text file.

The dictionary lives in the model's metadata (ONNX ModelProto field 14, metadata_props, the entry whose
key is "character": one character a line), where rapidocr reads it through onnxruntime. OpenVINO's C API
does not expose model metadata, so Scripts/fetch-runtime.sh takes it out once, at setup, with this
scanner of the protobuf's top level (no onnx package needed).

    python3 extract_dictionary.py MODEL.onnx OUT.txt
"""
import sys


def varint(data, at):
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def fields(data):
    """(field number, wire type, value) for each top-level field; length-delimited values as bytes."""
    at = 0
    while at < len(data):
        key, at = varint(data, at)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, at = varint(data, at)
        elif wire == 1:
            value, at = data[at:at + 8], at + 8
        elif wire == 2:
            length, at = varint(data, at)
            value, at = data[at:at + length], at + length
        elif wire == 5:
            value, at = data[at:at + 4], at + 4
        else:
            sys.exit(f"unexpected protobuf wire type {wire} in field {number}")
        yield number, wire, value


def main(model, out):
    with open(model, "rb") as f:
        data = f.read()
    for number, wire, value in fields(data):
        if number != 14 or wire != 2:
            continue
        entry = {n: v for n, w, v in fields(value) if w == 2}
        if entry.get(1) == b"character":
            text = entry.get(2, b"").decode("utf-8")
            with open(out, "w", encoding="utf-8") as f:
                f.write(text + "\n")
            return
    sys.exit(f"{model} has no 'character' metadata")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: extract_dictionary.py MODEL.onnx OUT.txt")
    main(sys.argv[1], sys.argv[2])
