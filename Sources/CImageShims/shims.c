// Every call that may fail sets a jump point first, so that a libpng or libjpeg error comes back as
// -1 and a message instead of aborting or exiting the process. Variables changed between setjmp and a
// possible longjmp are never read after the jump.
#include "CImageShims.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <limits.h>
#include <sys/stat.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// jpeglib.h first: jerror.h numbers its messages by JPEG_LIB_VERSION and the arithmetic-coding macros of
// jconfig.h, which jpeglib.h includes; the other way round JWRN_BOGUS_ICC was two off the library's.
#include <jpeglib.h>
#include <jerror.h>
#include <png.h>
#include <tiffio.h>

static void copy_message(char *err, size_t errlen, const char *message) {
    if (err != NULL && errlen > 0) {
        snprintf(err, errlen, "%s", message);
    }
}

int tsr_damage_note(tsr_damage *damage, int kind, const char *format, ...) {
    if (damage == NULL) return 1;
    // fail_on NONE (0) fails on nothing, TRUNCATED (1) on truncation (3), ERROR (2) on errors (2) and
    // up, WARNING (3) on anything (1 and up).
    if (damage->fail_on != TSR_FAIL_ON_NONE && kind >= 4 - damage->fail_on) return 1;
    if (damage->message[0] == '\0') {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(damage->message, sizeof damage->message, format, arguments);
        va_end(arguments);
    }
    if (kind > damage->worst) damage->worst = kind;
    return 0;
}

static int is_little_endian(void) {
    const uint16_t probe = 1;
    return *(const uint8_t *)&probe == 1;
}

// MARK: - PNG

typedef struct {
    char message[512];
    tsr_damage *damage;  // a reader's policy and what it read past; NULL for a writer
} tsr_png_errors;

static void tsr_png_error(png_structp png, png_const_charp message) {
    tsr_png_errors *errors = (tsr_png_errors *)png_get_error_ptr(png);
    snprintf(errors->message, sizeof errors->message, "%s", message);
    png_longjmp(png, 1);
}

// A reader's warnings are damage it reads past or fails on, as its policy says: a bad CRC in a critical
// chunk (read as a warning only when the policy reads past errors) is damaged data, anything else (a bad
// ancillary CRC, an invalid or misplaced ancillary chunk) a warning. A chunk longer than libpng's chunk
// limit (a benign error, so a warning) would next be allocated and zeroed whole, gigabytes for a
// 57-byte file: that always fails, as the truncation it is (image data is read in pieces, so IDAT may).
static void tsr_png_warning(png_structp png, png_const_charp message) {
    tsr_png_errors *errors = (tsr_png_errors *)png_get_error_ptr(png);
    if (errors == NULL || errors->damage == NULL) return;
    int critical = message[0] >= 'A' && message[0] <= 'Z' && strlen(message) > 5 && message[4] == ':';
    if (strstr(message, "chunk data is too large") != NULL && strncmp(message, "IDAT", 4) != 0) {
        char text[512];
        snprintf(text, sizeof text, "%s (the chunk claims more bytes than the file holds); the file is truncated or crafted",
                 message);
        png_error(png, text);
    }
    int kind = critical && strstr(message, "CRC error") != NULL ? TSR_DAMAGE_ERROR : TSR_DAMAGE_WARNING;
    if (tsr_damage_note(errors->damage, kind, "%s", message)) png_error(png, message);
}

struct tsr_png_reader {
    FILE *file;
    png_structp png;
    png_infop info;
    tsr_png_errors errors;
    tsr_damage damage;
    int started;
    int channels;
    int bytes_per_sample;
    volatile uint32_t rows_read;  // rows of the current tsr_png_read_rows call delivered, for a failure partway
    int broken;          // the data failed and the policy read past it: every later row is zero
};

const tsr_damage *tsr_png_damage(const tsr_png_reader *r) { return &r->damage; }

// A libpng failure while reading the image's rows: the rows from there on are missing, which is
// truncation whatever the cause (libvips counts it so too). Returns -1 with the message when the policy
// fails on it; else notes it and marks the reader broken.
static int tsr_png_rows_failed(tsr_png_reader *r, char *err, size_t errlen) {
    if (tsr_damage_note(&r->damage, TSR_DAMAGE_TRUNCATED, "%s", r->errors.message)) {
        copy_message(err, errlen, r->errors.message);
        return -1;
    }
    r->broken = 1;
    return 0;
}

