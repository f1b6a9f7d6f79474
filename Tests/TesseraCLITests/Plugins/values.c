/*
 * A plugin of ABI version 2 for the command-line tests: values in and out, and a global node.
 *
 *   brightest (global): the pixels whose red is at least `threshold`: their bounding box (`boxes`, one box
 *     or none, its confidence the share of such pixels), the image's mean red (`mean`) and a gray mask of
 *     them (`mask`). `misbehave` makes it give a wrong output instead, one way each, for the host's checks.
 *   boxMask (point): 1 inside any of the `boxes` it is given (a value input), 0 elsewhere, the size of `like`.
 * -DABI_VERSION=1 claims version 1, whose catalogs cannot declare either node. -DREGIONS adds version 3's
 * run_v3: brightest then reads its input row by row through the host and gives its mask as a kernel
 * (`misbehave: readOutside` reads a row one pixel too wide, `readHuge` a region whose edge overflows).
 * -DBYTES (with -DREGIONS) reads those rows as 8-bit samples instead (version 4's read_bytes), each byte
 * `b` then `b * (1 / 255)` as the decoders make it (`readBands` also asks for 2 bytes a pixel, which the
 * host refuses).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_plugin.h"

#ifndef ABI_VERSION
#define ABI_VERSION TESSERA_PLUGIN_ABI_VERSION
#endif

static const char catalog[] =
    "{\"nodes\": ["
    "{\"op\": \"brightest\", \"summary\": \"Finds the pixels whose red is at least a threshold.\", \"access\": "
    "\"global\", \"inputs\": [{\"name\": \"input\", \"type\": \"image\"}], \"outputs\": ["
    "{\"name\": \"boxes\", \"type\": \"boxes\"}, {\"name\": \"mean\", \"type\": \"number\"}, "
    "{\"name\": \"mask\", \"type\": \"image\"}], \"parameters\": ["
    "{\"name\": \"threshold\", \"type\": \"number\", \"default\": 0.5, \"minimum\": 0, \"maximum\": 1, \"doc\": \"The least red counted.\"},"
    "{\"name\": \"misbehave\", \"type\": \"choice\", \"default\": \"none\", \"choices\": [\"none\", \"notJSON\", "
    "\"wrongKind\", \"infinite\", \"missing\", \"wrongPort\", \"badImage\", \"fail\", \"readOutside\", \"readHuge\", \"readBands\"], \"doc\": \"Give a wrong output, one way each.\"}]},"
    "{\"op\": \"boxMask\", \"summary\": \"1 inside the boxes, 0 elsewhere.\", \"access\": \"point\", "
    "\"inputs\": [{\"name\": \"boxes\", \"type\": \"boxes\"}, {\"name\": \"like\", \"type\": \"image\"}], "
    "\"outputs\": [{\"name\": \"output\", \"type\": \"image\"}], \"parameters\": []}"
    "]}";

#define MAX_BOXES 64

struct tessera_instance {
    int global;
    int mask_kernel; /* run_v3's mask: 1 where input 0's red is at least `threshold` */
    int channels;
    int64_t width, height; /* brightest's input, as create_v2 was told */
    double threshold;
    char misbehave[16];
    int box_count;
    double boxes[MAX_BOXES][4];
};

/* The number after `"key":` in `text`, from `from` on; NAN when absent. The host writes the JSON. */
static double number_after(const char *text, const char *key) {
    const char *found = strstr(text, key);
    if (found == NULL) return NAN;
    found = strchr(found + strlen(key), ':');
    return found == NULL ? NAN : strtod(found + 1, NULL);
}

static int32_t say(char *message, size_t capacity, int32_t code, const char *text) {
    if (message != NULL && capacity > 0) snprintf(message, capacity, "%s", text);
    return code;
}

static int32_t create_v2(const char *op, const char *parameters, const tessera_port *inputs, int32_t count,
                         tessera_instance **instance, tessera_instance_info *info, char *message, size_t capacity) {
    tessera_instance *made = calloc(1, sizeof *made);
    if (made == NULL) return say(message, capacity, TESSERA_ERROR_RENDER, "out of memory");
    if (strcmp(op, "brightest") == 0) {
        made->global = 1;
        made->channels = count == 1 && inputs[0].image.layout == TESSERA_LAYOUT_GRAY ? 1 : 4;
        made->width = count == 1 ? inputs[0].image.width : 0;
        made->height = count == 1 ? inputs[0].image.height : 0;
        made->threshold = number_after(parameters, "\"threshold\"");
        const char *word = strstr(parameters, "\"misbehave\"");
        if (word != NULL) sscanf(strchr(word + 11, '"') + 1, "%15[^\"]", made->misbehave);
    } else if (strcmp(op, "boxMask") == 0) {
        if (count != 2 || inputs[0].value_json == NULL || inputs[1].image.width == 0) {
            free(made);
            return say(message, capacity, TESSERA_ERROR_INPUTS, "boxMask takes boxes and an image");
        }
        /* Each box is an object with x, y, width, height: walk them in order. */
        const char *at = strstr(inputs[0].value_json, "\"boxes\": [");
        while (at != NULL && made->box_count < MAX_BOXES && (at = strstr(at + 1, "{\"x\"")) != NULL) {
            double *box = made->boxes[made->box_count++];
            box[0] = number_after(at, "\"x\"");
            box[1] = number_after(at, "\"y\"");
            box[2] = number_after(at, "\"width\"");
            box[3] = number_after(at, "\"height\"");
        }
        info->output = (tessera_image_info){inputs[1].image.width, inputs[1].image.height, TESSERA_LAYOUT_GRAY, 8};
        info->input_count = 0;
    } else {
        free(made);
        return say(message, capacity, TESSERA_ERROR_UNKNOWN_NODE, "no such node");
    }
    *instance = made;
    return TESSERA_OK;
}

