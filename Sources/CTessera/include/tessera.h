/*
 * Tessera's C API: run graphs from C, Python (ctypes) or any language that calls C.
 *
 * Link with -ltessera (libtessera.so: `make libtessera` puts it in out/lib/). Every function may be
 * called from any thread; a graph is used by one thread at a time, except tessera_graph_cancel. A call
 * that fails returns NULL or a non-zero status, and tessera_last_error() returns its message (for the
 * calling thread) until the next failing call on that thread. Strings and images the caller passes stay
 * the caller's; strings the library returns are the library's, valid as each function says. The
 * library installs no signal handlers: a program that wants Ctrl-C to stop a run notes the signal
 * and calls tessera_graph_cancel from one of its threads (the call is not async-signal-safe).
 *
 *     tessera_graph *graph = tessera_graph_load("blur.yaml");
 *     if (!graph || tessera_graph_set(graph, "soft.sigma=8") || tessera_graph_run(graph, 0))
 *         fprintf(stderr, "%s\n", tessera_last_error());
 *     tessera_graph_free(graph);
 */
#ifndef TESSERA_H
#define TESSERA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A validated graph with its parameter overrides. */
typedef struct tessera_graph tessera_graph;

/* Statuses: 0 success; these otherwise. */
#define TESSERA_STATUS_FAILED 1  /* a run failed (a file missing, a node failed, a plugin unusable) */
#define TESSERA_STATUS_INVALID 2 /* the graph or an override has errors (messages as `tessera validate`) */
#define TESSERA_STATUS_CANCELLED 3 /* the run was stopped by tessera_graph_cancel or the progress callback */

/* Sample types of a tessera_image: its bits. Integers map 0...255 or 0...65535 to 0...1. */
#define TESSERA_UINT8 8
#define TESSERA_UINT16 16
#define TESSERA_FLOAT32 32

/* Pixels in memory the caller owns: `height` rows `row_bytes` apart, each `width` pixels of `channels`
   interleaved samples (1 gray, 2 gray and alpha, 3 RGB, 4 RGBA) of type `depth`, aligned to their size.
   row_bytes 0 means packed rows (width * channels * depth / 8). */
typedef struct tessera_image {
    int width;
    int height;
    int channels;
    int depth;
    size_t row_bytes;
    void *data;
} tessera_image;

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

/* Supplies the image of `input` node `node` (`{ op: input, width: 640, height: 480, channels: 3 }`) for
   the runs that follow. The pixels are copied: `image->data` is the caller's again when this returns.
   An image of another size, channel count or declared depth than the node's, or a node that is not a
   source, is refused here: TESSERA_STATUS_INVALID, with the node's line and column. */
int tessera_graph_set_input(tessera_graph *graph, const char *node, const tessera_image *image);

/* Keeps the image that node `node` makes ("soft") in memory at the next runs, for tessera_graph_image_info
   and tessera_graph_read_image; the node runs even if no sink reads it. 0, or TESSERA_STATUS_INVALID
   for a node the graph does not have. */
int tessera_graph_keep(tessera_graph *graph, const char *node);

/* Describes a kept image after a run: width, height, its own channels (1 to 4) and depth; row_bytes 0
   and data NULL. 0, or TESSERA_STATUS_FAILED (not kept, not an image, or no run yet). */
int tessera_graph_image_info(tessera_graph *graph, const char *node, tessera_image *info);

/* Writes a kept image into the caller's memory, `into` saying how (its width and height must be the
   image's; channels and depth may differ: integers are rounded as `save` writes them, gray fills color
   channels, one channel of a color image is its red). 0, or TESSERA_STATUS_FAILED. */
int tessera_graph_read_image(tessera_graph *graph, const char *node, const tessera_image *into);

/* Called during a run with the fraction done (0...1), from the run's threads (several, not at once).
   Return 0 to go on, non-zero to cancel the run. */
typedef int (*tessera_progress_callback)(double fraction, void *user_data);

/* Sets (or, with NULL, removes) the progress callback of the graph's runs. */
void tessera_graph_set_progress(tessera_graph *graph, tessera_progress_callback callback, void *user_data);

/* Stops the graph's run in progress from any thread; it returns TESSERA_STATUS_CANCELLED soon after,
   with its temporary files removed and no output half-written. Called when no run is in progress, it
   stops the next one before it starts. */
void tessera_graph_cancel(tessera_graph *graph);

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

/* Where the calling thread's last failure is written, when it comes from a graph: sets *file (valid until
   the thread's next failure), *line and *column (0 when the problem has no line: a `--set` value, an
   unreadable file) and returns 1; returns 0 when it has no place (any pointer may be NULL). */
int tessera_last_error_location(const char **file, int *line, int *column);

#ifdef __cplusplus
}
#endif

#endif
