/*
 * The Tessera plugin ABI: what a plugin shared library exports and what the host calls.
 *
 * Swift has no stable ABI on Linux, and a plugin that links its own copy of a Swift module sees other
 * type metadata than the host, so only the C types below cross the boundary.
 *
 * A plugin exports one symbol, `tessera_plugin_entry`, returning a pointer to a `tessera_plugin` that
 * stays valid while the library is loaded. The host reads `abi_version` first and refuses the plugin
 * unless it equals the host's TESSERA_PLUGIN_ABI_VERSION (as GEGL checks a module's ABI version before
 * anything else); every other field may change between versions.
 *
 * The catalog is JSON, in the format of `tessera nodes --json`:
 *
 *     {"nodes": [{"op": "sobel", "summary": "...", "access": "area", "example": "...",
 *                 "inputs": [{"name": "input", "type": "image", "optional": false, "doc": "..."}],
 *                 "outputs": [{"name": "output", "type": "image", "doc": "..."}],
 *                 "parameters": [{"name": "scale", "type": "number", "default": 1, "minimum": 0,
 *                                 "maximum": 8, "suggestedMinimum": 0.5, "suggestedMaximum": 2,
 *                                 "doc": "..."}]}]}
 *
 * Parameter types: number, integer, boolean, string, choice (with "choices"), path, numbers, rect,
 * numberOrAuto (a number or the string "auto"), ratio (written 4:3 or 1.333 in a graph; `create` gets
 * the number, 1.3333...). A parameter without "default" is required; "default": null makes it
 * optional. Plugin nodes read images and make one image (access point, area, geometry or source): the
 * host wraps each in a kernel that the tile-parallel scheduler runs like a built-in's.
 *
 * Trust: a plugin runs inside the host's process as trusted code, with the host's rights. The host
 * checks everything this ABI lets it check (the version, the catalog, the sizes, regions, layouts and
 * edge modes `create` and `input_region` give back, the return codes), but it cannot contain a plugin
 * that crashes, corrupts memory or never returns: that takes the whole process down (the `tessera`
 * command, or the program embedding Tessera). Load only plugins you would run as programs.
 *
 * Loading: the host loads a plugin by its file's path. A name without a slash (`--plugin libsobel.so`)
 * is a file in the current folder (`./libsobel.so`), never a library the dynamic loader looks up in
 * the system's folders.
 *
 * Threads: `create` and `destroy` are called from one thread at a time; `input_region` and `render`
 * are called from several threads at once on the same instance, so an instance must not change after
 * `create`. A render must give the same bits for a pixel whatever output region it is asked for (the
 * tiles differ with the thread count and tile size; the output must not).
 */
#ifndef TESSERA_PLUGIN_H
#define TESSERA_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header. A host refuses plugins built against another one. */
#define TESSERA_PLUGIN_ABI_VERSION 1

/* The name of the one symbol a plugin exports: `const tessera_plugin *tessera_plugin_entry(void)`. */
#define TESSERA_PLUGIN_ENTRY_SYMBOL "tessera_plugin_entry"

/* Return codes of `create` and `render`. Anything else but TESSERA_OK is a failure too. */
#define TESSERA_OK 0
#define TESSERA_ERROR_PARAMETERS 1 /* a parameter value the plugin cannot use */
#define TESSERA_ERROR_INPUTS 2     /* input images of a kind the node cannot read */
#define TESSERA_ERROR_RENDER 3     /* computing pixels failed */
#define TESSERA_ERROR_UNKNOWN_NODE 4

/* Edge modes: what an input reads like outside its extent. Any other value is refused, naming the plugin. */
#define TESSERA_EDGE_CLAMP 0       /* the nearest edge pixel */
#define TESSERA_EDGE_TRANSPARENT 1 /* zero in every channel */

/* Layouts: how an image's channels are meant. Gray has 1 channel in memory, the others 4. */
#define TESSERA_LAYOUT_GRAY 0
#define TESSERA_LAYOUT_GRAY_ALPHA 1 /* held as (g, g, g, a) */
#define TESSERA_LAYOUT_RGB 2        /* held as (r, g, b, 1) */
#define TESSERA_LAYOUT_RGBA 3

/* The most inputs a plugin node's kernel may read. */
#define TESSERA_MAX_INPUTS 8

/* A rectangle of pixels: origin top-left, x right, y down. */
typedef struct tessera_rect {
    int64_t x, y, width, height;
} tessera_rect;

/* The size and kind of an image. `width` 0 marks an unconnected optional input. */
typedef struct tessera_image_info {
    int64_t width, height;
    int32_t layout; /* TESSERA_LAYOUT_* */
    int32_t depth;  /* bits of the samples the data came from: 8, 16 or 32 (float) */
} tessera_image_info;

/* The Float32 samples of one region, interleaved, row by row, with no padding between rows:
   `region.height` rows of `region.width * channels` floats. Pixel (x, y), channel c is
   samples[((y - region.y) * region.width + (x - region.x)) * channels + c]. */
typedef struct tessera_buffer {
    tessera_rect region;
    int32_t channels; /* 1 or 4 */
    float *samples;
} tessera_buffer;

/* A configured node: made by `create`, owned by the plugin, released by `destroy`. */
typedef struct tessera_instance tessera_instance;

/* What `create` says about the node it made. */
typedef struct tessera_instance_info {
    tessera_image_info output;
    /* The kernel's inputs: `input_count` of them; kernel input i reads the node's input port
       `input_ports[i]` (an index into the catalog's "inputs") with edge mode `edges[i]`. */
    int32_t input_count;
    int32_t input_ports[TESSERA_MAX_INPUTS];
    int32_t edges[TESSERA_MAX_INPUTS];
} tessera_instance_info;

typedef struct tessera_plugin {
    /* TESSERA_PLUGIN_ABI_VERSION as the plugin was built. Read first; the rest only if it matches. */
    uint32_t abi_version;
    /* The nodes, as JSON (above), UTF-8 and NUL-terminated. */
    const char *catalog_json;

    /* Makes a node `op` with `parameters_json` (an object holding every parameter by name, defaults
       filled in, paths resolved) reading `inputs` (one per catalog input port, in catalog order).
       Fills `*instance` and `*info` and returns TESSERA_OK, or returns an error code with a
       NUL-terminated message in `message` (at most `message_capacity` bytes). */
    int32_t (*create)(const char *op, const char *parameters_json, const tessera_image_info *inputs,
                      int32_t input_count, tessera_instance **instance, tessera_instance_info *info,
                      char *message, size_t message_capacity);

    /* The region of kernel input `input` that rendering `output` reads, in that input's coordinates.
       It may reach past the input's extent; pixels there follow the input's edge mode. */
    tessera_rect (*input_region)(const tessera_instance *instance, tessera_rect output, int32_t input);

    /* Fills `output->samples` for `output->region` from `inputs` (one per kernel input, each covering
       at least its declared input region, maybe more: index through each buffer's own region). Input
       samples belong to the host's caches and must not be written.
       Returns TESSERA_OK, or an error code with a message as `create` does. */
    int32_t (*render)(const tessera_instance *instance, tessera_buffer *output, const tessera_buffer *inputs,
                      int32_t input_count, char *message, size_t message_capacity);

    /* Releases an instance made by `create`. */
    void (*destroy)(tessera_instance *instance);
} tessera_plugin;

/* The entry point every plugin defines. */
const tessera_plugin *tessera_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif
