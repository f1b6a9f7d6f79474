/*
 * Tessera's C API: run graphs from C, Python (ctypes) or any language that calls C.
 *
 * Link with -ltessera (libtessera.so: `make libtessera` puts it in out/lib/). Every function may be
 * called from any thread; a graph is used by one thread at a time. A call that fails returns NULL or
 * a non-zero status, and tessera_last_error() returns its message (for the calling thread) until the
 * next failing call on that thread.
 *
 *     tessera_graph *graph = tessera_graph_load("blur.yaml");
 *     if (!graph || tessera_graph_set(graph, "soft.sigma=8") || tessera_graph_run(graph, 0))
 *         fprintf(stderr, "%s\n", tessera_last_error());
 *     tessera_graph_free(graph);
 */
#ifndef TESSERA_H
#define TESSERA_H

#ifdef __cplusplus
extern "C" {
#endif

/* A validated graph with its parameter overrides. */
typedef struct tessera_graph tessera_graph;

/* Statuses: 0 success; these otherwise. */
#define TESSERA_STATUS_FAILED 1  /* a run failed (a file missing, a node failed, a plugin unusable) */
#define TESSERA_STATUS_INVALID 2 /* the graph or an override has errors (messages as `tessera validate`) */

/* The version of Tessera, as "0.1.0". */
const char *tessera_version(void);

/* Loads a plugin's nodes for the graphs loaded after this call. 0, or TESSERA_STATUS_FAILED. */
int tessera_load_plugin(const char *path);

/* Reads and validates the graph file at `path` (YAML or JSON). NULL on errors. */
tessera_graph *tessera_graph_load(const char *path);

/* Validates graph text, read as YAML 1.2 (JSON text reads too: JSON is YAML); relative paths in it
   resolve against `base_folder` (NULL: the current folder). */
tessera_graph *tessera_graph_parse(const char *text, const char *base_folder);

/* Overrides a parameter as `tessera run --set` does: "node.parameter=value". The graph is validated
   again; on errors the override is not kept and TESSERA_STATUS_INVALID is returned. */
int tessera_graph_set(tessera_graph *graph, const char *assignment);

/* Runs the graph on `threads` workers (0: one per core; at most 256). 0, or TESSERA_STATUS_FAILED (also
   for a negative count or one above 256). An image a sink would write with more than 2^32 pixels fails
   the run before its file is opened. */
int tessera_graph_run(tessera_graph *graph, int threads);

/* The files the last run wrote, one per line ("" before a run). Valid until the next call on `graph`. */
const char *tessera_graph_outputs(tessera_graph *graph);

/* The value of an output after the last run, as JSON: `output` is "node.output" ("heat.boxes") or
   "node" for its first output. Boxes, numbers and contours are objects whose "kind" names them, as
   `save` writes them to .json (schemas in Docs/schemas/). NULL (see tessera_last_error) for an image
   output, an unknown name, or before a run. Valid until the next call on `graph`. */
const char *tessera_graph_value_json(tessera_graph *graph, const char *output);

/* What the last run gave, as `tessera run --json` prints it: {"files": [...], "values": {...}}, the
   values being every output that is not an image and that no node's input reads. NULL before a run.
   Valid until the next call on `graph`. */
const char *tessera_graph_result_json(tessera_graph *graph);

void tessera_graph_free(tessera_graph *graph);

/* The message of the calling thread's last failure ("" if none). Valid until its next failure. */
const char *tessera_last_error(void);

#ifdef __cplusplus
}
#endif

#endif
