/*
 * Plugins that go wrong in one way each, for the command-line tests. Built with cc and one of:
 *   -DABI_VERSION=N  claims another ABI version (1: a table as version 1 laid it out, and no longer)
 *   -DNO_ENTRY       exports no entry symbol
 *   -DOP='"crop"'    names its node after another (a built-in)
 *   -DFAIL_RENDER    fails every render
 *   -DFAIL_CREATE    fails to make its node
 *   -DBAD_CATALOG    gives a catalog that is not JSON
 *   -DHUGE_REGION    asks for an absurd input region
 *   -DEMPTY_OUTPUT   makes an output of no pixels
 *   -DCRASH_RENDER   crashes (writes through NULL) rendering below row 256, once a file is being written
 *   -DEXIT_RENDER    calls exit(0) there instead
 *   -DREADS_RIGHT    reads each pixel's right-hand neighbour, which its input region does not declare
 * and otherwise declares a working point node `halve` that halves every sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera_plugin.h"

#ifndef ABI_VERSION
#define ABI_VERSION TESSERA_PLUGIN_ABI_VERSION
#endif
#ifndef OP
#define OP "halve"
#endif

#ifdef BAD_CATALOG
static const char catalog[] = "{\"nodes\": [";
#else
static const char catalog[] =
    "{\"nodes\": [{\"op\": \"" OP "\", \"summary\": \"Halves every sample.\", \"access\": \"point\","
    "\"inputs\": [{\"name\": \"input\", \"type\": \"image\", \"doc\": \"The image.\"}],"
    "\"outputs\": [{\"name\": \"output\", \"type\": \"image\", \"doc\": \"Half of it.\"}],"
    "\"parameters\": []}]}";
#endif

static int token;

static int32_t create(const char *op, const char *parameters_json, const tessera_image_info *inputs,
                      int32_t input_count, tessera_instance **instance, tessera_instance_info *info,
                      char *message, size_t message_capacity) {
    (void)op;
    (void)parameters_json;
    (void)input_count;
#ifdef FAIL_CREATE
    (void)inputs;
    (void)instance;
    (void)info;
    snprintf(message, message_capacity, "the broken plugin refuses to make its node");
    return TESSERA_ERROR_PARAMETERS;
#else
    (void)message;
    (void)message_capacity;
    memset(info, 0, sizeof *info);
    info->output = inputs[0];
#ifdef EMPTY_OUTPUT
    info->output.width = 0;
#endif
    info->input_count = 1;
#ifdef BAD_EDGE
    info->edges[0] = 77;
#endif
    *instance = (tessera_instance *)&token;
    return TESSERA_OK;
#endif
}

static tessera_rect input_region(const tessera_instance *instance, tessera_rect output, int32_t input) {
    (void)instance;
    (void)input;
#ifdef HUGE_REGION
    output.width = (int64_t)1 << 40;
#endif
    return output;
}

static int32_t render(const tessera_instance *instance, tessera_buffer *output, const tessera_buffer *inputs,
                      int32_t input_count, char *message, size_t message_capacity) {
    (void)instance;
    (void)input_count;
#ifdef FAIL_RENDER
    (void)output;
    (void)inputs;
    snprintf(message, message_capacity, "the broken plugin cannot render");
    return TESSERA_ERROR_RENDER;
#else
    (void)message;
    (void)message_capacity;
#ifdef CRASH_RENDER
    if (output->region.y >= 256) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
#endif
#ifdef EXIT_RENDER
    if (output->region.y >= 256) exit(0);
#endif
    const tessera_buffer *in = &inputs[0];
    for (int64_t y = 0; y < output->region.height; y++) {
        for (int64_t i = 0; i < output->region.width * output->channels; i++) {
            int64_t sy = y + output->region.y - in->region.y;
            int64_t sx = output->region.x - in->region.x;
            int64_t next = 0;
#ifdef READS_RIGHT
            /* The next pixel of the buffer's row, when it has one: past the declared region's edge. */
            if (output->region.x + i / output->channels + 1 < in->region.x + in->region.width) next = in->channels;
#endif
            output->samples[y * output->region.width * output->channels + i] =
                in->samples[(sy * in->region.width + sx) * in->channels + i + next] * 0.5f;
        }
    }
    return TESSERA_OK;
#endif
}

static void destroy(tessera_instance *instance) { (void)instance; }

#if !defined(NO_ENTRY) && ABI_VERSION == 1
/* A table as version 1 laid it out, followed by pointers no host may call: a host that read version 2's
   fields from it would call create_v2 at address 1 and crash. */
struct version1_table {
    uint32_t abi_version;
    const char *catalog_json;
    void *create, *input_region, *render, *destroy;
    void *beyond[2];
};
const tessera_plugin *tessera_plugin_entry(void) {
    static const struct version1_table plugin = {
        1, catalog, (void *)create, (void *)input_region, (void *)render, (void *)destroy, {(void *)1, (void *)1}};
    return (const tessera_plugin *)(const void *)&plugin;
}
#elif !defined(NO_ENTRY)
const tessera_plugin *tessera_plugin_entry(void) {
    static const tessera_plugin plugin = {
        .abi_version = ABI_VERSION,
        .catalog_json = catalog,
        .create = create,
        .input_region = input_region,
        .render = render,
        .destroy = destroy,
    };
    return &plugin;
}
#endif
