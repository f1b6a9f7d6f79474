#!/usr/bin/env bash
# Fills Plugins/Vision/runtime/ with what the Vision plugin runs on, all from the wheels pinned (by version
# and SHA-256) in wheels.txt; nothing is downloaded at run time.
#   wheels/    the three wheels, as pip downloaded them (reused when the runtime is rebuilt)
#   lib/       OpenVINO's C API, core, CPU plugin, TFLite and ONNX frontends, IR frontend (which reads the
#              compiled models kept in the cache) and TBB, and libopenvino_c.so -> .2641
#   include/   openvino/c/*.h, for -I runtime/include
#   models/    MediaPipe's face detection, face landmark, iris landmark, selfie segmentation, palm
#              detection, hand landmark, pose detection and pose landmark (full) models (the two selfie models
#              rewritten by rewrite_selfie.py so OpenVINO can read them); PaddleOCR's PP-OCRv4 text detection and recognition and its 180-degree classifier,
#              as rapidocr ships them, with the recognizer's dictionary taken out of its metadata
#              (extract_dictionary.py) into ppocr_keys_v4.txt
#   licenses/  OpenVINO's and MediaPipe's licences, OpenVINO's third-party notices, and rapidocr's
#              METADATA (its licence, Apache-2.0, is stated there: the wheel has no licence file)
# Every file but the wheels must match runtime.sha256 (paths relative to runtime/). A runtime that already
# does is left alone; anything else is built afresh in a folder beside it, checked, and only then renamed
# to runtime/, so a failure leaves no half-made runtime.
# Needs /usr/bin/python3 with pip (any python3 works: PYTHON=...), unzip and coreutils. To use wheels you
# already have, point pip at them: PIP_FIND_LINKS=DIR (pip still checks the hashes).
set -euo pipefail

cd "$(dirname "$0")/.."
here=$PWD
list=$here/Scripts/runtime.sha256
python=${PYTHON:-/usr/bin/python3}

# The files taken from the wheels. A new pin changes these names, and the hashes in runtime.sha256.
openvino_libs=(libopenvino_c.so.2641 libopenvino.so.2641 libopenvino_intel_cpu_plugin.so
    libopenvino_tensorflow_lite_frontend.so.2641 libopenvino_onnx_frontend.so.2641 libopenvino_ir_frontend.so.2641
    libtbb.so.12)
openvino_licenses=(LICENSE licensing/runtime-third-party-programs.txt licensing/onetbb_third-party-programs.txt
    licensing/onednn_third-party-programs.txt)
models=(face_detection/face_detection_short_range.tflite face_detection/face_detection_full_range_sparse.tflite
    face_landmark/face_landmark.tflite iris_landmark/iris_landmark.tflite palm_detection/palm_detection_full.tflite
    hand_landmark/hand_landmark_full.tflite pose_detection/pose_detection.tflite pose_landmark/pose_landmark_full.tflite)
text_models=(ch_PP-OCRv4_det_infer.onnx ch_PP-OCRv4_rec_infer.onnx ch_ppocr_mobile_v2.0_cls_infer.onnx)
selfie_models=(selfie_segmentation.tflite selfie_segmentation_landscape.tflite)
schema_module=mediapipe/tasks/metadata/schema_py_generated.py

say() { echo "vision runtime: $*"; }
fail() {
    echo "vision runtime: $*" >&2
    exit 1
}

# check DIR: succeeds, silently, when DIR holds exactly the files of runtime.sha256 with those contents and
# the libopenvino_c.so link (wheels/ aside). Otherwise prints the first problem in one line and fails.
check() {
    local bad extra
    if ! bad=$(cd "$1" && LC_ALL=C sha256sum --check --quiet --strict "$list" 2>/dev/null); then
        bad=${bad%%$'\n'*}
        case $bad in
            *": FAILED open or read") echo "runtime/${bad%: FAILED open or read} is missing" ;;
            *": FAILED") echo "runtime/${bad%: FAILED} does not match its SHA-256 in Scripts/runtime.sha256" ;;
            *) echo "Scripts/runtime.sha256 is not a sha256sum list" ;;
        esac
        return 1
    fi
    if [ "$(readlink "$1/lib/libopenvino_c.so")" != libopenvino_c.so.2641 ]; then
        echo "runtime/lib/libopenvino_c.so is not a link to libopenvino_c.so.2641"
        return 1
    fi
    extra=$(cd "$1" && comm -13 <(awk '{ print $2 }' "$list" | LC_ALL=C sort) \
        <(find lib include models licenses -type f | LC_ALL=C sort) | head -n 1)
    if [ -n "$extra" ]; then
        echo "runtime/$extra is not in Scripts/runtime.sha256"
        return 1
    fi
}