static uint32_t tsr_read_be32(const png_byte *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

// Adds up the IDAT chunk lengths from the chunk headers, seeking over the data, and puts the file back
// where libpng left it (at the first IDAT's data). UINT64_MAX when the file cannot seek.
static uint64_t tsr_png_idat_bytes(FILE *file) {
    long start = ftell(file);
    if (start < 8 || fseek(file, start - 8, SEEK_SET) != 0) return UINT64_MAX;
    uint64_t total = 0;
    png_byte header[8];
    while (fread(header, 1, 8, file) == 8 && memcmp(header + 4, "IDAT", 4) == 0) {
        uint32_t length = tsr_read_be32(header);
        total += length;
        if (fseek(file, (long)length + 4, SEEK_CUR) != 0) break;
    }
    clearerr(file);
    if (fseek(file, start, SEEK_SET) != 0) return UINT64_MAX;
    return total;
}

// libpng allocates its row buffers here, so this waits for the first read: by then the caller has
// checked the image's size against its limits.
static void tsr_png_start(tsr_png_reader *r) {
    if (r->started) return;
    png_read_update_info(r->png, r->info);
    if (png_get_channels(r->png, r->info) != r->channels
        || (png_get_bit_depth(r->png, r->info) == 16 ? 2 : 1) != r->bytes_per_sample) {
        png_error(r->png, "internal error: the row layout differs from the one announced");
    }
    r->started = 1;
}

// libpng's own reader says only "Read Error" when the file ends early.
static void tsr_png_read_data(png_structp png, png_bytep data, size_t length) {
    FILE *file = (FILE *)png_get_io_ptr(png);
    if (fread(data, 1, length, file) != length) {
        png_error(png, ferror(file) ? "read error" : "the file ends early (truncated)");
    }
}

void tsr_png_close(tsr_png_reader *r) {
    if (r == NULL) return;
    if (r->png != NULL) png_destroy_read_struct(&r->png, r->info != NULL ? &r->info : NULL, NULL);
    if (r->file != NULL) fclose(r->file);
    free(r);
}

static const char tsr_xmp_key[] = "XML:com.adobe.xmp";

static void tsr_png_read_metadata(png_structp png, png_infop info, tsr_metadata *metadata) {
    memset(metadata, 0, sizeof *metadata);
    png_charp name = NULL;
    int compression = 0;
    png_bytep profile = NULL;
    png_uint_32 profile_length = 0;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &profile_length) != 0 && profile_length > 0) {
        metadata->icc = profile;
        metadata->icc_length = profile_length;
    }
    png_uint_32 exif_length = 0;
    png_bytep exif = NULL;
    if (png_get_eXIf_1(png, info, &exif_length, &exif) != 0 && exif_length > 0) {
        metadata->exif = exif;
        metadata->exif_length = exif_length;
    }
    png_textp texts = NULL;
    int count = 0;
    png_get_text(png, info, &texts, &count);
    for (int i = 0; i < count; i++) {
        if (strcmp(texts[i].key, tsr_xmp_key) == 0 && texts[i].compression >= PNG_ITXT_COMPRESSION_NONE &&
            texts[i].itxt_length > 0) {
            metadata->xmp = (const uint8_t *)texts[i].text;
            metadata->xmp_length = texts[i].itxt_length;
            break;
        }
    }
}

tsr_png_reader *tsr_png_open(const char *path, int fail_on, tsr_png_info *out, char *err, size_t errlen) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        copy_message(err, errlen, strerror(errno));
        return NULL;
    }
    png_byte signature[8];
    if (fread(signature, 1, 8, file) != 8 || png_sig_cmp(signature, 0, 8) != 0) {
        copy_message(err, errlen, "not a PNG file (bad signature)");
        fclose(file);
        return NULL;
    }
    tsr_png_reader *r = calloc(1, sizeof *r);
    if (r == NULL) {
        copy_message(err, errlen, "out of memory");
        fclose(file);
        return NULL;
    }
    r->file = file;
    r->damage.fail_on = fail_on;
    r->errors.damage = &r->damage;
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r->errors, tsr_png_error, tsr_png_warning);
    if (r->png != NULL) r->info = png_create_info_struct(r->png);
    if (r->png == NULL || r->info == NULL) {
        copy_message(err, errlen, "out of memory");
        tsr_png_close(r);
        return NULL;
    }
    if (setjmp(png_jmpbuf(r->png))) {
        copy_message(err, errlen, r->errors.message);
        tsr_png_close(r);
        return NULL;
    }
    png_set_read_fn(r->png, file, tsr_png_read_data);
    png_set_sig_bytes(r->png, 8);
    // The caller enforces its own pixel limit; libpng's default of 1,000,000 rows or columns is lower.
    png_set_user_limits(r->png, 0x7fffffff, 0x7fffffff);
    png_set_option(r->png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON); // keep a flawed sRGB profile as stored
    // No chunk is longer than the file: libpng allocates (and zeroes) an ancillary chunk's length before
    // reading it, and its default limit of 8 MB was the only bound.
    struct stat status;
    png_alloc_size_t chunk_max = 8000000;
    if (fstat(fileno(file), &status) == 0 && (png_alloc_size_t)status.st_size > chunk_max) {
        chunk_max = (png_alloc_size_t)status.st_size;
    }
    png_set_chunk_malloc_max(r->png, chunk_max);
    // A bad CRC in a critical chunk (the image data's, most often) is read past as damaged data, as libvips
    // does, unless the policy fails on errors; an ancillary chunk with a bad CRC is dropped with a warning.
    if (fail_on < TSR_FAIL_ON_ERROR) png_set_crc_action(r->png, PNG_CRC_WARN_USE, PNG_CRC_DEFAULT);
    // Below that policy the image data's Adler-32 is not computed (3 to 4% of a decode): every byte of the
    // compressed stream, its Adler-32 included, is under an IDAT CRC checked above, which finds the damage
    // the Adler-32 would. libvips skips both.
    if (fail_on < TSR_FAIL_ON_ERROR) png_set_option(r->png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
    // Image data is read and inflated in pieces of this size (libpng's default is 8 KiB): a file cut short
    // keeps the rows its whole pieces hold, so a smaller piece keeps more of them when read past.
    if (fail_on == TSR_FAIL_ON_NONE) png_set_compression_buffer_size(r->png, 1024);
    png_read_info(r->png, r->info);
    tsr_png_read_metadata(r->png, r->info, &out->metadata);
    png_uint_32 x_ppm = 0, y_ppm = 0;
    int unit = PNG_RESOLUTION_UNKNOWN;
    int has_phys = png_get_pHYs(r->png, r->info, &x_ppm, &y_ppm, &unit) != 0 && unit == PNG_RESOLUTION_METER;
    out->x_dpi = has_phys ? x_ppm * 0.0254 : 0;
    out->y_dpi = has_phys ? y_ppm * 0.0254 : 0;

    png_uint_32 width = 0, height = 0;
    int depth = 0, color = 0, interlace = 0;
    png_get_IHDR(r->png, r->info, &width, &height, &depth, &color, &interlace, NULL, NULL);
    int has_trns = png_get_valid(r->png, r->info, PNG_INFO_tRNS) != 0;
    uint32_t max_value = depth == 16 ? 65535 : 255;

    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(r->png);
    }
    if (has_trns) {
        png_set_tRNS_to_alpha(r->png);
    }
    if (depth < 8 && color == PNG_COLOR_TYPE_GRAY) {
        if (has_trns) {
            png_set_expand_gray_1_2_4_to_8(r->png);
        } else {
            // One sample per byte, unscaled: the caller divides by 2^depth - 1, which is exact.
            png_set_packing(r->png);
            max_value = (1u << depth) - 1;
        }
    }
    if (depth == 16 && is_little_endian()) {
        png_set_swap(r->png);
    }
    out->interlaced = interlace == PNG_INTERLACE_ADAM7;
    if (out->interlaced) {
        (void)png_set_interlace_handling(r->png);
    }
    // What the transformations above deliver, worked out here instead of by png_read_update_info, which
    // allocates a row: a palette becomes RGB, a tRNS chunk adds alpha, small gray samples take a byte.
    int channels = color == PNG_COLOR_TYPE_PALETTE ? 3 : png_get_channels(r->png, r->info);
    if (has_trns) channels += 1;

    out->width = width;
    out->height = height;
    out->file_bit_depth = depth;
    out->file_color_type = color;
    out->channels = channels;
    out->bytes_per_sample = depth == 16 ? 2 : 1;
    out->max_value = max_value;
    out->idat_bytes = tsr_png_idat_bytes(file);
    r->channels = out->channels;
    r->bytes_per_sample = out->bytes_per_sample;
    return r;
}

