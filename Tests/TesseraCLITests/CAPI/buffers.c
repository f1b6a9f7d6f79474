/* Images in and out of the C API as a C program holds them: a buffer supplied to an `input` node, a
   kept image read back in three sample types, progress, cancellation and error locations.
   Usage: buffers OUTPUT.png; prints one line per check, and exits 1 if a check fails. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera.h"

static int failures = 0;

static void check(int ok, const char *what) {
    printf("%s: %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) failures++;
}

static int calls = 0;
static double last = -1;

static int count_progress(double fraction, void *user) {
    (void)user;
    calls++;
    last = fraction;
    return 0;
}

static int stop_at_once(double fraction, void *user) {
    (void)fraction;
    (*(int *)user)++;
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 2) return 64;
    enum { W = 7, H = 5, STRIDE = 24 }; /* rows padded past W * 3 = 21 bytes */
    uint8_t pixels[H * STRIDE];
    memset(pixels, 0xEE, sizeof pixels);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int c = 0; c < 3; c++) pixels[y * STRIDE + x * 3 + c] = (uint8_t)(x * 20 + y * 7 + c * 40);

    char text[512];
    snprintf(text, sizeof text,
             "version: 1\nnodes:\n  photo: { op: input, width: %d, height: %d, channels: 3 }\n"
             "  part: { op: crop, input: photo, rect: [2, 1, 4, 3] }\n"
             "  out: { op: save, input: part, path: \"%s\" }\n",
             W, H, argv[1]);
    tessera_graph *graph = tessera_graph_parse(text, NULL);
    if (!graph) {
        printf("parse: %s\n", tessera_last_error());
        return 1;
    }

    /* Nothing supplied: the run fails at the input node. */
    int status = tessera_graph_run(graph, 1);
    const char *file = NULL;
    int line = 0, column = 0;
    int located = tessera_last_error_location(&file, &line, &column);
    printf("unsupplied: %d %s\n", status, tessera_last_error());
    check(status == TESSERA_STATUS_FAILED && located && line == 3 && column == 3, "unsupplied is located");

    /* A buffer of another size is refused when it is supplied, at the node's width. */
    tessera_image wrong = {W - 1, H, 3, TESSERA_UINT8, STRIDE, pixels};
    status = tessera_graph_set_input(graph, "photo", &wrong);
    located = tessera_last_error_location(&file, &line, &column);
    printf("wrong size: %d %s\n", status, tessera_last_error());
    check(status == TESSERA_STATUS_INVALID && located && line == 3 && column == 30, "wrong size is located");
    tessera_image unsupported = {W, H, 3, 12, STRIDE, pixels};
    status = tessera_graph_set_input(graph, "photo", &unsupported);
    printf("depth 12: %d %s\n", status, tessera_last_error());

    tessera_image image = {W, H, 3, TESSERA_UINT8, STRIDE, pixels};
    check(tessera_graph_set_input(graph, "photo", &image) == 0, "set_input");
    memset(pixels, 0, sizeof pixels); /* copied: the caller's memory is its own again */
    check(tessera_graph_keep(graph, "part") == 0, "keep");
    status = tessera_graph_keep(graph, "prat");
    printf("keep prat: %d %s\n", status, tessera_last_error());
    tessera_graph_set_progress(graph, count_progress, NULL);
    status = tessera_graph_run(graph, 2);
    check(status == 0, "run");
    if (status) printf("  %s\n", tessera_last_error());
    check(calls > 0 && last == 1.0, "progress reached 1");

    tessera_image info;
    check(tessera_graph_image_info(graph, "part", &info) == 0 && info.width == 4 && info.height == 3 &&
              info.channels == 3 && info.depth == TESSERA_UINT8,
          "image_info");
    uint8_t bytes[3 * 4 * 3];
    tessera_image out8 = {4, 3, 3, TESSERA_UINT8, 0, bytes};
    int same = tessera_graph_read_image(graph, "part", &out8) == 0;
    uint16_t words[3 * 4 * 4];
    tessera_image out16 = {4, 3, 4, TESSERA_UINT16, 0, words};
    same = same && tessera_graph_read_image(graph, "part", &out16) == 0;
    float floats[3 * 4];
    tessera_image outf = {4, 3, 1, TESSERA_FLOAT32, 0, floats};
    same = same && tessera_graph_read_image(graph, "part", &outf) == 0;
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 4; x++)
            for (int c = 0; c < 3; c++) {
                int expected = (x + 2) * 20 + (y + 1) * 7 + c * 40;
                same = same && bytes[(y * 4 + x) * 3 + c] == expected;
                same = same && words[(y * 4 + x) * 4 + c] == expected * 257;
                same = same && words[(y * 4 + x) * 4 + 3] == 65535;
                if (c == 0) same = same && (floats[y * 4 + x] - expected / 255.0f) < 1e-6f &&
                                   (expected / 255.0f - floats[y * 4 + x]) < 1e-6f;
            }
    check(same, "read back as 8-bit RGB, 16-bit RGBA and float gray");
    tessera_image small = {3, 3, 3, TESSERA_UINT8, 0, bytes};
    status = tessera_graph_read_image(graph, "part", &small);
    printf("read 3x3: %d %s\n", status, tessera_last_error());
    status = tessera_graph_image_info(graph, "photo", &info);
    printf("info photo: %d %s\n", status, tessera_last_error());

    /* Cancelled by the progress callback, and by tessera_graph_cancel before the run. */
    int stops = 0;
    tessera_graph_set_progress(graph, stop_at_once, &stops);
    status = tessera_graph_run(graph, 2);
    printf("callback cancel: %d %s\n", status, tessera_last_error());
    check(status == TESSERA_STATUS_CANCELLED && stops > 0, "cancelled by the callback");
    tessera_graph_set_progress(graph, NULL, NULL);
    tessera_graph_cancel(graph);
    check(tessera_graph_run(graph, 2) == TESSERA_STATUS_CANCELLED, "cancelled before the run");
    check(tessera_graph_run(graph, 2) == 0, "the next run runs");
    tessera_graph_free(graph);

    /* A graph's mistake carries its place. */
    tessera_graph *broken = tessera_graph_parse("version: 1\nnodes:\n  a: { op: constant, widht: 4 }\n", "/tmp");
    located = tessera_last_error_location(&file, &line, &column);
    printf("broken: %s at %s %d %d\n", broken ? "graph" : "null", located ? file : "-", line, column);
    return failures ? 1 : 0;
}
