/*
 * The Tessera plugin ABI: what a plugin shared library exports and what the host calls.
 *
 * Swift has no stable ABI on Linux, and a plugin that links its own copy of a Swift module sees other
 * type metadata than the host, so only the C types below cross the boundary.
 *
 * A plugin exports one symbol, `tessera_plugin_entry`, returning a pointer to a `tessera_plugin` that
 * stays valid while the library is loaded. The host reads `abi_version` first (as GEGL checks a module's
 * ABI version before anything else) and reads the table as that version laid it out: this host reads
 * versions 1 to 4. Each version only adds fields at the end (2: `create_v2`, `run`; 3: `run_v3`, and
 * `set_kernel` at the end of `tessera_outputs`; 4: `read_bytes` at the end of `tessera_inputs`, which
 * every host of version 4 or later fills): a plugin that leaves them NULL works as the version before
 * did, and one that must also load in older hosts sets `abi_version` to the oldest version whose fields
 * it uses (its table is then read only as far as that version laid it out).
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
 * optional.
 *
 * Ports. In version 1 a plugin node reads images and makes one image (access point, area, geometry or
 * source): the host wraps it in a kernel that the tile-parallel scheduler runs like a built-in's. In
 * version 2 (with `create_v2`) its inputs may also be values, of the types "boxes", "contours",
 * "number", "faces", "text", "hands", "barcodes", "bodies" and "rectangles", which `create_v2` receives as
 * JSON (faces, text lines, hands, barcodes, bodies and rectangles given to a "boxes" port arrive as their boxes); and a node with access "global" reads its input images
 * whole, once, and makes 1 to TESSERA_MAX_OUTPUTS outputs, images or values (`run`), as built-in global
 * nodes (saliency, detectContours) do. A kernel node still makes exactly one output, an image. A table
 * without `create_v2` declares its nodes as version 1 did; one with global nodes must have `run` or
 * `run_v3`.
 *
 * Version 3 lets a global node read only what it needs and leave its image outputs lazy (`run_v3`): it
 * reads regions of its input images when it wants them (`tessera_inputs.read`; a face detector reads
 * the rows its model's input samples, not a whole 12-megapixel photo), and it may give an image output
 * as a kernel (`tessera_outputs.set_kernel`) that the scheduler renders tile by tile on its workers,
 * as it renders a kernel node's output, instead of a whole buffer (a 256 x 256 mask upsampled to the
 * photo's size where the pixels are written).
 *
 * Values cross as JSON, exactly as `save` writes them to a .json file and `tessera run --json` prints
 * them; Docs/schemas/ has a JSON Schema for each kind:
 *
 *     {"kind": "boxes", "boxes": [{"x": 10, "y": 20, "width": 30, "height": 40, "confidence": 0.9}]}
 *     {"kind": "number", "value": 0.25}                      (null for a value that is not finite)
 *     {"kind": "contours", "imageWidth": 64, "imageHeight": 48, "tracedWidth": 64, "tracedHeight": 48,
 *      "contours": [{"parent": -1, "children": [], "isHole": false, "points": [[0, 0], [5, 0], [5, 5]]}]}
 *     {"kind": "faces", "faces": [{"x": 10, "y": 20, "width": 30, "height": 40, "confidence": 0.9,
 *      "roll": 2.5, "yaw": -10, "pitch": 4, "captureQuality": 0.7,
 *      "keypoints": {"rightEye": [18, 30], "leftEye": [32, 30], "noseTip": [25, 38], "mouth": [25, 48],
 *                    "rightEar": [10, 34], "leftEar": [40, 34]},
 *      "landmarks": [[x, y, z], ... 468 points, MediaPipe's face mesh; optional]}]}
 *     (angles in degrees within ±180, captureQuality in 0...1; "regions", written beside landmarks,
 *     is derived from them and not read back)
 *     {"kind": "text", "text": [{"x": 10, "y": 20, "width": 120, "height": 24, "confidence": 0.97,
 *      "string": "Open daily", "quad": [[10, 20], [130, 22], [129, 44], [9, 42]]}]}
 *     (the quad's corners top-left, top-right, bottom-right, bottom-left as the text reads; the box is
 *     the quad's extent, so only its confidence is read back)
 *     {"kind": "hands", "hands": [{"x": 240, "y": 180, "width": 40, "height": 50, "confidence": 0.99,
 *      "chirality": "right", "joints": {"wrist": {"x": 260, "y": 230, "z": 0, "confidence": 0.99},
 *      ... all 21 of Vision's joint names: thumbCMC, thumbMP, thumbIP, thumbTip, indexMCP ... littleTip}}]}
 *     (chirality left, right or unknown; the box is the joints' extent, only its confidence is read)
 *     {"kind": "barcodes", "barcodes": [{"x": 40, "y": 40, "width": 120, "height": 120, "confidence": 1,
 *      "symbology": "qr", "payload": "https://example.org", "corners": [[40, 40], [160, 40], [160, 160],
 *      [40, 160]]}]}
 *     (Vision's symbology names: qr, microQR, aztec, dataMatrix, pdf417, maxiCode, code39, code93,
 *     code128, codabar, ean8, ean13, upca, upce, itf, gs1DataBar, gs1DataBarExpanded; the corners
 *     top-left, top-right, bottom-right, bottom-left as the code reads; the box is their extent, only its
 *     confidence is read back)
 *     {"kind": "bodies", "bodies": [{"x": 120, "y": 40, "width": 200, "height": 420, "confidence": 0.99,
 *      "joints": {"nose": {"x": 220, "y": 70, "z": -300, "visibility": 0.99, "presence": 0.99},
 *      ... all 33 of MediaPipe's pose landmarks: leftEyeInner, leftEye ... leftFootIndex, rightFootIndex},
 *      "vision": {"nose": {"x": 220, "y": 70, "confidence": 0.99}, ... Vision's 19 joint names}}]}
 *     (left and right the subject's own; the box is the extent of the joints whose visibility is at least
 *     0.5, and "vision" is derived from the joints: only the confidence and the joints are read back)
 *     {"kind": "rectangles", "rectangles": [{"x": 40, "y": 30, "width": 500, "height": 700,
 *      "confidence": 0.9, "corners": [[60, 30], [540, 50], [520, 730], [40, 700]]}]}
 *     (a page, card or sign in perspective: its corners top-left, top-right, bottom-right, bottom-left as
 *     the image shows them; the box is their extent, only its confidence is read back. A kind a host of
 *     the same ABI version does not know yet is refused as a catalog error naming the plugin.)
 *
 * Coordinates are pixels of the image the value describes (origin top-left, x right, y down). The host
 * reads every value a plugin gives back and refuses, naming the plugin, one that is not valid JSON of
 * the declared kind (every field checked: finite numbers within 2^30, a box's confidence in 0...1, a
 * contour hierarchy whose children and parents agree, at most 2^20 boxes or contours, 2^24 points and
 * 256 MiB of text).
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

/* The version of this header. A host reads plugins of this version and the ones before it. */
#define TESSERA_PLUGIN_ABI_VERSION 4