int tsr_png_read_rows(tsr_png_reader *r, uint8_t *buffer, size_t stride, uint32_t count, char *err, size_t errlen) {
    r->rows_read = 0;
    if (!r->broken) {
        if (setjmp(png_jmpbuf(r->png))) {
            // libpng writes a row only once it is whole, so the rows before this one are good.
            if (tsr_png_rows_failed(r, err, errlen) != 0) return -1;
        } else {
            tsr_png_start(r);
            for (; r->rows_read < count; r->rows_read++) {
                png_read_row(r->png, buffer + (size_t)r->rows_read * stride, NULL);
            }
            return 0;
        }
    }
    size_t row_bytes = (size_t)png_get_image_width(r->png, r->info) * (size_t)r->channels * (size_t)r->bytes_per_sample;
    for (uint32_t row = r->rows_read; row < count; row++) memset(buffer + (size_t)row * stride, 0, row_bytes);
    return 0;
}

int tsr_png_read_image(tsr_png_reader *r, uint8_t *buffer, size_t stride, char *err, size_t errlen) {
    png_uint_32 height = png_get_image_height(r->png, r->info);
    png_bytep *rows = malloc(sizeof(png_bytep) * (height > 0 ? height : 1));
    if (rows == NULL) {
        copy_message(err, errlen, "out of memory");
        return -1;
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = buffer + (size_t)y * stride;
    if (setjmp(png_jmpbuf(r->png))) {
        free(rows);
        // What the passes did not reach stays as the caller zeroed it.
        return tsr_png_rows_failed(r, err, errlen);
    }
    tsr_png_start(r);
    png_read_image(r->png, rows);
    free(rows);
    return 0;
}

int tsr_png_finish(tsr_png_reader *r, char *err, size_t errlen) {
    if (r->broken) return 0;
    if (setjmp(png_jmpbuf(r->png))) {
        // The image is whole; what follows it is cut short or damaged.
        int truncated = strstr(r->errors.message, "truncated") != NULL;
        if (tsr_damage_note(&r->damage, truncated ? TSR_DAMAGE_TRUNCATED : TSR_DAMAGE_ERROR, "%s", r->errors.message)) {
            copy_message(err, errlen, r->errors.message);
            return -1;
        }
        return 0;
    }
    png_read_end(r->png, NULL);
    return 0;
}

struct tsr_png_writer {
    FILE *file;
    png_structp png;
    png_infop info;
    tsr_png_errors errors;
};

void tsr_png_writer_close(tsr_png_writer *w) {
    if (w == NULL) return;
    if (w->png != NULL) png_destroy_write_struct(&w->png, w->info != NULL ? &w->info : NULL);
    if (w->file != NULL) fclose(w->file);
    free(w);
}

tsr_png_writer *tsr_png_writer_open(const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                                    int level, const tsr_metadata *metadata, double dpi, char *err, size_t errlen) {
    static const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                      PNG_COLOR_TYPE_RGB_ALPHA};
    if (channels < 1 || channels > 4 || (bit_depth != 8 && bit_depth != 16)) {
        copy_message(err, errlen, "PNG holds 1 to 4 channels of 8 or 16 bits");
        return NULL;
    }
    tsr_png_writer *w = calloc(1, sizeof *w);
    if (w == NULL) {
        copy_message(err, errlen, "out of memory");
        return NULL;
    }
    w->file = fopen(path, "wb");
    if (w->file == NULL) {
        copy_message(err, errlen, strerror(errno));
        free(w);
        return NULL;
    }
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->errors, tsr_png_error, tsr_png_warning);
    if (w->png != NULL) w->info = png_create_info_struct(w->png);
    if (w->png == NULL || w->info == NULL) {
        copy_message(err, errlen, "out of memory");
        tsr_png_writer_close(w);
        return NULL;
    }
    if (setjmp(png_jmpbuf(w->png))) {
        copy_message(err, errlen, w->errors.message);
        tsr_png_writer_close(w);
        return NULL;
    }
    png_init_io(w->png, w->file);
    png_set_user_limits(w->png, 0x7fffffff, 0x7fffffff);
    png_set_IHDR(w->png, w->info, width, height, bit_depth, color_types[channels - 1], PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(w->png, level);
    // A profile libpng knows as a flawed sRGB one (HP's of 1998 is in many photos) is still the file's:
    // keep it rather than fail the write. Other profile problems drop the chunk with a warning.
    png_set_option(w->png, PNG_SKIP_sRGB_CHECK_PROFILE, PNG_OPTION_ON);
    png_set_benign_errors(w->png, 1);
    if (metadata != NULL) {
        if (metadata->icc != NULL) {
            png_set_iCCP(w->png, w->info, "ICC profile", PNG_COMPRESSION_TYPE_BASE, metadata->icc,
                         (png_uint_32)metadata->icc_length);
        }
        if (metadata->exif != NULL) {
            png_set_eXIf_1(w->png, w->info, (png_uint_32)metadata->exif_length, (png_bytep)metadata->exif);
        }
        if (metadata->xmp != NULL) {
            // libpng measures the text with strlen: give it a terminated copy.
            char *xmp = malloc(metadata->xmp_length + 1);
            if (xmp == NULL) {
                copy_message(err, errlen, "out of memory");
                tsr_png_writer_close(w);
                return NULL;
            }
            memcpy(xmp, metadata->xmp, metadata->xmp_length);
            xmp[metadata->xmp_length] = 0;
            png_text text;
            memset(&text, 0, sizeof text);
            text.compression = PNG_ITXT_COMPRESSION_NONE;
            text.key = (png_charp)tsr_xmp_key;
            text.text = xmp;
            text.lang = "";
            text.lang_key = "";
            png_set_text(w->png, w->info, &text, 1);
            free(xmp);
        }
    }
    if (dpi > 0) {
        png_uint_32 ppm = (png_uint_32)(dpi / 0.0254 + 0.5);  // rounded: dpi is positive
        png_set_pHYs(w->png, w->info, ppm, ppm, PNG_RESOLUTION_METER);
    }
    png_write_info(w->png, w->info);
    return w;
}

