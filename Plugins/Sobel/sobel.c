/*
 * A Tessera plugin in plain C: a Sobel edge filter, an area filter reading a 1-pixel margin.
 *
 * Each color channel becomes scale * sqrt(gx^2 + gy^2) of the 3x3 Sobel derivatives, clamped to 0...1
 * (as OpenCV's Sobel with ksize 3, then magnitude); alpha is kept. Pixels outside the image repeat the
 * nearest edge pixel (the host pads them: the input's edge mode is clamp).
 *
 * Build: make (needs only a C compiler and ../../Sources/CTesseraPlugin/include/tessera_plugin.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_plugin.h"

static const char catalog[] =
    "{\"nodes\": [{"
    "\"op\": \"sobel\","
    "\"summary\": \"Edge strength by the 3x3 Sobel operator, per color channel; alpha is kept (a C plugin).\","
    "\"access\": \"area\","
    "\"example\": \"photo: { op: load, path: photo.png }\\nedges: { op: sobel, input: photo, scale: 2 }\\n"
    "out: { op: save, input: edges, path: edges.png }\","
    "\"inputs\": [{\"name\": \"input\", \"type\": \"image\", \"optional\": false, "
    "\"doc\": \"The image whose edges to find.\"}],"
    "\"outputs\": [{\"name\": \"output\", \"type\": \"image\", \"doc\": \"The edge strength, 0...1.\"}],"
    "\"parameters\": [{\"name\": \"scale\", \"type\": \"number\", \"default\": 1, \"minimum\": 0, "
    "\"maximum\": 16, \"suggestedMinimum\": 0.25, \"suggestedMaximum\": 4, "
    "\"doc\": \"Multiplies the gradient magnitude before clamping to 0...1.\"}]"
    "}]}";

struct tessera_instance {
    float scale;
};

static void say(char *message, size_t capacity, const char *text) {
    if (capacity > 0) snprintf(message, capacity, "%s", text);
}

/* The value of "name" in the host's flat parameter object (numbers only: all this node needs). */
static int number(const char *json, const char *name, double *value) {
    char key[64];
    snprintf(key, sizeof key, "\"%s\"", name);
    const char *at = strstr(json, key);
    if (!at) return 0;
    at = strchr(at + strlen(key), ':');
    if (!at) return 0;
    char *end;
    *value = strtod(at + 1, &end);
    return end != at + 1;
}

static int32_t create(const char *op, const char *parameters_json, const tessera_image_info *inputs,
                      int32_t input_count, tessera_instance **instance, tessera_instance_info *info,
                      char *message, size_t message_capacity) {
    if (strcmp(op, "sobel") != 0) {
        say(message, message_capacity, "this plugin has no such node");
        return TESSERA_ERROR_UNKNOWN_NODE;
    }
    double scale;
    if (!number(parameters_json, "scale", &scale)) {
        say(message, message_capacity, "scale: expected a number");
        return TESSERA_ERROR_PARAMETERS;
    }
    if (input_count != 1 || inputs[0].width <= 0) {
        say(message, message_capacity, "sobel reads one image");
        return TESSERA_ERROR_INPUTS;
    }
    tessera_instance *made = malloc(sizeof *made);
    if (!made) {
        say(message, message_capacity, "out of memory");
        return TESSERA_ERROR_RENDER;
    }
    made->scale = (float)scale;
    memset(info, 0, sizeof *info);
    info->output = inputs[0];
    info->input_count = 1;
    info->input_ports[0] = 0;
    info->edges[0] = TESSERA_EDGE_CLAMP;
    *instance = made;
    return TESSERA_OK;
}

/* One pixel more on every side: the 3x3 neighbourhood. */
static tessera_rect input_region(const tessera_instance *instance, tessera_rect output, int32_t input) {
    (void)instance;
    (void)input;
    tessera_rect region = {output.x - 1, output.y - 1, output.width + 2, output.height + 2};
    return region;
}

static int32_t render(const tessera_instance *instance, tessera_buffer *output, const tessera_buffer *inputs,
                      int32_t input_count, char *message, size_t message_capacity) {
    if (input_count != 1 || inputs[0].channels != output->channels) {
        say(message, message_capacity, "sobel: unexpected input buffers");
        return TESSERA_ERROR_RENDER;
    }
    const tessera_buffer *in = &inputs[0];
    const int64_t channels = output->channels;
    /* Color channels only: a 4-channel image keeps its alpha. */
    const int64_t colors = channels == 4 ? 3 : 1;
    const float scale = instance->scale;
    for (int64_t y = output->region.y; y < output->region.y + output->region.height; y++) {
        for (int64_t x = output->region.x; x < output->region.x + output->region.width; x++) {
            float *out = output->samples +
                         ((y - output->region.y) * output->region.width + (x - output->region.x)) * channels;
#define AT(dx, dy, c) \
    in->samples[((y + (dy) - in->region.y) * in->region.width + (x + (dx) - in->region.x)) * channels + (c)]
            for (int64_t c = 0; c < colors; c++) {
                float gx = (AT(1, -1, c) + 2 * AT(1, 0, c) + AT(1, 1, c)) - (AT(-1, -1, c) + 2 * AT(-1, 0, c) + AT(-1, 1, c));
                float gy = (AT(-1, 1, c) + 2 * AT(0, 1, c) + AT(1, 1, c)) - (AT(-1, -1, c) + 2 * AT(0, -1, c) + AT(1, -1, c));
                float magnitude = scale * sqrtf(gx * gx + gy * gy);
                out[c] = magnitude < 0 ? 0 : magnitude > 1 ? 1 : magnitude;
            }
            if (channels == 4) out[3] = AT(0, 0, 3);
#undef AT
        }
    }
    return TESSERA_OK;
}

static void destroy(tessera_instance *instance) { free(instance); }

const tessera_plugin *tessera_plugin_entry(void) {
    /* Named fields: later versions of the ABI add fields at the end, which stay NULL here. */
    static const tessera_plugin plugin = {
        .abi_version = TESSERA_PLUGIN_ABI_VERSION,
        .catalog_json = catalog,
        .create = create,
        .input_region = input_region,
        .render = render,
        .destroy = destroy,
    };
    return &plugin;
}