/* The name of the one symbol a plugin exports: `const tessera_plugin *tessera_plugin_entry(void)`. */
#define TESSERA_PLUGIN_ENTRY_SYMBOL "tessera_plugin_entry"

/* Return codes of `create`, `create_v2`, `render`, `run` and `run_v3`. Anything else but TESSERA_OK is a failure too. */
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

/* The most inputs a plugin node's kernel may read, and the most outputs a global node may make. */
#define TESSERA_MAX_INPUTS 8
#define TESSERA_MAX_OUTPUTS 8

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

/* One input port as `create_v2` sees it: an image's size and kind (`image.width` 0 when the port is
   not an image, or is unconnected), or a value as JSON (NULL for an image or an unconnected port),
   valid during the call only. */
typedef struct tessera_port {
    tessera_image_info image;
    const char *value_json;
} tessera_port;

/* Where a global node's `run_v3` reads its input images, valid during that call only, and only on the
   thread that runs it. `read` fills `samples` (`region.width * region.height * channels` floats, laid
   out as in tessera_buffer, `channels` 1 for a TESSERA_LAYOUT_GRAY input, else 4) with input port
   `port`'s pixels in `region`, which must be inside the image (origin (0, 0), the size create_v2 was
   told of). The host renders what is asked through its scheduler, from sources decoded once (a large
   region on its workers, a small one on the calling thread), so a read may take a while: read regions
   as large as a step of the work needs, not pixel by pixel. Returns TESSERA_OK, or
   TESSERA_ERROR_INPUTS for a port that is not a connected image, a region outside it or no buffer (the
   node then fails with that mistake when `run_v3` returns, whatever `run_v3` returns), or
   TESSERA_ERROR_RENDER when rendering the input failed (a damaged file: the host reports that error,
   naming the file).
   Version 4 adds `read_bytes`: the same region as 8-bit samples, `bands` a pixel (1: gray, of a color
   image its red; 3: RGB, of a gray image the gray three times; 4: RGBA, alpha 255 where there is none),
   `region.height` rows of `region.width * bands` bytes with no padding, each sample the Float32 one
   rounded as writers round it (clamped to 0...1, NaN to 0, times 255, ties to even). An 8-bit image
   loaded from a file gives its file's bytes without a Float32 copy in between (a detector that wants
   8-bit luma reads 3 bytes a pixel instead of 16). Returns as `read` does, and TESSERA_ERROR_INPUTS for
   `bands` other than 1, 3 or 4. Only a plugin whose `abi_version` is 4 or more may call it (an older
   host has no such field). */
