// per-frame: a graph run frame after frame through the C API, as a video program would: each frame is
// set as the graph's input, the graph runs, and the kept image is read back. Prints milliseconds a frame
// (the median of ROUNDS rounds of FRAMES frames), and the same on a 16x16 frame, which is the fixed cost
// of a run with almost no pixels. Built and run by Scripts/per-frame.sh.
//
// Usage: per-frame GRAPH.yaml INPUT OUTPUT WIDTH HEIGHT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tessera.h"

enum { FRAMES = 60, ROUNDS = 5 };

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/// Milliseconds a frame of `width` x `height`, the median of the rounds.
static double time_frames(tessera_graph *graph, const char *input, const char *output, int width, int height) {
    size_t bytes = (size_t)width * height * 3;
    unsigned char *in = malloc(bytes), *out = malloc(bytes);
    for (size_t i = 0; i < bytes; i++) in[i] = (unsigned char)(i * 2654435761u >> 24);
    tessera_image frame = {width, height, 3, TESSERA_UINT8, 0, in};
    tessera_image into = {width, height, 3, TESSERA_UINT8, 0, out};
    double rounds[ROUNDS];
    for (int r = -1; r < ROUNDS; r++) {  // round -1 warms up (and prepares the graph)
        double start = now();
        for (int f = 0; f < FRAMES; f++) {
            in[f] = (unsigned char)f;  // a new frame each time
            if (tessera_graph_set_input(graph, input, &frame) != 0 || tessera_graph_run(graph, 0) != 0 ||
                tessera_graph_read_image(graph, output, &into) != 0) {
                fprintf(stderr, "per-frame: %s\n", tessera_last_error());
                exit(1);
            }
        }
        if (r >= 0) rounds[r] = (now() - start) / FRAMES * 1000;
    }
    qsort(rounds, ROUNDS, sizeof rounds[0], compare);
    free(in);
    free(out);
    return rounds[ROUNDS / 2];
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: per-frame GRAPH.yaml INPUT OUTPUT WIDTH HEIGHT\n");
        return 2;
    }
    tessera_graph *graph = tessera_graph_load(argv[1]);
    if (graph == NULL || tessera_graph_keep(graph, argv[3]) != 0) {
        fprintf(stderr, "per-frame: %s\n", tessera_last_error());
        return 1;
    }
    int width = atoi(argv[4]), height = atoi(argv[5]);
    double full = time_frames(graph, argv[2], argv[3], width, height);
    tessera_graph_free(graph);
    graph = tessera_graph_load(argv[1]);
    tessera_graph_keep(graph, argv[3]);
    double tiny = time_frames(graph, argv[2], argv[3], 16, 16);
    tessera_graph_free(graph);
    printf("%.2f %.3f\n", full, tiny);
    return 0;
}
