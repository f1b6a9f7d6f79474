import COpenVINO
import Foundation
func check(_ s: ov_status_e, _ what: String) {
    if s != OK { print("\(what) failed: \(String(cString: ov_get_last_err_msg()))"); exit(1) }
}
var core: OpaquePointer?
check(ov_core_create(&core), "ov_core_create")
var model: OpaquePointer?
check(ov_core_read_model(core, CommandLine.arguments[1], nil, &model), "read_model")
var compiled: OpaquePointer?
let k1 = ov_property_key_inference_num_threads!, k2 = ov_property_key_hint_inference_precision!
let r = "1".withCString { one in "f32".withCString { f32 -> ov_status_e in
    var props = [ov_property_t(key: k1, value: UnsafeRawPointer(one)), ov_property_t(key: k2, value: UnsafeRawPointer(f32))]
    return ov_core_compile_model_props(core, model, "CPU", props.count, &props, &compiled)
} }
check(r, "compile_model_props")
var req: OpaquePointer?
check(ov_compiled_model_create_infer_request(compiled, &req), "create_infer_request")
var input = [Float](repeating: 0, count: 128 * 128 * 3)
var dims: [Int64] = [1, 128, 128, 3]
var shape = ov_shape_t()
check(ov_shape_create(4, &dims, &shape), "shape_create")
var tensor: OpaquePointer?
check(input.withUnsafeMutableBytes { ov_tensor_create_from_host_ptr(F32, shape, $0.baseAddress, &tensor) }, "tensor")
check(ov_infer_request_set_input_tensor_by_index(req, 0, tensor), "set_input")
check(ov_infer_request_infer(req), "infer")
var out: OpaquePointer?
check(ov_infer_request_get_output_tensor_by_index(req, 1, &out), "get_output")
var data: UnsafeMutableRawPointer?
check(ov_tensor_data(out, &data), "data")
let scores = data!.assumingMemoryBound(to: Float.self)
print("swift: ok, score[0] raw =", scores[0])
ov_tensor_free(out); ov_tensor_free(tensor); ov_shape_free(&shape)
ov_infer_request_free(req); ov_compiled_model_free(compiled); ov_model_free(model); ov_core_free(core)