typedef struct tessera_source tessera_source;
typedef struct tessera_inputs {
    tessera_source *source;
    int32_t (*read)(tessera_source *source, int32_t port, tessera_rect region, float *samples);
    int32_t (*read_bytes)(tessera_source *source, int32_t port, tessera_rect region, int32_t bands,
                          uint8_t *bytes);
} tessera_inputs;

/* Where a global node's `run` hands its outputs back, valid during that call only, and called on the
   thread that runs it. The host copies what it is given. `set_value` takes output port `output` (an
   index into the catalog's "outputs") as JSON, which is checked against the declared kind after `run`
   returns. `set_image` takes an image output: `image->region` at (0, 0), at most 2^30 on a side and 2^32
   pixels, `channels` samples per pixel (1 for TESSERA_LAYOUT_GRAY, else 4), `depth` 16 or 32 as in
   tessera_image_info (anything else counts as 8). Giving an output again replaces it. Each returns
   TESSERA_OK, or TESSERA_ERROR_INPUTS for what the host cannot take (a port not of that kind, a bad
   size, layout or pointer); the host reports the first such mistake when `run` returns, with its own
   message if `run` failed. Every output must be given before `run` returns TESSERA_OK. */
typedef struct tessera_results tessera_results;
typedef struct tessera_instance tessera_instance;
typedef struct tessera_instance_info tessera_instance_info;
typedef struct tessera_outputs {
    tessera_results *results;
    int32_t (*set_value)(tessera_results *results, int32_t output, const char *json);
    int32_t (*set_image)(tessera_results *results, int32_t output, const tessera_buffer *image, int32_t layout,
                         int32_t depth);
    /* Version 3 (given to `run_v3` only): image output `output` as a kernel, rendered later by the
       scheduler exactly as a kernel node's output is: `instance` is an instance of this plugin that
       `input_region`, `render` and `destroy` accept, and `info` says what it makes and which of the
       node's input ports it reads, with what edge modes, as `create` says it. The host owns `instance`
       from this call on, whether it takes it or not (it calls `destroy` once it is done with it); the
       instance must not change after this call and must not use `tessera_inputs` (its inputs come to
       `render`, rendered by the host). Returns as `set_image` does. */
    int32_t (*set_kernel)(tessera_results *results, int32_t output, tessera_instance *instance,
                          const tessera_instance_info *info);
} tessera_outputs;

/* A configured node (made by `create`, owned by the plugin, released by `destroy`) is a
   `tessera_instance`, declared above. */

/* What `create` says about the node it made. A global node's is not read (its `run` gives its outputs). */
struct tessera_instance_info {
    tessera_image_info output;
    /* The kernel's inputs: `input_count` of them; kernel input i reads the node's input port
       `input_ports[i]` (an index into the catalog's "inputs") with edge mode `edges[i]`. */
    int32_t input_count;
    int32_t input_ports[TESSERA_MAX_INPUTS];
    int32_t edges[TESSERA_MAX_INPUTS];
};

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

    /* Releases an instance made by `create` or `create_v2`. */
    void (*destroy)(tessera_instance *instance);

    /* Version 2 (NULL in a plugin that needs neither): */

    /* As `create`, with each input port as an image's size or a value's JSON (above). When it is set the
       host calls it instead of `create`. */
    int32_t (*create_v2)(const char *op, const char *parameters_json, const tessera_port *inputs,
                         int32_t input_count, tessera_instance **instance, tessera_instance_info *info,
                         char *message, size_t message_capacity);

    /* A global node's work, called once per run, on one thread, instead of `input_region` and `render`:
       `images` holds one buffer per input port in catalog order, an image port's whole image (region at
       (0, 0), the image's size), a value port's or an unconnected port's empty (channels 0, samples NULL);
       the samples belong to the host and must not be written. The node gives every output through
       `outputs` and returns TESSERA_OK, or an error code with a message as `create` does. */
    int32_t (*run)(const tessera_instance *instance, const tessera_buffer *images, int32_t image_count,
                   const tessera_outputs *outputs, char *message, size_t message_capacity);

    /* Version 3 (NULL in a plugin that does not need it): */

    /* A global node's work, as `run`, but reading its input images through `inputs` (only the regions it
       asks for) instead of being handed them whole, and free to give image outputs as kernels
       (`outputs->set_kernel`). When it is set the host calls it instead of `run`. */
    int32_t (*run_v3)(const tessera_instance *instance, const tessera_inputs *inputs, const tessera_outputs *outputs,
                      char *message, size_t message_capacity);
} tessera_plugin;

/* The entry point every plugin defines. */
const tessera_plugin *tessera_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#endif