int tsr_png_write_idat(tsr_png_writer *w, const uint8_t *data, size_t length, char *err, size_t errlen) {
    if (setjmp(png_jmpbuf(w->png))) {
        copy_message(err, errlen, w->errors.message);
        return -1;
    }
    // Chunks of at most 256 KB: any length is valid, and readers that hold a chunk whole stay small.
    for (size_t start = 0; start < length; start += 262144) {
        size_t size = length - start < 262144 ? length - start : 262144;
        png_write_chunk(w->png, (png_const_bytep) "IDAT", data + start, size);
    }
    return 0;
}

int tsr_png_writer_finish(tsr_png_writer *w, char *err, size_t errlen) {
    if (setjmp(png_jmpbuf(w->png))) {
        copy_message(err, errlen, w->errors.message);
        return -1;
    }
    // The image data went out as IDAT chunks made here (tsr_png_write_idat), which libpng does not count
    // as its own: png_write_end would refuse, and with no info to write it writes only IEND.
    png_write_chunk(w->png, (png_const_bytep) "IEND", NULL, 0);
    FILE *file = w->file;
    w->file = NULL;
    if (fflush(file) != 0 || ferror(file)) {
        copy_message(err, errlen, strerror(errno));
        fclose(file);
        return -1;
    }
    if (fclose(file) != 0) {
        copy_message(err, errlen, strerror(errno));
        return -1;
    }
    return 0;
}

// MARK: - JPEG

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int warned;
    char warning[JMSG_LENGTH_MAX];
    tsr_damage *damage;  // a reader's policy and what it read past; NULL for a writer (fails on any warning)
} tsr_jpeg_errors;

static void tsr_jpeg_error_exit(j_common_ptr cinfo) {
    tsr_jpeg_errors *errors = (tsr_jpeg_errors *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, errors->message);
    longjmp(errors->jump, 1);
}

// The damage a libjpeg warning says it read past: the data ending (libjpeg fills the rest with gray),
// data it could not decode (a bad Huffman or arithmetic code, a resync), or something a reader may ignore
// (stray bytes between markers, which many cameras write; a bad ICC marker, which only loses the profile).
static int tsr_jpeg_damage_kind(int code) {
    switch (code) {
    case JWRN_JPEG_EOF: return TSR_DAMAGE_TRUNCATED;
    case JWRN_EXTRANEOUS_DATA:
    case JWRN_BOGUS_ICC:
    case JWRN_ADOBE_XFORM:
    case JWRN_JFIF_MAJOR: return TSR_DAMAGE_WARNING;
    default: return TSR_DAMAGE_ERROR;
    }
}

// Warnings are damage libjpeg reads past: those the policy fails on are kept, and the read that saw them
// fails; the others are noted in the reader's damage.
static void tsr_jpeg_emit_message(j_common_ptr cinfo, int level) {
    tsr_jpeg_errors *errors = (tsr_jpeg_errors *)cinfo->err;
    if (level < 0) {
        cinfo->err->num_warnings++;
        if (errors->warned) return;
        char text[JMSG_LENGTH_MAX];
        (*cinfo->err->format_message)(cinfo, text);
        if (tsr_damage_note(errors->damage, tsr_jpeg_damage_kind(cinfo->err->msg_code), "%s", text)) {
            errors->warned = 1;
            memcpy(errors->warning, text, sizeof text);
        }
    }
}

static void tsr_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

static void tsr_jpeg_errors_init(tsr_jpeg_errors *errors) {
    jpeg_std_error(&errors->pub);
    errors->pub.error_exit = tsr_jpeg_error_exit;
    errors->pub.emit_message = tsr_jpeg_emit_message;
    errors->pub.output_message = tsr_jpeg_output_message;
}

/// How an APP1 segment holding an XMP packet starts.
static const char tsr_xmp_namespace[] = "http://ns.adobe.com/xap/1.0/";