static tessera_rect input_region(const tessera_instance *instance, tessera_rect output, int32_t input) {
    (void)instance;
    (void)input;
    return output;
}

static int32_t render(const tessera_instance *instance, tessera_buffer *output, const tessera_buffer *inputs,
                      int32_t count, char *message, size_t capacity) {
    (void)message;
    (void)capacity;
    if (instance->mask_kernel) {
        if (count != 1) return TESSERA_ERROR_INPUTS;
        const tessera_buffer *in = &inputs[0];
        for (int64_t y = 0; y < output->region.height; y++) {
            for (int64_t x = 0; x < output->region.width; x++) {
                int64_t at = ((y + output->region.y - in->region.y) * in->region.width + x + output->region.x -
                              in->region.x) * in->channels;
                output->samples[y * output->region.width + x] = in->samples[at] >= instance->threshold ? 1.0f : 0.0f;
            }
        }
        return TESSERA_OK;
    }
    for (int64_t y = 0; y < output->region.height; y++) {
        for (int64_t x = 0; x < output->region.width; x++) {
            double px = (double)(x + output->region.x) + 0.5, py = (double)(y + output->region.y) + 0.5;
            float inside = 0;
            for (int i = 0; i < instance->box_count; i++) {
                const double *b = instance->boxes[i];
                if (px >= b[0] && px < b[0] + b[2] && py >= b[1] && py < b[1] + b[3]) inside = 1;
            }
            output->samples[y * output->region.width + x] = inside;
        }
    }
    return TESSERA_OK;
}

/* brightest's work on `image`, its outputs given to `outputs`; the mask whole, or as a kernel when `as_kernel`. */
static int32_t analyze(const tessera_instance *instance, const tessera_buffer *image, const tessera_outputs *outputs,
                       int as_kernel, char *message, size_t capacity) {
    const char *misbehave = instance->misbehave;
    if (strcmp(misbehave, "fail") == 0) return say(message, capacity, TESSERA_ERROR_RENDER, "the model is missing");
    int64_t width = image->region.width, height = image->region.height;
    float *mask = malloc((size_t)(width * height) * sizeof(float));
    if (mask == NULL) return say(message, capacity, TESSERA_ERROR_RENDER, "out of memory");
    double total = 0;
    int64_t found = 0, x0 = width, y0 = height, x1 = -1, y1 = -1;
    for (int64_t y = 0; y < height; y++) {
        for (int64_t x = 0; x < width; x++) {
            float red = image->samples[(y * width + x) * image->channels];
            total += red;
            int bright = red >= instance->threshold;
            mask[y * width + x] = bright ? 1.0f : 0.0f;
            if (!bright) continue;
            found++;
            if (x < x0) x0 = x;
            if (y < y0) y0 = y;
            if (x > x1) x1 = x;
            if (y > y1) y1 = y;
        }
    }
    char json[512];
    if (found == 0) {
        snprintf(json, sizeof json, "{\"kind\": \"boxes\", \"boxes\": []}");
    } else {
        snprintf(json, sizeof json,
                 "{\"kind\": \"boxes\", \"boxes\": [{\"x\": %lld, \"y\": %lld, \"width\": %lld, \"height\": %lld, "
                 "\"confidence\": %.6f}]}",
                 (long long)x0, (long long)y0, (long long)(x1 - x0 + 1), (long long)(y1 - y0 + 1),
                 (double)found / (double)(width * height));
    }
    if (strcmp(misbehave, "notJSON") == 0) snprintf(json, sizeof json, "{\"kind\": \"boxes\", \"boxes\": [");
    if (strcmp(misbehave, "wrongKind") == 0) snprintf(json, sizeof json, "{\"kind\": \"number\", \"value\": 1}");
    if (strcmp(misbehave, "infinite") == 0) {
        snprintf(json, sizeof json,
                 "{\"kind\": \"boxes\", \"boxes\": [{\"x\": 1e999, \"y\": 0, \"width\": 1, \"height\": 1, "
                 "\"confidence\": 1}]}");
    }
    outputs->set_value(outputs->results, strcmp(misbehave, "wrongPort") == 0 ? 2 : 0, json);
    char mean[128];
    snprintf(mean, sizeof mean, "{\"kind\": \"number\", \"value\": %.17g}", total / (double)(width * height));
    if (strcmp(misbehave, "missing") != 0) outputs->set_value(outputs->results, 1, mean);
    tessera_buffer made = {{0, 0, width, height}, 1, mask};
    if (strcmp(misbehave, "badImage") == 0) made.region.x = 5;
    if (as_kernel) {
        tessera_instance *kernel = calloc(1, sizeof *kernel);
        if (kernel == NULL) return say(message, capacity, TESSERA_ERROR_RENDER, "out of memory");
        kernel->mask_kernel = 1;
        kernel->threshold = instance->threshold;
        tessera_instance_info info = {{width, height, TESSERA_LAYOUT_GRAY, 8}, 1, {0}, {TESSERA_EDGE_CLAMP}};
        outputs->set_kernel(outputs->results, 2, kernel, &info);
    } else {
        outputs->set_image(outputs->results, 2, &made, TESSERA_LAYOUT_GRAY, 8);
    }
    free(mask);
    return TESSERA_OK;
}