[ -s "$list" ] || fail "Scripts/runtime.sha256 is missing or empty"
count=$(wc -l <"$list")
if [ -d runtime ]; then
    if problem=$(check runtime); then
        say "up to date (checked $count files)"
        exit 0
    fi
    say "$problem; rebuilding"
fi

tmp=$(mktemp -d "$here/runtime.new.XXXXXX")
trap 'rm -rf "$tmp" "$tmp.old"' EXIT
chmod 755 "$tmp"
mkdir "$tmp/wheels" "$tmp/work"
# Wheels from the runtime being replaced: pip checks their hashes and downloads any that differ.
if [ -d runtime/wheels ]; then
    find runtime/wheels -maxdepth 1 -name '*.whl' -exec cp -l {} "$tmp/wheels/" \;
fi

say "fetching pinned wheels"
"$python" -m pip download --quiet --no-input --disable-pip-version-check --no-deps --only-binary=:all: \
    --python-version 3.11 --platform manylinux_2_28_x86_64 --implementation cp \
    --require-hashes -r Scripts/wheels.txt -d "$tmp/wheels" ||
    fail "pip download of Scripts/wheels.txt failed (above)"

# wheel NAME: the downloaded wheel of NAME at its version in wheels.txt.
wheel() {
    local version files
    version=$(sed -n "s/^$1==\([^ ]*\) .*/\1/p" Scripts/wheels.txt)
    files=("$tmp/wheels/$1-$version"-*.whl)
    [ ${#files[@]} -eq 1 ] && [ -f "${files[0]}" ] || fail "no $1 $version wheel in the download"
    echo "${files[0]}"
}
openvino=$(wheel openvino)
mediapipe=$(wheel mediapipe)
flatbuffers=$(wheel flatbuffers)
rapidocr=$(wheel rapidocr_onnxruntime)
openvino_info=$(basename "$openvino" | cut -d- -f1,2).dist-info
mediapipe_info=$(basename "$mediapipe" | cut -d- -f1,2).dist-info
rapidocr_info=$(basename "$rapidocr" | cut -d- -f1,2).dist-info

say "unpacking libraries, headers, models and licences"
mkdir -p "$tmp"/{lib,include,models,licenses/openvino,licenses/mediapipe,licenses/rapidocr}
unzip -q -j "$openvino" "${openvino_libs[@]/#/openvino/libs/}" -d "$tmp/lib"
ln -s libopenvino_c.so.2641 "$tmp/lib/libopenvino_c.so"
unzip -q "$openvino" 'openvino/include/openvino/c/*' -d "$tmp/work"
mv "$tmp/work/openvino/include/openvino" "$tmp/include/"
unzip -q -j "$openvino" "${openvino_licenses[@]/#/$openvino_info/licenses/}" -d "$tmp/licenses/openvino"
unzip -q -j "$mediapipe" "$mediapipe_info/LICENSE" -d "$tmp/licenses/mediapipe"
unzip -q -j "$mediapipe" "${models[@]/#/mediapipe/modules/}" -d "$tmp/models"
unzip -q -j "$rapidocr" "$rapidocr_info/METADATA" -d "$tmp/licenses/rapidocr"
unzip -q -j "$rapidocr" "${text_models[@]/#/rapidocr_onnxruntime/models/}" -d "$tmp/models"

say "taking the text recognizer's dictionary out of its metadata"
PYTHONDONTWRITEBYTECODE=1 "$python" -s Scripts/extract_dictionary.py "$tmp/models/ch_PP-OCRv4_rec_infer.onnx" \
    "$tmp/models/ppocr_keys_v4.txt" || fail "extract_dictionary.py failed (above)"

say "rewriting the selfie models' custom op to TRANSPOSE_CONV"
unzip -q -j "$mediapipe" "${selfie_models[@]/#/mediapipe/modules/selfie_segmentation/}" "$schema_module" \
    -d "$tmp/work/mediapipe"
unzip -q "$flatbuffers" 'flatbuffers/*' -d "$tmp/work/flatbuffers"
for model in "${selfie_models[@]}"; do
    PYTHONPATH="$tmp/work/flatbuffers:$tmp/work/mediapipe" PYTHONDONTWRITEBYTECODE=1 \
        "$python" -s Scripts/rewrite_selfie.py "$tmp/work/mediapipe/$model" "$tmp/models/$model" ||
        fail "rewrite_selfie.py failed on $model (above)"
done
rm -rf "$tmp/work"

if ! problem=$(check "$tmp"); then
    fail "rebuilt $problem; runtime/ left as it was"
fi
if [ -e runtime ]; then mv runtime "$tmp.old"; fi
mv "$tmp" runtime
rm -rf "$tmp.old"
say "checked $count files; runtime/ is ready ($(du -sh --exclude=wheels runtime | cut -f1) without wheels/)"