struct tsr_jpeg_reader {
    FILE *file;
    struct jpeg_decompress_struct cinfo;
    tsr_jpeg_errors errors;
    int created;
    int started;
    int cmyk;
    int adobe_inverted;
    uint8_t *cmyk_row;
    uint8_t *icc;  // the joined ICC profile, from malloc
    tsr_damage damage;
};

const tsr_damage *tsr_jpeg_damage(const tsr_jpeg_reader *r) { return &r->damage; }

void tsr_jpeg_close(tsr_jpeg_reader *r) {
    if (r == NULL) return;
    if (r->created) jpeg_destroy_decompress(&r->cinfo);
    if (r->file != NULL) fclose(r->file);
    free(r->cmyk_row);
    free(r->icc);
    free(r);
}

static int tsr_jpeg_check_warning(tsr_jpeg_reader *r, char *err, size_t errlen) {
    if (r->errors.warned) {
        copy_message(err, errlen, r->errors.warning);
        return -1;
    }
    return 0;
}

tsr_jpeg_reader *tsr_jpeg_open(const char *path, int fail_on, tsr_jpeg_info *out, uint64_t max_memory,
                               unsigned shrink, char *err, size_t errlen) {
    if (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8) {
        copy_message(err, errlen, "the shrink must be 1, 2, 4 or 8");
        return NULL;
    }
    tsr_jpeg_reader *r = calloc(1, sizeof *r);
    if (r == NULL) {
        copy_message(err, errlen, "out of memory");
        return NULL;
    }
    r->file = fopen(path, "rb");
    if (r->file == NULL) {
        copy_message(err, errlen, strerror(errno));
        free(r);
        return NULL;
    }
    tsr_jpeg_errors_init(&r->errors);
    r->damage.fail_on = fail_on;
    r->errors.damage = &r->damage;
    r->cinfo.err = &r->errors.pub;
    if (setjmp(r->errors.jump)) {
        copy_message(err, errlen, r->errors.message);
        tsr_jpeg_close(r);
        return NULL;
    }
    jpeg_create_decompress(&r->cinfo);
    r->created = 1;
    // A second guard behind the caller's own check: libjpeg counts what its pools hold and fails
    // instead of growing past this.
    r->cinfo.mem->max_memory_to_use = max_memory > (uint64_t)LONG_MAX ? LONG_MAX : (long)max_memory;
    jpeg_stdio_src(&r->cinfo, r->file);
    jpeg_save_markers(&r->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&r->cinfo, JPEG_APP0 + 2, 0xFFFF);
    jpeg_read_header(&r->cinfo, TRUE);
    if (tsr_jpeg_check_warning(r, err, errlen) != 0) {
        tsr_jpeg_close(r);
        return NULL;
    }
    memset(&out->metadata, 0, sizeof out->metadata);
    for (jpeg_saved_marker_ptr m = r->cinfo.marker_list; m != NULL; m = m->next) {
        if (m->marker != JPEG_APP0 + 1) continue;
        if (out->metadata.exif == NULL && m->data_length > 6 && memcmp(m->data, "Exif\0\0", 6) == 0) {
            out->metadata.exif = m->data + 6;
            out->metadata.exif_length = m->data_length - 6;
        } else if (out->metadata.xmp == NULL && m->data_length > sizeof tsr_xmp_namespace &&
                   memcmp(m->data, tsr_xmp_namespace, sizeof tsr_xmp_namespace) == 0) {
            out->metadata.xmp = m->data + sizeof tsr_xmp_namespace;
            out->metadata.xmp_length = m->data_length - sizeof tsr_xmp_namespace;
        }
    }
    // The profile's segments joined in their sequence numbers' order; a broken sequence is no profile.
    JOCTET *icc = NULL;
    unsigned int icc_length = 0;
    if (jpeg_read_icc_profile(&r->cinfo, &icc, &icc_length) && icc != NULL) {
        r->icc = icc;
        out->metadata.icc = icc;
        out->metadata.icc_length = icc_length;
    }
    if (tsr_jpeg_check_warning(r, err, errlen) != 0) {
        tsr_jpeg_close(r);
        return NULL;
    }
    switch (r->cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
        r->cinfo.out_color_space = JCS_GRAYSCALE;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        r->cinfo.out_color_space = JCS_CMYK;
        r->cmyk = 1;
        r->adobe_inverted = r->cinfo.saw_Adobe_marker;
        break;
    default:
        r->cinfo.out_color_space = JCS_RGB;
        break;
    }
    // The output size for the scale, computed now (jpeg_start_decompress would too) so the caller can
    // check the memory the scaled decode needs: libjpeg rounds up, ceil(width / shrink).
    r->cinfo.scale_num = 1;
    r->cinfo.scale_denom = shrink;
    jpeg_calc_output_dimensions(&r->cinfo);
    out->width = r->cinfo.image_width;
    out->height = r->cinfo.image_height;
    out->output_width = r->cinfo.output_width;
    out->output_height = r->cinfo.output_height;
    out->channels = r->cinfo.out_color_space == JCS_GRAYSCALE ? 1 : 3;
    out->progressive = jpeg_has_multiple_scans(&r->cinfo);
    // A file of several scans (progressive, or one scan per component) is decoded into coefficient
    // buffers for the whole image, 2 bytes a coefficient, in rows of whole MCUs (jdcoefct.c).
    out->coefficient_bytes = 0;
    out->fewest_blocks = UINT64_MAX;
    for (int ci = 0; ci < r->cinfo.num_components; ci++) {
        const jpeg_component_info *c = &r->cinfo.comp_info[ci];
        uint64_t wide = c->width_in_blocks, high = c->height_in_blocks;
        uint64_t blocks = wide * high;
        if (blocks < out->fewest_blocks) out->fewest_blocks = blocks;
        uint64_t h = c->h_samp_factor > 0 ? (uint64_t)c->h_samp_factor : 1;
        uint64_t v = c->v_samp_factor > 0 ? (uint64_t)c->v_samp_factor : 1;
        if (out->progressive) out->coefficient_bytes += (wide + h - 1) / h * h * ((high + v - 1) / v * v) * 128;
    }
    if (out->fewest_blocks == UINT64_MAX) out->fewest_blocks = 0;
    out->arithmetic = r->cinfo.arith_code ? 1 : 0;
    // JFIF's density unit: 1 dots per inch, 2 dots per centimetre, 0 an aspect ratio only.
    double per_inch = r->cinfo.density_unit == 1 ? 1 : (r->cinfo.density_unit == 2 ? 2.54 : 0);
    int has_density = r->cinfo.saw_JFIF_marker && per_inch > 0;
    out->x_dpi = has_density ? r->cinfo.X_density * per_inch : 0;
    out->y_dpi = has_density ? r->cinfo.Y_density * per_inch : 0;
    struct stat status;
    out->file_bytes = fstat(fileno(r->file), &status) == 0 ? (uint64_t)status.st_size : UINT64_MAX;
    return r;
}

