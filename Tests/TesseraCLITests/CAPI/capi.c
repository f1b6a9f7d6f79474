/* Uses the C API as a C program does, through tessera.h: the header must match the library.
   Usage: capi OUTPUT.png NOT_A_PLUGIN.so; prints one line per call. */
#include <limits.h>
#include <stdio.h>

#include "tessera.h"

int main(int argc, char **argv) {
    if (argc < 3) return 64;
    char text[512];
    snprintf(text, sizeof text,
             "version: 1\nnodes:\n  a: { op: constant, width: 8, height: 4, color: [1, 0, 0, 1] }\n"
             "  o: { op: save, input: a, path: \"%s\" }\n"
             "  w: { op: constant, width: 3, height: 2, color: [1, 1, 1, 1] }\n"
             "  c: { op: detectContours, input: w, detectsDarkOnLight: false }\n",
             argv[1]);
    tessera_graph *graph = tessera_graph_parse(text, NULL);
    if (!graph) {
        printf("parse: %s\n", tessera_last_error());
        return 1;
    }
    int status = tessera_graph_set(graph, "a.width=0");
    printf("set: %d %s\n", status, tessera_last_error());
    status = tessera_graph_set(graph, "a.width=6");
    printf("set: %d\n", status);
    const char *early = tessera_graph_value_json(graph, "c.contours");
    printf("before run: %s %s\n", early ? early : "null", tessera_last_error());
    /* A thread count out of range is refused, never a crash of the host or a silent default. */
    status = tessera_graph_run(graph, INT_MAX);
    printf("threads INT_MAX: %d %s\n", status, tessera_last_error());
    status = tessera_graph_run(graph, -1);
    printf("threads -1: %d %s\n", status, tessera_last_error());
    status = tessera_graph_run(graph, 2);
    printf("run: %d %s\n", status, tessera_graph_outputs(graph));
    printf("value: %s", tessera_graph_value_json(graph, "c.contours"));
    const char *image = tessera_graph_value_json(graph, "a");
    printf("image: %s %s\n", image ? image : "null", tessera_last_error());
    const char *unknown = tessera_graph_value_json(graph, "c.edges");
    printf("unknown: %s %s\n", unknown ? unknown : "null", tessera_last_error());
    printf("result: %s", tessera_graph_result_json(graph));
    status = tessera_load_plugin(argv[2]);
    printf("plugin: %d %s\n", status, tessera_last_error());
    tessera_graph_free(graph);
    tessera_graph *missing = tessera_graph_load("/nonexistent/g.yaml");
    printf("load: %s %s\n", missing ? "graph" : "null", tessera_last_error());
    return 0;
}