static int32_t run(const tessera_instance *instance, const tessera_buffer *images, int32_t count,
                   const tessera_outputs *outputs, char *message, size_t capacity) {
    if (count != 1 || images[0].channels == 0) return say(message, capacity, TESSERA_ERROR_INPUTS, "no image");
    return analyze(instance, &images[0], outputs, 0, message, capacity);
}

#ifdef REGIONS
/* Version 3: the input read row by row through the host, the mask given as a kernel. */
static int32_t run_v3(const tessera_instance *instance, const tessera_inputs *inputs, const tessera_outputs *outputs,
                      char *message, size_t capacity) {
    int64_t width = instance->width, height = instance->height;
    int channels = instance->channels;
    float *samples = malloc((size_t)(width * height * channels) * sizeof(float));
    if (samples == NULL) return say(message, capacity, TESSERA_ERROR_RENDER, "out of memory");
    int64_t row_width = strcmp(instance->misbehave, "readOutside") == 0 ? width + 1 : width;
    if (strcmp(instance->misbehave, "readHuge") == 0) {
        /* A region whose right edge overflows 64 bits: refused, never computed. */
        float probe[4];
        inputs->read(inputs->source, 0, (tessera_rect){INT64_MAX - 1, 0, 16, 1}, probe);
    }
#ifdef BYTES
    uint8_t *bytes = malloc((size_t)(row_width * channels));
    if (bytes == NULL) {
        free(samples);
        return say(message, capacity, TESSERA_ERROR_RENDER, "out of memory");
    }
    if (strcmp(instance->misbehave, "readBands") == 0) {
        /* 2 bytes a pixel: refused (the plugin goes on; the host fails the node). */
        inputs->read_bytes(inputs->source, 0, (tessera_rect){0, 0, 1, 1}, 2, bytes);
    }
#endif
    for (int64_t y = 0; y < height; y++) {
#ifdef BYTES
        int32_t code = inputs->read_bytes(inputs->source, 0, (tessera_rect){0, y, row_width, 1}, channels, bytes);
        for (int64_t i = 0; code == TESSERA_OK && i < width * channels; i++)
            samples[y * width * channels + i] = bytes[i] * (1.0f / 255);
#else
        int32_t code =
            inputs->read(inputs->source, 0, (tessera_rect){0, y, row_width, 1}, samples + y * width * channels);
#endif
        if (code != TESSERA_OK) {
            free(samples);
#ifdef BYTES
            free(bytes);
#endif
            return say(message, capacity, TESSERA_ERROR_INPUTS, "a read failed");
        }
    }
#ifdef BYTES
    free(bytes);
#endif
    tessera_buffer image = {{0, 0, width, height}, channels, samples};
    int32_t code = analyze(instance, &image, outputs, 1, message, capacity);
    free(samples);
    return code;
}
#endif

/* Version 1's create: these nodes need version 2's ports. */
static int32_t create(const char *op, const char *parameters, const tessera_image_info *inputs, int32_t count,
                      tessera_instance **instance, tessera_instance_info *info, char *message, size_t capacity) {
    (void)op, (void)parameters, (void)inputs, (void)count, (void)instance, (void)info;
    return say(message, capacity, TESSERA_ERROR_UNKNOWN_NODE, "these nodes need plugin ABI version 2");
}

static void destroy(tessera_instance *instance) { free(instance); }

const tessera_plugin *tessera_plugin_entry(void) {
    static const tessera_plugin plugin = {
        .abi_version = ABI_VERSION,
        .catalog_json = catalog,
        .create = create,
        .input_region = input_region,
        .render = render,
        .destroy = destroy,
        .create_v2 = create_v2,
        .run = run,
#ifdef REGIONS
        .run_v3 = run_v3,
#endif
    };
    return &plugin;
}
