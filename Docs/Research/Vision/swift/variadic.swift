import COpenVINO
var core: OpaquePointer?; var model: OpaquePointer?; var cm: OpaquePointer?
_ = ov_core_compile_model(core, model, "CPU", 0, &cm)
