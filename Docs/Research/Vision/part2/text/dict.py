import onnx, hashlib, unicodedata
mo=onnx.load("src/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx")
v=[kv.value for kv in mo.metadata_props if kv.key=="character"][0]
print("len chars",len(v), "utf8 bytes", len(v.encode()))
a=v.splitlines(); b=v.split("\n")
print("splitlines",len(a),"split\\n",len(b), "ends with newline", v.endswith("\n"), "has \\r", "\r" in v)
odd=[c for c in v if c in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\r"]
print("odd separators",odd)
multi=[x for x in a if len(x)!=1]; print("entries not 1 char",multi[:20],len(multi))
print("dups", len(a)-len(set(a)))
print("space in dict", " " in a, "empty", "" in a)
ascii_=[x for x in a if len(x)==1 and ord(x)<128]; print("ascii count",len(ascii_), "".join(sorted(ascii_)))
print("first 10",a[:10],"last 10",a[-10:])
open("ppocr_keys_v4.txt","w",encoding="utf-8").write("\n".join(a)+"\n")
print(hashlib.sha256(open("ppocr_keys_v4.txt","rb").read()).hexdigest())
# compare to ORT metadata