// Split from open so that the caller can refuse a huge image before libjpeg allocates for it.
static int tsr_jpeg_start(tsr_jpeg_reader *r, char *err, size_t errlen) {
    if (setjmp(r->errors.jump)) {
        copy_message(err, errlen, r->errors.message);
        return -1;
    }
    if (r->cmyk && r->cmyk_row == NULL) {
        r->cmyk_row = malloc((size_t)r->cinfo.output_width * 4);
        if (r->cmyk_row == NULL) {
            copy_message(err, errlen, "out of memory");
            return -1;
        }
    }
    jpeg_start_decompress(&r->cinfo);
    r->started = 1;
    return tsr_jpeg_check_warning(r, err, errlen);
}

int tsr_jpeg_read_rows(tsr_jpeg_reader *r, uint8_t *buffer, size_t stride, uint32_t count, char *err, size_t errlen) {
    if (!r->started && tsr_jpeg_start(r, err, errlen) != 0) return -1;
    if (setjmp(r->errors.jump)) {
        copy_message(err, errlen, r->errors.message);
        return -1;
    }
    for (uint32_t row = 0; row < count; row++) {
        uint8_t *target = buffer + (size_t)row * stride;
        JSAMPROW line = r->cmyk ? r->cmyk_row : target;
        if (jpeg_read_scanlines(&r->cinfo, &line, 1) != 1) {
            copy_message(err, errlen, "Premature end of JPEG file");
            return -1;
        }
        if (tsr_jpeg_check_warning(r, err, errlen) != 0) return -1;
        if (r->cmyk) {
            // Photoshop writes CMYK inverted (255 = no ink); others store ink amounts.
            for (uint32_t x = 0; x < r->cinfo.output_width; x++) {
                unsigned c = r->cmyk_row[4 * x], m = r->cmyk_row[4 * x + 1];
                unsigned y = r->cmyk_row[4 * x + 2], k = r->cmyk_row[4 * x + 3];
                if (!r->adobe_inverted) {
                    c = 255 - c;
                    m = 255 - m;
                    y = 255 - y;
                    k = 255 - k;
                }
                target[3 * x] = (uint8_t)((c * k + 127) / 255);
                target[3 * x + 1] = (uint8_t)((m * k + 127) / 255);
                target[3 * x + 2] = (uint8_t)((y * k + 127) / 255);
            }
        }
    }
    return 0;
}

int tsr_jpeg_finish(tsr_jpeg_reader *r, char *err, size_t errlen) {
    if (setjmp(r->errors.jump)) {
        copy_message(err, errlen, r->errors.message);
        return -1;
    }
    jpeg_finish_decompress(&r->cinfo);
    return tsr_jpeg_check_warning(r, err, errlen);
}

struct tsr_jpeg_writer {
    FILE *file;
    struct jpeg_compress_struct cinfo;
    tsr_jpeg_errors errors;
    int created;
};

void tsr_jpeg_writer_close(tsr_jpeg_writer *w) {
    if (w == NULL) return;
    if (w->created) jpeg_destroy_compress(&w->cinfo);
    if (w->file != NULL) fclose(w->file);
    free(w);
}

