// WebP (libwebp), GIF (giflib) and HEIF/AVIF (libheif): formats decoded whole. None of these libraries
// jumps or exits on an error; each failure comes back as -1 and a message.
#include "CImageShims.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gif_lib.h>
#include <libheif/heif.h>
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>
#include <webp/mux.h>

static int fail(char *err, size_t errlen, const char *format, ...) {
    if (err != NULL && errlen > 0) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(err, errlen, format, arguments);
        va_end(arguments);
        // libheif ends some messages with a newline: the caller's message is one line.
        size_t length = strlen(err);
        while (length > 0 && (err[length - 1] == '\n' || err[length - 1] == ' ')) err[--length] = 0;
    }
    return -1;
}

/// The whole file in a malloc'ed buffer, or NULL with a message.
static uint8_t *read_whole_file(const char *path, size_t *size, char *err, size_t errlen) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        fail(err, errlen, "%s", strerror(errno));
        return NULL;
    }
    struct stat status;
    if (fstat(fileno(file), &status) != 0 || status.st_size <= 0) {
        fail(err, errlen, "the file is empty or cannot be read");
        fclose(file);
        return NULL;
    }
    uint8_t *bytes = malloc((size_t)status.st_size);
    if (bytes == NULL) {
        fail(err, errlen, "out of memory reading %lld bytes", (long long)status.st_size);
        fclose(file);
        return NULL;
    }
    size_t read = fread(bytes, 1, (size_t)status.st_size, file);
    fclose(file);
    if (read != (size_t)status.st_size) {
        fail(err, errlen, "read error");
        free(bytes);
        return NULL;
    }
    *size = read;
    return bytes;
}

static int write_whole_file(const char *path, const uint8_t *bytes, size_t size, char *err, size_t errlen) {
    FILE *file = fopen(path, "wb");
    if (file == NULL) return fail(err, errlen, "%s", strerror(errno));
    size_t written = fwrite(bytes, 1, size, file);
    int closed = fclose(file);
    if (written != size || closed != 0) return fail(err, errlen, "%s", strerror(errno ? errno : EIO));
    return 0;
}

// MARK: - WebP

struct tsr_webp_file {
    uint8_t *bytes;
    size_t size;
    WebPDemuxer *demux;
};

static const char *webp_status(VP8StatusCode status) {
    switch (status) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "the image data is damaged (bitstream error)";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "a feature this libwebp does not support";
    case VP8_STATUS_SUSPENDED: return "decoding suspended";
    case VP8_STATUS_USER_ABORT: return "decoding aborted";
    case VP8_STATUS_NOT_ENOUGH_DATA: return "the file ends early (truncated)";
    default: return "unknown error";
    }
}

void tsr_webp_close(tsr_webp_file *f) {
    if (f == NULL) return;
    WebPDemuxDelete(f->demux);
    free(f->bytes);
    free(f);
}

static void webp_chunk(WebPDemuxer *demux, const char *fourcc, const uint8_t **bytes, size_t *size) {
    WebPChunkIterator chunk;
    if (WebPDemuxGetChunk(demux, fourcc, 1, &chunk)) {
        *bytes = chunk.chunk.bytes;
        *size = chunk.chunk.size;
        WebPDemuxReleaseChunkIterator(&chunk);
    }
}

tsr_webp_file *tsr_webp_open(const char *path, tsr_webp_info *info, char *err, size_t errlen) {
    memset(info, 0, sizeof *info);
    tsr_webp_file *f = calloc(1, sizeof *f);
    if (f == NULL) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    f->bytes = read_whole_file(path, &f->size, err, errlen);
    if (f->bytes == NULL) {
        tsr_webp_close(f);
        return NULL;
    }
    WebPData data = {f->bytes, f->size};
    WebPDemuxState state;
    f->demux = WebPDemuxPartial(&data, &state);
    if (f->demux == NULL || state != WEBP_DEMUX_DONE) {
        fail(err, errlen, state == WEBP_DEMUX_PARSING_HEADER || state == WEBP_DEMUX_PARSED_HEADER
                              ? "the file ends early (truncated)"
                              : "not a valid WebP file (damaged chunks)");
        tsr_webp_close(f);
        return NULL;
    }
    info->width = WebPDemuxGetI(f->demux, WEBP_FF_CANVAS_WIDTH);
    info->height = WebPDemuxGetI(f->demux, WEBP_FF_CANVAS_HEIGHT);
    info->frames = (int)WebPDemuxGetI(f->demux, WEBP_FF_FRAME_COUNT);
    WebPIterator frame;
    if (!WebPDemuxGetFrame(f->demux, 1, &frame)) {
        fail(err, errlen, "the file holds no image");
        tsr_webp_close(f);
        return NULL;
    }
    WebPBitstreamFeatures features;
    VP8StatusCode status = WebPGetFeatures(frame.fragment.bytes, frame.fragment.size, &features);
    WebPDemuxReleaseIterator(&frame);
    if (status != VP8_STATUS_OK) {
        fail(err, errlen, "%s", webp_status(status));
        tsr_webp_close(f);
        return NULL;
    }
    uint32_t flags = WebPDemuxGetI(f->demux, WEBP_FF_FORMAT_FLAGS);
    info->animated = (flags & ANIMATION_FLAG) != 0 || info->frames > 1;
    // An animation's canvas is transparent where no frame covers it.
    info->has_alpha = features.has_alpha || (flags & ALPHA_FLAG) != 0 || info->animated;
    info->lossless = !info->animated && features.format == 2;
    webp_chunk(f->demux, "ICCP", &info->metadata.icc, &info->metadata.icc_length);
    webp_chunk(f->demux, "EXIF", &info->metadata.exif, &info->metadata.exif_length);
    webp_chunk(f->demux, "XMP ", &info->metadata.xmp, &info->metadata.xmp_length);
    // Some writers start the EXIF chunk with JPEG's "Exif\0\0"; the TIFF structure follows it.
    if (info->metadata.exif_length > 6 && memcmp(info->metadata.exif, "Exif\0\0", 6) == 0) {
        info->metadata.exif += 6;
        info->metadata.exif_length -= 6;
    }
    return f;
}

