/* Uses the C API as a C program does, through tessera.h: the header must match the library.
   Usage: capi OUTPUT.png NOT_A_PLUGIN.so; prints one line per call. */
#include <stdio.h>

#include "tessera.h"

int main(int argc, char **argv) {
    if (argc < 3) return 64;
    char text[512];
    snprintf(text, sizeof text,
             "version: 1\nnodes:\n  a: { op: constant, width: 8, height: 4, color: [1, 0, 0, 1] }\n"
             "  o: { op: save, input: a, path: \"%s\" }\n",
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
    status = tessera_graph_run(graph, 2);
    printf("run: %d %s\n", status, tessera_graph_outputs(graph));
    status = tessera_load_plugin(argv[2]);
    printf("plugin: %d %s\n", status, tessera_last_error());
    tessera_graph_free(graph);
    tessera_graph *missing = tessera_graph_load("/nonexistent/g.yaml");
    printf("load: %s %s\n", missing ? "graph" : "null", tessera_last_error());
    return 0;
}