tsr_jpeg_writer *tsr_jpeg_writer_open(const char *path, uint32_t width, uint32_t height, int channels, int quality,
                                      int progressive, const tsr_metadata *metadata, double dpi, char *err,
                                      size_t errlen) {
    if (channels != 1 && channels != 3) {
        copy_message(err, errlen, "JPEG holds 1 or 3 channels");
        return NULL;
    }
    // A marker segment holds at most 65533 bytes after its length.
    if (metadata != NULL && metadata->exif != NULL && metadata->exif_length > 65533 - 6) {
        copy_message(err, errlen, "the EXIF block is too large for a JPEG APP1 segment (64 KB)");
        return NULL;
    }
    if (metadata != NULL && metadata->xmp != NULL && metadata->xmp_length > 65533 - sizeof tsr_xmp_namespace) {
        copy_message(err, errlen, "the XMP packet is too large for a JPEG APP1 segment (64 KB)");
        return NULL;
    }
    tsr_jpeg_writer *w = calloc(1, sizeof *w);
    if (w == NULL) {
        copy_message(err, errlen, "out of memory");
        return NULL;
    }
    w->file = fopen(path, "wb");
    if (w->file == NULL) {
        copy_message(err, errlen, strerror(errno));
        free(w);
        return NULL;
    }
    tsr_jpeg_errors_init(&w->errors);
    w->cinfo.err = &w->errors.pub;
    if (setjmp(w->errors.jump)) {
        copy_message(err, errlen, w->errors.message);
        tsr_jpeg_writer_close(w);
        return NULL;
    }
    jpeg_create_compress(&w->cinfo);
    w->created = 1;
    jpeg_stdio_dest(&w->cinfo, w->file);
    w->cinfo.image_width = width;
    w->cinfo.image_height = height;
    w->cinfo.input_components = channels;
    w->cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&w->cinfo);
    jpeg_set_quality(&w->cinfo, quality, TRUE);
    if (channels == 3 && quality >= 90) {
        // As libvips does: at high quality, chroma subsampling costs more than it saves.
        w->cinfo.comp_info[0].h_samp_factor = 1;
        w->cinfo.comp_info[0].v_samp_factor = 1;
    }
    if (progressive) jpeg_simple_progression(&w->cinfo);
    if (dpi > 0) {
        // jpeg_set_defaults asked for the JFIF segment (gray and YCbCr both have one); this sets its density.
        w->cinfo.density_unit = 1;
        w->cinfo.X_density = (UINT16)(dpi < 65535 ? dpi + 0.5 : 65535);
        w->cinfo.Y_density = w->cinfo.X_density;
    }
    jpeg_start_compress(&w->cinfo, TRUE);
    if (metadata != NULL) {
        if (metadata->exif != NULL) {
            jpeg_write_m_header(&w->cinfo, JPEG_APP0 + 1, (unsigned)(6 + metadata->exif_length));
            for (size_t i = 0; i < 6; i++) jpeg_write_m_byte(&w->cinfo, "Exif\0\0"[i]);
            for (size_t i = 0; i < metadata->exif_length; i++) jpeg_write_m_byte(&w->cinfo, metadata->exif[i]);
        }
        if (metadata->xmp != NULL) {
            jpeg_write_m_header(&w->cinfo, JPEG_APP0 + 1, (unsigned)(sizeof tsr_xmp_namespace + metadata->xmp_length));
            for (size_t i = 0; i < sizeof tsr_xmp_namespace; i++) jpeg_write_m_byte(&w->cinfo, tsr_xmp_namespace[i]);
            for (size_t i = 0; i < metadata->xmp_length; i++) jpeg_write_m_byte(&w->cinfo, metadata->xmp[i]);
        }
        if (metadata->icc != NULL) {
            jpeg_write_icc_profile(&w->cinfo, metadata->icc, (unsigned)metadata->icc_length);
        }
    }
    return w;
}

int tsr_jpeg_write_rows(tsr_jpeg_writer *w, const uint8_t *buffer, size_t stride, uint32_t count, char *err,
                        size_t errlen) {
    if (setjmp(w->errors.jump)) {
        copy_message(err, errlen, w->errors.message);
        return -1;
    }
    for (uint32_t row = 0; row < count; row++) {
        JSAMPROW line = (JSAMPROW)(buffer + (size_t)row * stride);
        jpeg_write_scanlines(&w->cinfo, &line, 1);
    }
    return 0;
}

int tsr_jpeg_writer_finish(tsr_jpeg_writer *w, char *err, size_t errlen) {
    if (setjmp(w->errors.jump)) {
        copy_message(err, errlen, w->errors.message);
        return -1;
    }
    jpeg_finish_compress(&w->cinfo);
    FILE *file = w->file;
    w->file = NULL;
    if (fflush(file) != 0 || ferror(file)) {
        copy_message(err, errlen, strerror(errno));
        fclose(file);
        return -1;
    }
    if (fclose(file) != 0) {
        copy_message(err, errlen, strerror(errno));
        return -1;
    }
    return 0;
}

// MARK: - TIFF

/// libtiff's message as "module: text" (or the text alone) into `out`.
static void tsr_tiff_format(char *out, size_t size, const char *module, const char *fmt, va_list ap) {
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    if (module != NULL && module[0] != '\0') {
        snprintf(out, size, "%s: %s", module, text);
    } else {
        snprintf(out, size, "%s", text);
    }
}

static int tsr_tiff_error(TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    tsr_tiff *t = (tsr_tiff *)user_data;
    tsr_tiff_format(t->message, sizeof t->message, module, fmt, ap);
    return 1;
}

/// Kept, the first only: `failOn: warning` refuses a file libtiff warned about.
static int tsr_tiff_warning(TIFF *tif, void *user_data, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    tsr_tiff *t = (tsr_tiff *)user_data;
    if (t->warning[0] == '\0') tsr_tiff_format(t->warning, sizeof t->warning, module, fmt, ap);
    return 1;
}

tsr_tiff *tsr_tiff_open(const char *path, const char *mode, char *err, size_t errlen) {
    tsr_tiff *t = calloc(1, sizeof *t);
    if (t == NULL) {
        copy_message(err, errlen, "out of memory");
        return NULL;
    }
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (options == NULL) {
        copy_message(err, errlen, "out of memory");
        free(t);
        return NULL;
    }
    TIFFOpenOptionsSetErrorHandlerExtR(options, tsr_tiff_error, t);
    TIFFOpenOptionsSetWarningHandlerExtR(options, tsr_tiff_warning, t);
    t->tif = TIFFOpenExt(path, mode, options);
    TIFFOpenOptionsFree(options);
    if (t->tif == NULL) {
        copy_message(err, errlen, t->message[0] != '\0' ? t->message : "cannot open as TIFF");
        free(t);
        return NULL;
    }
    return t;
}

const char *tsr_tiff_last_error(const tsr_tiff *t) { return t->message; }

const char *tsr_tiff_first_warning(const tsr_tiff *t) { return t->warning; }

void tsr_tiff_close(tsr_tiff *t) {
    if (t == NULL) return;
    if (t->tif != NULL) TIFFClose(t->tif);
    free(t);
}

