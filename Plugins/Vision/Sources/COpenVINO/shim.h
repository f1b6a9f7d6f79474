// OpenVINO's C API, from runtime/include (the openvino wheel's headers, unpacked by `make`).
#include <openvino/c/openvino.h>
