/* ovprobe: load a .tflite with OpenVINO's C API, print I/O, run it on a raw
 * float32 NHWC input file, print top raw scores and dump outputs.
 * usage: ovprobe MODEL [INPUT.f32] [OUTPREFIX] [THREADS] */
#include <openvino/c/openvino.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(call) do { ov_status_e s_ = (call); if (s_ != OK) { \
    fprintf(stderr, "%s failed: %d %s\n  %s\n", #call, (int)s_, ov_get_error_info(s_), ov_get_last_err_msg()); \
    exit(1); } } while (0)

static const char *etype(ov_element_type_e t) {
    switch (t) { case F32: return "f32"; case F16: return "f16"; case U8: return "u8";
                 case I32: return "i32"; case I64: return "i64"; default: return "?"; }
}
static double now_ms(void) { struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6; }
static void print_port(const char *kind, size_t i, const ov_output_const_port_t *p) {
    char *name = NULL; ov_shape_t shape; ov_element_type_e t;
    CHECK(ov_port_get_any_name(p, &name));
    CHECK(ov_const_port_get_shape(p, &shape));
    CHECK(ov_port_get_element_type(p, &t));
    printf("  %s[%zu] name=%s type=%s shape=[", kind, i, name, etype(t));
    for (int64_t d = 0; d < shape.rank; d++) printf("%s%lld", d ? "," : "", (long long)shape.dims[d]);
    printf("]\n");
    ov_free(name); ov_shape_free(&shape);
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s MODEL [INPUT.f32] [OUTPREFIX] [THREADS]\n", argv[0]); return 2; }
    const char *threads = argc > 4 ? argv[4] : "1";
    ov_version_t ver; CHECK(ov_get_openvino_version(&ver));
    printf("OpenVINO %s\n", ver.buildNumber); ov_version_free(&ver);

    double t0 = now_ms();
    ov_core_t *core = NULL; CHECK(ov_core_create(&core));
    double t1 = now_ms();
    ov_model_t *model = NULL; CHECK(ov_core_read_model(core, argv[1], NULL, &model));
    double t2 = now_ms();
    /* non-variadic (FFI/Swift-friendly) compile call */
    ov_property_t props[] = {
        { ov_property_key_inference_num_threads, threads },
        { ov_property_key_hint_performance_mode, "LATENCY" },
        { ov_property_key_hint_inference_precision, "f32" },
    };
    ov_compiled_model_t *cm = NULL;
    CHECK(ov_core_compile_model_props(core, model, "CPU", 3, props, &cm));
    double t3 = now_ms();
    printf("create core %.1f ms, read_model %.1f ms, compile %.1f ms\n", t1 - t0, t2 - t1, t3 - t2);

    size_t nin, nout; CHECK(ov_model_inputs_size(model, &nin)); CHECK(ov_model_outputs_size(model, &nout));
    for (size_t i = 0; i < nin; i++) { ov_output_const_port_t *p; CHECK(ov_model_const_input_by_index(model, i, &p)); print_port("input", i, p); ov_output_const_port_free(p); }
    for (size_t i = 0; i < nout; i++) { ov_output_const_port_t *p; CHECK(ov_model_const_output_by_index(model, i, &p)); print_port("output", i, p); ov_output_const_port_free(p); }
    if (argc < 3) goto done;

    ov_infer_request_t *req = NULL; CHECK(ov_compiled_model_create_infer_request(cm, &req));
    /* input: wrap our buffer (no copy) with ov_tensor_create_from_host_ptr */
    ov_output_const_port_t *in0; CHECK(ov_compiled_model_input_by_index(cm, 0, &in0));
    ov_shape_t ishape; CHECK(ov_const_port_get_shape(in0, &ishape));
    size_t n = 1; for (int64_t d = 0; d < ishape.rank; d++) n *= (size_t)ishape.dims[d];
    float *buf = malloc(n * sizeof(float));
    FILE *f = fopen(argv[2], "rb"); if (!f || fread(buf, sizeof(float), n, f) != n) { fprintf(stderr, "bad input file (need %zu floats)\n", n); return 1; } fclose(f);
    ov_tensor_t *it = NULL; CHECK(ov_tensor_create_from_host_ptr(F32, ishape, buf, &it));
    CHECK(ov_infer_request_set_input_tensor_by_index(req, 0, it));

    CHECK(ov_infer_request_infer(req));            /* warm-up */
    int runs = 50; double ta = now_ms();
    for (int r = 0; r < runs; r++) CHECK(ov_infer_request_infer(req));
    double tb = now_ms();
    printf("first+warm: inference %.3f ms/run (mean of %d, threads=%s)\n", (tb - ta) / runs, runs, threads);

    for (size_t i = 0; i < nout; i++) {
        ov_tensor_t *ot = NULL; CHECK(ov_infer_request_get_output_tensor_by_index(req, i, &ot));
        size_t size; CHECK(ov_tensor_get_size(ot, &size));
        void *data; CHECK(ov_tensor_data(ot, &data));
        ov_element_type_e t; CHECK(ov_tensor_get_element_type(ot, &t));
        ov_shape_t os; CHECK(ov_tensor_get_shape(ot, &os));
        int64_t last = os.dims[os.rank - 1];
        if (t == F32 && last == 1 && size > 1) {   /* a score vector: print top 5 raw */
            const float *s = data; int top[5] = {-1,-1,-1,-1,-1};
            for (size_t k = 0; k < size; k++) for (int j = 0; j < 5; j++) {
                if (top[j] < 0 || s[k] > s[top[j]]) { for (int m = 4; m > j; m--) top[m] = top[m-1]; top[j] = (int)k; break; } }
            printf("  output[%zu] top raw scores:", i);
            for (int j = 0; j < 5; j++) printf(" #%d=%.3f", top[j], s[top[j]]);
            printf("\n");
        } else if (t == F32 && size <= 4) {
            const float *s = data; printf("  output[%zu] values:", i); for (size_t k = 0; k < size; k++) printf(" %.4f", s[k]); printf("\n");
        }
        if (argc > 3) { char path[512]; snprintf(path, sizeof path, "%s.out%zu.f32", argv[3], i);
            FILE *o = fopen(path, "wb"); fwrite(data, t == F32 ? 4 : 1, size, o); fclose(o); }
        ov_shape_free(&os); ov_tensor_free(ot);
    }
    ov_tensor_free(it); ov_shape_free(&ishape); ov_output_const_port_free(in0); ov_infer_request_free(req); free(buf);
done:
    ov_compiled_model_free(cm); ov_model_free(model); ov_core_free(core);
    return 0;
}