int tsr_tiff_get_u16(tsr_tiff *t, uint32_t tag, uint16_t *value) {
    return TIFFGetFieldDefaulted(t->tif, tag, value);
}

int tsr_tiff_get_u32(tsr_tiff *t, uint32_t tag, uint32_t *value) {
    return TIFFGetFieldDefaulted(t->tif, tag, value);
}

int tsr_tiff_get_extrasamples(tsr_tiff *t, uint16_t *count, const uint16_t **values) {
    uint16_t *list = NULL;
    int found = TIFFGetFieldDefaulted(t->tif, TIFFTAG_EXTRASAMPLES, count, &list);
    *values = list;
    return found;
}

int tsr_tiff_set_u16(tsr_tiff *t, uint32_t tag, uint16_t value) { return TIFFSetField(t->tif, tag, value); }

int tsr_tiff_set_u32(tsr_tiff *t, uint32_t tag, uint32_t value) { return TIFFSetField(t->tif, tag, value); }

void tsr_tiff_get_metadata(tsr_tiff *t, tsr_metadata *metadata) {
    memset(metadata, 0, sizeof *metadata);
    uint32_t length = 0;
    void *data = NULL;
    if (TIFFGetField(t->tif, TIFFTAG_ICCPROFILE, &length, &data) == 1 && data != NULL && length > 0) {
        metadata->icc = data;
        metadata->icc_length = length;
    }
    length = 0;
    data = NULL;
    if (TIFFGetField(t->tif, TIFFTAG_XMLPACKET, &length, &data) == 1 && data != NULL && length > 0) {
        metadata->xmp = data;
        metadata->xmp_length = length;
    }
}

int tsr_tiff_set_metadata(tsr_tiff *t, const tsr_metadata *metadata) {
    if (metadata->icc != NULL &&
        TIFFSetField(t->tif, TIFFTAG_ICCPROFILE, (uint32_t)metadata->icc_length, metadata->icc) != 1) {
        return 0;
    }
    if (metadata->xmp != NULL &&
        TIFFSetField(t->tif, TIFFTAG_XMLPACKET, (uint32_t)metadata->xmp_length, metadata->xmp) != 1) {
        return 0;
    }
    return 1;
}

int tsr_tiff_set_extrasamples(tsr_tiff *t, uint16_t count, const uint16_t *values) {
    return TIFFSetField(t->tif, TIFFTAG_EXTRASAMPLES, count, values);
}

int tsr_tiff_get_resolution(tsr_tiff *t, double *x_dpi, double *y_dpi) {
    float x = 0, y = 0;
    uint16_t unit = RESUNIT_INCH;
    *x_dpi = 0;
    *y_dpi = 0;
    if (TIFFGetField(t->tif, TIFFTAG_XRESOLUTION, &x) != 1 || TIFFGetField(t->tif, TIFFTAG_YRESOLUTION, &y) != 1) {
        return 0;
    }
    TIFFGetFieldDefaulted(t->tif, TIFFTAG_RESOLUTIONUNIT, &unit);
    double per_inch = unit == RESUNIT_INCH ? 1 : (unit == RESUNIT_CENTIMETER ? 2.54 : 0);
    if (per_inch == 0 || !(x > 0) || !(y > 0)) return 0;
    *x_dpi = x * per_inch;
    *y_dpi = y * per_inch;
    return 1;
}

int tsr_tiff_set_resolution(tsr_tiff *t, double dpi) {
    // Variadic: XResolution and YResolution are passed as double, ResolutionUnit as an int-promoted uint16.
    return TIFFSetField(t->tif, TIFFTAG_XRESOLUTION, dpi) && TIFFSetField(t->tif, TIFFTAG_YRESOLUTION, dpi) &&
           TIFFSetField(t->tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
}

// MARK: - Files being written

// The temporary files being written, kept for the executable's signal handlers (Sources/CTesseraSignals),
// which unlink them before the process dies: the library itself installs no handler. A handler may only
// touch what is async-signal-safe: fixed buffers, sig_atomic_t flags, unlink.
enum { TSR_CLEANUP_SLOTS = 32, TSR_CLEANUP_PATH = 4096 };
static char tsr_cleanup_paths[TSR_CLEANUP_SLOTS][TSR_CLEANUP_PATH];
static volatile sig_atomic_t tsr_cleanup_used[TSR_CLEANUP_SLOTS];
static pthread_mutex_t tsr_cleanup_lock = PTHREAD_MUTEX_INITIALIZER;

int tsr_cleanup_register(const char *path) {
    if (strlen(path) >= TSR_CLEANUP_PATH) return -1;
    pthread_mutex_lock(&tsr_cleanup_lock);
    int slot = -1;
    for (int i = 0; i < TSR_CLEANUP_SLOTS; i++) {
        if (!tsr_cleanup_used[i]) {
            memcpy(tsr_cleanup_paths[i], path, strlen(path) + 1);
            tsr_cleanup_used[i] = 1;
            slot = i;
            break;
        }
    }
    pthread_mutex_unlock(&tsr_cleanup_lock);
    return slot;
}

void tsr_cleanup_unregister(int slot) {
    if (slot < 0 || slot >= TSR_CLEANUP_SLOTS) return;
    pthread_mutex_lock(&tsr_cleanup_lock);
    tsr_cleanup_used[slot] = 0;
    pthread_mutex_unlock(&tsr_cleanup_lock);
}

void tsr_cleanup_unlink_all(void) {
    for (int i = 0; i < TSR_CLEANUP_SLOTS; i++) {
        if (tsr_cleanup_used[i]) unlink(tsr_cleanup_paths[i]);
    }
}

int tsr_cleanup_writing(void) {
    int writing = 0;
    for (int i = 0; i < TSR_CLEANUP_SLOTS; i++) writing |= tsr_cleanup_used[i];
    return writing;
}