int tsr_webp_decode(tsr_webp_file *f, uint8_t *pixels, int channels, char *err, size_t errlen) {
    uint32_t width = WebPDemuxGetI(f->demux, WEBP_FF_CANVAS_WIDTH);
    uint32_t height = WebPDemuxGetI(f->demux, WEBP_FF_CANVAS_HEIGHT);
    size_t stride = (size_t)width * (size_t)channels;
    uint32_t flags = WebPDemuxGetI(f->demux, WEBP_FF_FORMAT_FLAGS);
    if ((flags & ANIMATION_FLAG) != 0 || WebPDemuxGetI(f->demux, WEBP_FF_FRAME_COUNT) > 1) {
        // An animation, even of one frame: its first frame as shown, on the canvas, which libwebp clears
        // first (a frame may cover only part of it; decoded straight into the pixels, the rest would be
        // whatever the memory held).
        WebPAnimDecoderOptions options;
        WebPAnimDecoderOptionsInit(&options);
        options.color_mode = MODE_RGBA;
        options.use_threads = 0;
        WebPData data = {f->bytes, f->size};
        WebPAnimDecoder *decoder = WebPAnimDecoderNew(&data, &options);
        uint8_t *canvas = NULL;
        int timestamp = 0;
        if (decoder == NULL || !WebPAnimDecoderGetNext(decoder, &canvas, &timestamp)) {
            WebPAnimDecoderDelete(decoder);
            return fail(err, errlen, "cannot decode the animation's first frame (damaged or truncated)");
        }
        for (size_t i = 0; i < (size_t)width * height; i++) {
            memcpy(pixels + i * (size_t)channels, canvas + i * 4, (size_t)channels);
        }
        WebPAnimDecoderDelete(decoder);
        return 0;
    }
    WebPIterator frame;
    if (!WebPDemuxGetFrame(f->demux, 1, &frame)) return fail(err, errlen, "the file holds no image");
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) {
        WebPDemuxReleaseIterator(&frame);
        return fail(err, errlen, "libwebp version mismatch");
    }
    config.output.colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = pixels;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = stride * height;
    VP8StatusCode status = WebPDecode(frame.fragment.bytes, frame.fragment.size, &config);
    WebPDemuxReleaseIterator(&frame);
    WebPFreeDecBuffer(&config.output);
    if (status != VP8_STATUS_OK) return fail(err, errlen, "%s", webp_status(status));
    return 0;
}

struct tsr_webp_rows {
    tsr_webp_file *file;
    uint8_t *pixels;
    int channels;
    uint32_t height;
    uint32_t ready;
    // A still image: libwebp's incremental decoder, fed the frame's bytes a piece at a time.
    WebPIDecoder *decoder;
    WebPDecoderConfig config;  // libwebp keeps a pointer to its output while the decoder lives
    WebPIterator frame;
    size_t fed;
    int animation;
};

void tsr_webp_rows_free(tsr_webp_rows *r) {
    if (r == NULL) return;
    if (r->decoder != NULL) {
        WebPIDelete(r->decoder);
        WebPFreeDecBuffer(&r->config.output);
    }
    if (!r->animation) WebPDemuxReleaseIterator(&r->frame);
    free(r);
}

tsr_webp_rows *tsr_webp_rows_start(tsr_webp_file *f, uint8_t *pixels, int channels, uint32_t scaled_width,
                                   uint32_t scaled_height, char *err, size_t errlen) {
    tsr_webp_rows *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    r->file = f;
    r->pixels = pixels;
    r->channels = channels;
    r->height = WebPDemuxGetI(f->demux, WEBP_FF_CANVAS_HEIGHT);
    uint32_t width = WebPDemuxGetI(f->demux, WEBP_FF_CANVAS_WIDTH);
    uint32_t flags = WebPDemuxGetI(f->demux, WEBP_FF_FORMAT_FLAGS);
    if ((flags & ANIMATION_FLAG) != 0 || WebPDemuxGetI(f->demux, WEBP_FF_FRAME_COUNT) > 1) {
        r->animation = 1;  // decoded whole on the first advance (tsr_webp_decode)
        return r;
    }
    if (!WebPDemuxGetFrame(f->demux, 1, &r->frame)) {
        r->animation = 1;  // no iterator to release
        tsr_webp_rows_free(r);
        fail(err, errlen, "the file holds no image");
        return NULL;
    }
    if (!WebPInitDecoderConfig(&r->config)) {
        tsr_webp_rows_free(r);
        fail(err, errlen, "libwebp version mismatch");
        return NULL;
    }
    if (scaled_width > 0 && scaled_height > 0) {
        // libwebp's rescaler, row by row as it decodes (area averages when shrinking), as libvips'
        // webpload `shrink`: the full frame is never held.
        r->config.options.use_scaling = 1;
        r->config.options.scaled_width = (int)scaled_width;
        r->config.options.scaled_height = (int)scaled_height;
        width = scaled_width;
        r->height = scaled_height;
    }
    WebPDecBuffer *output = &r->config.output;
    output->colorspace = channels == 4 ? MODE_RGBA : MODE_RGB;
    output->is_external_memory = 1;
    output->u.RGBA.rgba = pixels;
    output->u.RGBA.stride = (int)(width * (uint32_t)channels);
    output->u.RGBA.size = (size_t)width * (size_t)channels * r->height;
    r->decoder = WebPIDecode(NULL, 0, &r->config);
    if (r->decoder == NULL) {
        tsr_webp_rows_free(r);
        fail(err, errlen, "out of memory");
        return NULL;
    }
    return r;
}

int tsr_webp_rows_advance(tsr_webp_rows *r, uint32_t wanted, uint32_t *ready, char *err, size_t errlen) {
    if (r->animation) {
        if (r->ready < r->height) {
            if (tsr_webp_decode(r->file, r->pixels, r->channels, err, errlen) != 0) return -1;
            r->ready = r->height;
        }
        *ready = r->ready;
        return 0;
    }
    // Pieces of 64 KB: a few rows of a photo each, so a request waits for little more than its rows.
    const size_t piece = 65536;
    while (r->ready < wanted && r->ready < r->height) {
        if (r->fed >= r->frame.fragment.size) return fail(err, errlen, "the file ends early (truncated)");
        r->fed = r->fed + piece < r->frame.fragment.size ? r->fed + piece : r->frame.fragment.size;
        VP8StatusCode status = WebPIUpdate(r->decoder, r->frame.fragment.bytes, r->fed);
        if (status != VP8_STATUS_OK && status != VP8_STATUS_SUSPENDED) return fail(err, errlen, "%s", webp_status(status));
        int last = 0;
        if (WebPIDecGetRGB(r->decoder, &last, NULL, NULL, NULL) != NULL && last > 0) r->ready = (uint32_t)last;
        if (status == VP8_STATUS_OK) r->ready = r->height;
    }
    *ready = r->ready;
    return 0;
}

static const char *webp_encoding_error(WebPEncodingError error) {
    switch (error) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY:
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "WebP images are at most 16383x16383";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "the image is too large for WebP (4 GiB)";
    default: return "the encoder failed";
    }
}

int tsr_webp_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                   int lossless, float quality, const tsr_metadata *metadata, char *err, size_t errlen) {
    if (width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        return fail(err, errlen, "WebP images are at most %dx%d; this one is %ux%u", WEBP_MAX_DIMENSION,
                    WEBP_MAX_DIMENSION, width, height);
    }
    WebPConfig config;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, quality)) return fail(err, errlen, "libwebp version mismatch");
    config.lossless = lossless;
    config.exact = lossless;
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) return fail(err, errlen, "libwebp version mismatch");
    picture.width = (int)width;
    picture.height = (int)height;
    // Lossy WebP is YUV: RGB goes straight to it (as libvips imports it), without an ARGB copy between.
    picture.use_argb = lossless;
    int stride = (int)(width * (uint32_t)channels);
    int imported = channels == 4 ? WebPPictureImportRGBA(&picture, pixels, stride)
                                 : WebPPictureImportRGB(&picture, pixels, stride);
    if (!imported) {
        WebPPictureFree(&picture);
        return fail(err, errlen, "out of memory");
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int encoded = WebPEncode(&config, &picture);
    WebPEncodingError error = picture.error_code;
    WebPPictureFree(&picture);
    if (!encoded) {
        WebPMemoryWriterClear(&writer);
        return fail(err, errlen, "%s", webp_encoding_error(error));
    }
    int status = 0;
    if (metadata != NULL && (metadata->icc != NULL || metadata->exif != NULL || metadata->xmp != NULL)) {
        WebPData image = {writer.mem, writer.size};
        WebPMux *mux = WebPMuxCreate(&image, 1);
        WebPData assembled = {NULL, 0};
        int ok = mux != NULL;
        const struct {
            const char *fourcc;
            const uint8_t *bytes;
            size_t size;
        } chunks[] = {{"ICCP", metadata->icc, metadata->icc_length},
                      {"EXIF", metadata->exif, metadata->exif_length},
                      {"XMP ", metadata->xmp, metadata->xmp_length}};
        for (int i = 0; ok && i < 3; i++) {
            if (chunks[i].bytes == NULL) continue;
            WebPData chunk = {chunks[i].bytes, chunks[i].size};
            ok = WebPMuxSetChunk(mux, chunks[i].fourcc, &chunk, 1) == WEBP_MUX_OK;
        }
        ok = ok && WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK;
        status = ok ? write_whole_file(path, assembled.bytes, assembled.size, err, errlen)
                    : fail(err, errlen, "cannot add the profile and metadata chunks");
        WebPDataClear(&assembled);
        WebPMuxDelete(mux);
    } else {
        status = write_whole_file(path, writer.mem, writer.size, err, errlen);
    }
    WebPMemoryWriterClear(&writer);
    return status;
}

// MARK: - GIF

/// giflib's message for `code`; the ways a file can end early are said in words.
static const char *gif_message(int code) {
    // giflib 5.2 leaves the code 0 when the screen descriptor cannot be read in full.
    if (code == 0 || code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON) {
        return "the file ends early (truncated)";
    }
    const char *message = GifErrorString(code);
    return message != NULL ? message : "damaged GIF data";
}

static int gif_fail(char *err, size_t errlen, int code) { return fail(err, errlen, "%s", gif_message(code)); }

/// The damage giflib's `code` is: the data ending, or data it cannot decode.
static int gif_damage_kind(int code) {
    return code == 0 || code == D_GIF_ERR_READ_FAILED || code == D_GIF_ERR_EOF_TOO_SOON ? TSR_DAMAGE_TRUNCATED
                                                                                         : TSR_DAMAGE_ERROR;
}

/// Notes giflib's failure `code` in frame `index` as damage: 1 (with the message in `err`) when the policy
/// fails on it, 0 when it is read past.
static int gif_damage(tsr_damage *damage, int code, int index, char *err, size_t errlen) {
    if (tsr_damage_note(damage, gif_damage_kind(code), "frame %d: %s", index, gif_message(code))) {
        fail(err, errlen, "%s", gif_message(code));
        return 1;
    }
    return 0;
}

/// A graphic control extension's fields.
typedef struct {
    int transparent;  // the transparent color index, or -1
    int disposal;     // 0 or 1: leave; 2: clear to transparent; 3: restore what was there before
    int delay_ms;
} gif_control;

static void gif_read_control(const GifByteType *block, gif_control *control) {
    if (block == NULL || block[0] < 4) return;
    control->disposal = (block[1] >> 2) & 7;
    control->transparent = (block[1] & 1) ? block[4] : -1;
    control->delay_ms = (block[2] | block[3] << 8) * 10;
}

/// Reads an extension record; a graphic control block fills `control`.
static int gif_extension(GifFileType *gif, gif_control *control) {
    int code = 0;
    GifByteType *block = NULL;
    if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) return -1;
    if (code == GRAPHICS_EXT_FUNC_CODE) gif_read_control(block, control);
    while (block != NULL) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR) return -1;
    }
    return 0;
}

/// Notes a frame with no color table (none of its own, none global): drawn in gray levels (index i as
/// gray i, as Pillow does; the GIF standard leaves it to the decoder). 1 when the policy fails on it.
static int gif_no_colors(tsr_damage *damage, int index, char *err, size_t errlen) {
    if (tsr_damage_note(damage, TSR_DAMAGE_WARNING, "frame %d has no color table (drawn in gray levels)", index)) {
        fail(err, errlen, "frame %d has no color table", index);
        return 1;
    }
    return 0;
}

int tsr_gif_info_read(const char *path, int frame, tsr_gif_info *info, tsr_damage *damage, char *err, size_t errlen) {
    memset(info, 0, sizeof *info);
    int code = 0;
    GifFileType *gif = DGifOpenFileName(path, &code);
    if (gif == NULL) return gif_fail(err, errlen, code);
    info->width = (uint32_t)gif->SWidth;
    info->height = (uint32_t)gif->SHeight;
    gif_control control = {-1, 0, 0};
    GifRecordType record;
    int status = 0;
    // Whether the failure below happened in the frame asked for or before it (a frame's data is being
    // skipped while `in_frame`).
    int in_frame = 0;
    do {
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            status = -1;
            break;
        }
        if (record == EXTENSION_RECORD_TYPE) {
            if (gif_extension(gif, &control) != 0) {
                status = -1;
                break;
            }
        } else if (record == IMAGE_DESC_RECORD_TYPE) {
            if (DGifGetImageDesc(gif) == GIF_ERROR) {
                status = -1;
                break;
            }
            const GifImageDesc image = gif->Image;
            int index = info->frames;
            if (index <= frame) {
                int covers = image.Left == 0 && image.Top == 0 && image.Width >= gif->SWidth &&
                             image.Height >= gif->SHeight;
                if (control.transparent >= 0 || !covers) info->has_alpha = 1;
                if (index == frame) {
                    info->interlaced = image.Interlace;
                    info->delay_ms = control.delay_ms;
                }
                if (image.ColorMap == NULL && gif->SColorMap == NULL && gif_no_colors(damage, index, err, errlen)) {
                    status = -2;
                    break;
                }
            }
            info->frames += 1;
            control = (gif_control){-1, 0, 0};
            // Skip the image data without decoding it, counting its bytes.
            in_frame = index <= frame;
            uint64_t bytes = 0;
            int size = 0;
            GifByteType *block = NULL;
            if (DGifGetCode(gif, &size, &block) == GIF_ERROR) {
                status = -1;
                break;
            }
            while (block != NULL) {
                bytes += block[0];
                if (DGifGetCodeNext(gif, &block) == GIF_ERROR) {
                    status = -1;
                    break;
                }
            }
            if (status != 0) break;
            in_frame = 0;
            // A crafted descriptor cannot make the decoder work through more pixels than the data holds.
            uint64_t pixels = (uint64_t)image.Width * (uint64_t)image.Height;
            if (index <= frame && pixels > (bytes + 1) * TSR_GIF_PIXELS_PER_BYTE) {
                // Read past, the frame is drawn as far as its data goes: the rest stays transparent.
                info->has_alpha = 1;
                if (!tsr_damage_note(damage, TSR_DAMAGE_TRUNCATED,
                                     "frame %d is %dx%d pixels, more than its %llu bytes of image data hold", index,
                                     image.Width, image.Height, (unsigned long long)bytes)) {
                    continue;
                }
                fail(err, errlen,
                     "frame %d is %dx%d pixels, more than its %llu bytes of image data can hold (LZW gives at most "
                     "%d pixels a byte); the file is truncated or crafted",
                     index, image.Width, image.Height, (unsigned long long)bytes, TSR_GIF_PIXELS_PER_BYTE);
                status = -2;
                break;
            }
        }
    } while (record != TERMINATE_RECORD_TYPE);
    if (status == -1) {
        // Damage after the frame asked for is not looked at; in it or before it, the policy decides. A
        // frame cut short still counts: its rows before the damage are drawn.
        if (info->frames > frame && !in_frame) {
            status = 0;
        } else if (!gif_damage(damage, gif->Error, info->frames > 0 ? info->frames - 1 : 0, err, errlen)) {
            // Read past: what the data does not reach stays transparent.
            info->has_alpha = 1;
            status = 0;
        }
    }
    DGifCloseFile(gif, &code);
    if (status == 0 && info->frames == 0) return fail(err, errlen, "the file holds no image");
    return status == 0 ? 0 : -1;
}

int tsr_gif_decode(const char *path, int frame, uint8_t *pixels, int channels, tsr_damage *damage, char *err,
                   size_t errlen) {
    int code = 0;
    GifFileType *gif = DGifOpenFileName(path, &code);
    if (gif == NULL) return gif_fail(err, errlen, code);
    const size_t width = (size_t)gif->SWidth, height = (size_t)gif->SHeight;
    // The screen as RGBA, transparent until drawn on; a copy for frames that restore it (disposal 3).
    uint8_t *screen = calloc(width * height, 4);
    uint8_t *saved = NULL;
    GifPixelType *line = NULL;
    gif_control control = {-1, 0, 0};
    // The previous frame's rectangle and disposal, applied before the next frame is drawn.
    int last_disposal = 0, last_left = 0, last_top = 0, last_width = 0, last_height = 0;
    int index = 0, status = 0, done = 0;
    if (screen == NULL) status = fail(err, errlen, "out of memory");
    // Gray levels, for frames without a color table.
    GifColorType gray[256];
    for (int i = 0; i < 256; i++) gray[i] = (GifColorType){(GifByteType)i, (GifByteType)i, (GifByteType)i};
    const ColorMapObject gray_map = {256, 8, false, gray};
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    while (status == 0 && !done) {
        if (DGifGetRecordType(gif, &record) == GIF_ERROR) {
            status = gif_fail(err, errlen, gif->Error);
            break;
        }
        if (record == TERMINATE_RECORD_TYPE) break;
        if (record == EXTENSION_RECORD_TYPE) {
            if (gif_extension(gif, &control) != 0) status = gif_fail(err, errlen, gif->Error);
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) continue;
        if (DGifGetImageDesc(gif) == GIF_ERROR) {
            status = gif_fail(err, errlen, gif->Error);
            break;
        }
        const GifImageDesc image = gif->Image;
        const ColorMapObject *colors = image.ColorMap != NULL ? image.ColorMap : gif->SColorMap;
        if (colors == NULL) {
            if (gif_no_colors(damage, index, err, errlen)) {
                status = -1;
                break;
            }
            colors = &gray_map;
        }
        if (image.Width <= 0 || image.Height <= 0) {
            status = fail(err, errlen, "frame %d is empty", index);
            break;
        }
        // Undo the previous frame as its disposal says.
        if (last_disposal == 2) {
            for (int y = last_top; y < last_top + last_height && y < (int)height; y++) {
                for (int x = last_left; x < last_left + last_width && x < (int)width; x++) {
                    memset(screen + ((size_t)y * width + (size_t)x) * 4, 0, 4);
                }
            }
        } else if (last_disposal == 3 && saved != NULL) {
            memcpy(screen, saved, width * height * 4);
        }
        if (control.disposal == 3) {
            if (saved == NULL) saved = malloc(width * height * 4);
            if (saved == NULL) {
                status = fail(err, errlen, "out of memory");
                break;
            }
            memcpy(saved, screen, width * height * 4);
        }
        free(line);
        line = malloc((size_t)image.Width);
        if (line == NULL) {
            status = fail(err, errlen, "out of memory");
            break;
        }
        // Interlaced rows come in four passes: every 8th from 0, every 8th from 4, every 4th from 2,
        // every 2nd from 1.
        static const int starts[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
        int passes = image.Interlace ? 4 : 1;
        // Rows below the screen are never shown: a frame taller than the screen (a crafted 65535x65535 one
        // over a 1x1 screen took 28 s) stops at the screen's last row and its remaining data is skipped.
        // An interlaced frame's later passes need the earlier ones decoded, so it is decoded whole.
        int last_row = image.Height;
        if (!image.Interlace && image.Top + image.Height > (int)height) last_row = (int)height - image.Top;
        int broken = 0;
        for (int pass = 0; pass < passes && !broken; pass++) {
            int start = image.Interlace ? starts[pass] : 0, step = image.Interlace ? steps[pass] : 1;
            for (int row = start; row < last_row; row += step) {
                if (DGifGetLine(gif, line, image.Width) == GIF_ERROR) {
                    // The frame is drawn as far as its data went, if the policy reads past the rest.
                    broken = 1;
                    if (gif_damage(damage, gif->Error, index, err, errlen)) status = -1;
                    break;
                }
                int y = image.Top + row;
                if (y < 0 || y >= (int)height) continue;
                for (int column = 0; column < image.Width; column++) {
                    int x = image.Left + column;
                    int value = line[column];
                    if (x < 0 || x >= (int)width || value == control.transparent) continue;
                    uint8_t *pixel = screen + ((size_t)y * width + (size_t)x) * 4;
                    if (value < colors->ColorCount) {
                        pixel[0] = colors->Colors[value].Red;
                        pixel[1] = colors->Colors[value].Green;
                        pixel[2] = colors->Colors[value].Blue;
                    } else {
                        pixel[0] = pixel[1] = pixel[2] = 0;  // an index past the table: black, as browsers show it
                    }
                    pixel[3] = 255;
                }
            }
        }
        if (status != 0) break;
        if (!broken && last_row < image.Height) {
            // Skip the data of the rows below the screen.
            GifByteType *block = NULL;
            do {
                if (DGifGetCodeNext(gif, &block) == GIF_ERROR) {
                    broken = 1;
                    if (gif_damage(damage, gif->Error, index, err, errlen)) status = -1;
                    break;
                }
            } while (block != NULL);
            if (status != 0) break;
        }
        if (index == frame) {
            done = 1;
            break;
        }
        if (broken) {
            // The data ended before the frame asked for.
            status = fail(err, errlen, "there is no frame %d: the file ends in frame %d", frame, index);
            break;
        }
        last_disposal = control.disposal;
        last_left = image.Left;
        last_top = image.Top;
        last_width = image.Width;
        last_height = image.Height;
        control = (gif_control){-1, 0, 0};
        index += 1;
    }
    if (status == 0 && !done) status = fail(err, errlen, "there is no frame %d: the file has %d", frame, index);
    if (status == 0) {
        for (size_t i = 0; i < width * height; i++) memcpy(pixels + i * (size_t)channels, screen + i * 4, (size_t)channels);
    }
    free(line);
    free(saved);
    free(screen);
    DGifCloseFile(gif, &code);
    return status == 0 ? 0 : -1;
}

// MARK: - What libraries print

// libheif's decoder and encoder plugins (dav1d, libaom, libde265, x265) print to stderr themselves. Their
// lines are caught in a temporary file while they run, so that they reach the user inside the one line
// about the file instead of as lines of their own. stderr is the process's: callers take turns.
static pthread_mutex_t stderr_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct {
    int saved;  // stderr as it was, or -1 when it could not be redirected
    FILE *file;
} stderr_capture;

static void capture_stderr(stderr_capture *capture) {
    pthread_mutex_lock(&stderr_lock);
    fflush(stderr);
    capture->file = tmpfile();
    capture->saved = capture->file != NULL ? dup(STDERR_FILENO) : -1;
    if (capture->saved >= 0 && dup2(fileno(capture->file), STDERR_FILENO) < 0) {
        close(capture->saved);
        capture->saved = -1;
    }
}

void tsr_stderr_write(const char *text, size_t length) {
    pthread_mutex_lock(&stderr_lock);
    while (length > 0) {
        ssize_t written = write(STDERR_FILENO, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) break;
        text += written;
        length -= (size_t)written;
    }
    pthread_mutex_unlock(&stderr_lock);
}

/// Puts stderr back and copies what was printed into `text` (lines joined by "; "; "" for none).
static void release_stderr(stderr_capture *capture, char *text, size_t length) {
    text[0] = 0;
    fflush(stderr);
    if (capture->saved >= 0) {
        dup2(capture->saved, STDERR_FILENO);
        close(capture->saved);
        rewind(capture->file);
        size_t used = 0;
        char line[512];
        while (fgets(line, sizeof line, capture->file) != NULL && used + 1 < length) {
            size_t n = strcspn(line, "\r\n");
            line[n] = 0;
            if (n == 0) continue;
            used += (size_t)snprintf(text + used, length - used, "%s%s", used > 0 ? "; " : "", line);
        }
    }
    if (capture->file != NULL) fclose(capture->file);
    pthread_mutex_unlock(&stderr_lock);
}

// MARK: - HEIF and AVIF

struct tsr_heif_file {
    struct heif_context *context;
    struct heif_image_handle *handle;
    uint8_t *icc;
    uint8_t *exif;
    uint8_t *xmp;
};

static void heif_start(void) {
    static int started = 0;
    if (!started) {
        heif_init(NULL);
        started = 1;
    }
}

void tsr_heif_close(tsr_heif_file *f) {
    if (f == NULL) return;
    if (f->handle != NULL) heif_image_handle_release(f->handle);
    if (f->context != NULL) heif_context_free(f->context);
    free(f->icc);
    free(f->exif);
    free(f->xmp);
    free(f);
}

/// The first metadata block of `type` (and content type, when given), copied; NULL when there is none.
static uint8_t *heif_metadata(const struct heif_image_handle *handle, const char *type, const char *content,
                              size_t *size) {
    heif_item_id ids[16];
    int count = heif_image_handle_get_list_of_metadata_block_IDs(handle, type, ids, 16);
    for (int i = 0; i < count; i++) {
        if (content != NULL && strcmp(heif_image_handle_get_metadata_content_type(handle, ids[i]), content) != 0) {
            continue;
        }
        size_t length = heif_image_handle_get_metadata_size(handle, ids[i]);
        uint8_t *bytes = length > 0 ? malloc(length) : NULL;
        if (bytes == NULL) return NULL;
        if (heif_image_handle_get_metadata(handle, ids[i], bytes).code != heif_error_Ok) {
            free(bytes);
            return NULL;
        }
        *size = length;
        return bytes;
    }
    return NULL;
}

tsr_heif_file *tsr_heif_open(const char *path, tsr_heif_info *info, char *err, size_t errlen) {
    heif_start();
    memset(info, 0, sizeof *info);
    tsr_heif_file *f = calloc(1, sizeof *f);
    if (f == NULL) {
        fail(err, errlen, "out of memory");
        return NULL;
    }
    f->context = heif_context_alloc();
    struct heif_error error = heif_context_read_from_file(f->context, path, NULL);
    if (error.code == heif_error_Ok) error = heif_context_get_primary_image_handle(f->context, &f->handle);
    if (error.code != heif_error_Ok) {
        fail(err, errlen, "%s", error.message);
        tsr_heif_close(f);
        return NULL;
    }
    info->width = (uint32_t)heif_image_handle_get_width(f->handle);
    info->height = (uint32_t)heif_image_handle_get_height(f->handle);
    info->has_alpha = heif_image_handle_has_alpha_channel(f->handle);
    info->bit_depth = heif_image_handle_get_luma_bits_per_pixel(f->handle);
    enum heif_color_profile_type profile = heif_image_handle_get_color_profile_type(f->handle);
    if (profile == heif_color_profile_type_prof || profile == heif_color_profile_type_rICC) {
        size_t length = heif_image_handle_get_raw_color_profile_size(f->handle);
        f->icc = length > 0 ? malloc(length) : NULL;
        if (f->icc != NULL && heif_image_handle_get_raw_color_profile(f->handle, f->icc).code == heif_error_Ok) {
            info->metadata.icc = f->icc;
            info->metadata.icc_length = length;
        }
    }
    size_t length = 0;
    f->exif = heif_metadata(f->handle, "Exif", NULL, &length);
    // A HEIF Exif item starts with the offset of the TIFF header after its first 4 bytes.
    if (f->exif != NULL && length > 4) {
        size_t offset = (size_t)f->exif[0] << 24 | (size_t)f->exif[1] << 16 | (size_t)f->exif[2] << 8 | f->exif[3];
        if (offset < length - 4) {
            info->metadata.exif = f->exif + 4 + offset;
            info->metadata.exif_length = length - 4 - offset;
        }
    }
    length = 0;
    f->xmp = heif_metadata(f->handle, "mime", "application/rdf+xml", &length);
    if (f->xmp != NULL) {
        info->metadata.xmp = f->xmp;
        info->metadata.xmp_length = length;
    }
    return f;
}

int tsr_heif_decode(tsr_heif_file *f, uint8_t *pixels, int channels, tsr_damage *damage, char *err, size_t errlen) {
    struct heif_image *image = NULL;
    stderr_capture capture;
    char printed[512];
    capture_stderr(&capture);
    struct heif_error error = heif_decode_image(
        f->handle, &image, heif_colorspace_RGB, channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB,
        NULL);
    release_stderr(&capture, printed, sizeof printed);
    if (error.code != heif_error_Ok) {
        return fail(err, errlen, "%s%s%s%s", error.message, printed[0] ? " (the decoder said: " : "", printed,
                    printed[0] ? ")" : "");
    }
    if (printed[0] && tsr_damage_note(damage, TSR_DAMAGE_WARNING, "the decoder said: %s", printed)) {
        heif_image_release(image);
        return fail(err, errlen, "the decoder said: %s", printed);
    }
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    int width = heif_image_get_width(image, heif_channel_interleaved);
    int height = heif_image_get_height(image, heif_channel_interleaved);
    int expected_width = heif_image_handle_get_width(f->handle), expected_height = heif_image_handle_get_height(f->handle);
    int status = 0;
    if (plane == NULL || width != expected_width || height != expected_height) {
        status = fail(err, errlen, "the decoded image is %dx%d, not the %dx%d the file declares", width, height,
                      expected_width, expected_height);
    } else {
        size_t row = (size_t)width * (size_t)channels;
        for (int y = 0; y < height; y++) memcpy(pixels + (size_t)y * row, plane + (size_t)y * (size_t)stride, row);
    }
    heif_image_release(image);
    return status;
}

int tsr_heif_has_codec(int avif, int encode, char *name, size_t namelen) {
    heif_start();
    enum heif_compression_format format = avif ? heif_compression_AV1 : heif_compression_HEVC;
    if (!encode) return heif_have_decoder_for_format(format);
    const struct heif_encoder_descriptor *descriptors[1];
    if (heif_context_get_encoder_descriptors(NULL, format, NULL, descriptors, 1) < 1) return 0;
    if (name != NULL && namelen > 0) snprintf(name, namelen, "%s", heif_encoder_descriptor_get_name(descriptors[0]));
    return 1;
}

int tsr_heif_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int avif,
                   int quality, const tsr_metadata *metadata, char *err, size_t errlen) {
    heif_start();
    struct heif_context *context = heif_context_alloc();
    struct heif_encoder *encoder = NULL;
    struct heif_image *image = NULL;
    struct heif_image_handle *handle = NULL;
    struct heif_error error = heif_context_get_encoder_for_format(
        context, avif ? heif_compression_AV1 : heif_compression_HEVC, &encoder);
    if (error.code == heif_error_Ok) error = heif_encoder_set_lossy_quality(encoder, quality);
    if (error.code == heif_error_Ok) {
        error = heif_image_create((int)width, (int)height, heif_colorspace_RGB,
                                  channels == 4 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, &image);
    }
    if (error.code == heif_error_Ok) error = heif_image_add_plane(image, heif_channel_interleaved, (int)width, (int)height, 8);
    if (error.code == heif_error_Ok) {
        int stride = 0;
        uint8_t *plane = heif_image_get_plane(image, heif_channel_interleaved, &stride);
        size_t row = (size_t)width * (size_t)channels;
        for (uint32_t y = 0; y < height; y++) memcpy(plane + (size_t)y * (size_t)stride, pixels + y * row, row);
        if (metadata != NULL && metadata->icc != NULL) {
            error = heif_image_set_raw_color_profile(image, "prof", metadata->icc, metadata->icc_length);
        }
    }
    char printed[512] = "";
    if (error.code == heif_error_Ok) {
        stderr_capture capture;
        capture_stderr(&capture);
        error = heif_context_encode_image(context, image, encoder, NULL, &handle);
        release_stderr(&capture, printed, sizeof printed);
    }
    if (error.code == heif_error_Ok && metadata != NULL && metadata->exif != NULL) {
        error = heif_context_add_exif_metadata(context, handle, metadata->exif, (int)metadata->exif_length);
    }
    if (error.code == heif_error_Ok && metadata != NULL && metadata->xmp != NULL) {
        error = heif_context_add_XMP_metadata(context, handle, metadata->xmp, (int)metadata->xmp_length);
    }
    if (error.code == heif_error_Ok) error = heif_context_write_to_file(context, path);
    int status = error.code == heif_error_Ok ? 0
                                             : fail(err, errlen, "%s%s%s%s", error.message,
                                                    printed[0] ? " (the encoder said: " : "", printed, printed[0] ? ")" : "");
    if (handle != NULL) heif_image_handle_release(handle);
    if (image != NULL) heif_image_release(image);
    if (encoder != NULL) heif_encoder_release(encoder);
    heif_context_free(context);
    return status;
}
