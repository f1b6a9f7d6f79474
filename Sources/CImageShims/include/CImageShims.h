// Safe entry points into libpng, libjpeg and libtiff.
//
// libpng reports a fatal error by longjmp and aborts if nobody set a jump point; libjpeg's default
// error handler calls exit(). Neither can be caught in Swift, so every call that may fail goes through
// a function here that sets the jump point itself and turns the failure into a return code and a
// message. Every function that can fail returns 0 on success and -1 on failure, with a message in
// `err` (NUL-terminated, at most `errlen` bytes).
#ifndef TESSERA_CIMAGESHIMS_H
#define TESSERA_CIMAGESHIMS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// MARK: Damage read past

/// How much damage a decoder reads past, as libvips' fail_on: the least damage that fails the decode.
/// With TSR_FAIL_ON_NONE a decoder reads what it can (rows after a truncation are left transparent black,
/// or gray where libjpeg fills them); with TSR_FAIL_ON_WARNING it fails on anything it notices.
enum { TSR_FAIL_ON_NONE = 0, TSR_FAIL_ON_TRUNCATED = 1, TSR_FAIL_ON_ERROR = 2, TSR_FAIL_ON_WARNING = 3 };

/// Kinds of damage, from the least: something a reader may ignore (a bad CRC in an ancillary chunk, a
/// bad ICC marker, stray bytes), damaged data the decoder got past (a bad Huffman code), data that ends
/// before the image does.
enum { TSR_DAMAGE_WARNING = 1, TSR_DAMAGE_ERROR = 2, TSR_DAMAGE_TRUNCATED = 3 };

/// A decode's policy and the damage it read past.
typedef struct {
    int fail_on;        // TSR_FAIL_ON_*: set by the caller
    int worst;          // the worst TSR_DAMAGE_* read past so far, 0 for none
    char message[512];  // the first damage read past, "" for none
} tsr_damage;

/// Notes damage of `kind` (TSR_DAMAGE_*) described by `format`: returns 1 when the policy fails on it
/// (the caller fails with the message), 0 when it is read past (kept in `damage` when it is the first).
/// A NULL `damage` fails on everything.
int tsr_damage_note(tsr_damage *damage, int kind, const char *format, ...) __attribute__((format(printf, 3, 4)));

// MARK: Standard error

/// Writes `length` bytes of `text` to stderr, never while a decoder's own printing is being caught (HEIF's
/// decoder plugins print to stderr; their lines are taken into the message about their file): a line of
/// the program's written at that moment would be taken into another file's message.
void tsr_stderr_write(const char *text, size_t length);

// MARK: Metadata

/// What travels with an image besides its pixels: its ICC profile, its EXIF block (a TIFF structure,
/// without the "Exif\0\0" that starts JPEG's APP1) and its XMP packet. NULL for those absent. A
/// reader's are valid until it is closed; a writer copies them.
typedef struct {
    const uint8_t *icc;
    size_t icc_length;
    const uint8_t *exif;
    size_t exif_length;
    const uint8_t *xmp;
    size_t xmp_length;
} tsr_metadata;

// MARK: PNG reading

typedef struct tsr_png_reader tsr_png_reader;

typedef struct {
    uint32_t width;
    uint32_t height;
    int file_bit_depth;    // bits per sample in the file (1, 2, 4, 8, 16)
    int file_color_type;   // PNG_COLOR_TYPE_* as stored
    int interlaced;        // 1 for Adam7
    int channels;          // samples per pixel delivered by the read calls: 1 to 4
    int bytes_per_sample;  // 1 or 2 (native byte order)
    uint32_t max_value;    // the sample value that means 1.0 (1, 3, 15, 255 or 65535)
    uint64_t idat_bytes;   // the lengths of the IDAT chunks added up, as their headers give them
    tsr_metadata metadata; // iCCP (decompressed), eXIf and the XMP iTXt chunk, from before the image data
    double x_dpi;          // the pHYs chunk's pixels per metre as dots per inch; 0 without one (or an aspect only)
    double y_dpi;
} tsr_png_info;

/// Opens `path` and reads the header, without allocating for the pixels: libpng allocates its row
/// buffers at the first read, so the caller can refuse a huge image first. Returns NULL on failure.
/// `fail_on` (TSR_FAIL_ON_*) is the damage the reader fails on; what it reads past is in
/// tsr_png_damage. No chunk is allocated larger than the file (libpng's chunk limit, at least its
/// default of 8 MB): a chunk claiming more fails as truncated whatever the policy.
tsr_png_reader *tsr_png_open(const char *path, int fail_on, tsr_png_info *info, char *err, size_t errlen);
/// The damage the reader has read past so far.
const tsr_damage *tsr_png_damage(const tsr_png_reader *r);
/// Reads the next `count` rows into `buffer` (row `i` at `buffer + i * stride`). Non-interlaced only.
/// Once the data fails (truncated or damaged) and the policy reads past it, this row and every later
/// one is zero (transparent black).
int tsr_png_read_rows(tsr_png_reader *r, uint8_t *buffer, size_t stride, uint32_t count, char *err, size_t errlen);
/// Reads the whole image, every interlace pass, into `buffer`, which the caller has zeroed: where the
/// data fails and the policy reads past it, what was not reached stays zero.
int tsr_png_read_image(tsr_png_reader *r, uint8_t *buffer, size_t stride, char *err, size_t errlen);
/// Reads what follows the image data, so a truncated file or a bad CRC there is reported.
int tsr_png_finish(tsr_png_reader *r, char *err, size_t errlen);
void tsr_png_close(tsr_png_reader *r);

// MARK: PNG writing

typedef struct tsr_png_writer tsr_png_writer;

/// `channels` 1 (gray), 2 (gray + alpha), 3 (RGB) or 4 (RGBA); `bit_depth` 8 or 16 (samples in native
/// byte order); `level` the zlib level 0...9. `metadata` (or NULL) is written as iCCP, eXIf and an XMP
/// iTXt chunk; `dpi` above 0 as a pHYs chunk (pixels per metre, `dpi / 0.0254` rounded).
tsr_png_writer *tsr_png_writer_open(const char *path, uint32_t width, uint32_t height, int channels, int bit_depth,
                                    int level, const tsr_metadata *metadata, double dpi, char *err, size_t errlen);
/// Writes `length` bytes of the zlib stream of the image's filtered rows as IDAT chunks.
int tsr_png_write_idat(tsr_png_writer *w, const uint8_t *data, size_t length, char *err, size_t errlen);
/// Writes the end of the file (IEND) and closes it.
int tsr_png_writer_finish(tsr_png_writer *w, char *err, size_t errlen);
void tsr_png_writer_close(tsr_png_writer *w);

/// Filters `count` rows of `row_bytes` bytes (`stride` apart from `rows`; 16-bit samples in native byte
/// order when `swap16`) into `out`, each a filter type byte and its filtered bytes, `row_bytes + 1`
/// apart: the filter of the five with the least magnitude sum, as libpng with all filters on.
/// `previous` is the row above the first (as stored in `rows`), NULL for the image's first row.
/// Returns 0, or -1 when out of memory.
int tsr_png_filter_rows(const uint8_t *rows, size_t stride, uint32_t count, const uint8_t *previous,
                        size_t row_bytes, int bytes_per_pixel, int swap16, uint8_t *out);
/// The most bytes ``tsr_png_deflate_piece`` writes for `length` bytes.
size_t tsr_png_deflate_bound(size_t length);
/// Deflates `data` at zlib `level` as one piece of a stream: raw deflate, with the bytes before it in
/// the stream (`dictionary`, its last 32 KB used) as its window, ending on a byte boundary (a sync
/// flush), or ending the stream when `last`. Pieces made this way, put end to end after a zlib header
/// and followed by the Adler-32 of all their data, are one zlib stream. Writes at most `capacity` bytes
/// to `out`, `*adler` the Adler-32 of `data` alone; returns the bytes written, or -1.
long tsr_png_deflate_piece(const uint8_t *data, size_t length, const uint8_t *dictionary, size_t dictionary_length,
                           int level, int last, uint8_t *out, size_t capacity, uint32_t *adler);
/// The Adler-32 of two pieces of data put end to end, from each one's and the second's length.
uint32_t tsr_adler32_combine(uint32_t first, uint32_t second, size_t second_length);

// MARK: JPEG reading

typedef struct tsr_jpeg_reader tsr_jpeg_reader;

typedef struct {
    uint32_t width;         // the image's size, as stored
    uint32_t height;
    uint32_t output_width;  // the size rows are delivered at: width and height over the shrink, rounded up
    uint32_t output_height;
    int channels;      // samples per pixel delivered: 1 (gray) or 3 (RGB; CMYK files are converted)
    int progressive;
    tsr_metadata metadata;  // APP2 ICC profile (its segments joined), APP1 Exif and APP1 XMP
    uint64_t coefficient_bytes;  // whole-image coefficient buffers a multi-scan file needs; 0 for one scan
    uint64_t fewest_blocks;      // the 8x8 blocks of the component that has the fewest
    int arithmetic;              // 1 for arithmetic coding, which can spend less than a bit on a block
    uint64_t file_bytes;         // the file's size
    double x_dpi;                // the JFIF density as dots per inch; 0 without JFIF (or an aspect only)
    double y_dpi;
} tsr_jpeg_info;

/// Opens `path` and reads the header. libjpeg's memory manager refuses to allocate more than
/// `max_memory` bytes in all (0: no limit); the caller checks the sizes in `info` before reading rows.
/// `shrink` 2, 4 or 8 decodes at that fraction of the size with libjpeg's DCT scaling (scale_num 1,
/// scale_denom `shrink`: a reduced inverse DCT of each block, 1/8 being the block's mean); 1 decodes
/// the whole size. Other values are an error.
/// `fail_on` (TSR_FAIL_ON_*) is the damage the reader fails on: libjpeg's warnings are damage it read past
/// (a bad Huffman code, a bad ICC marker, the data ending early).
tsr_jpeg_reader *tsr_jpeg_open(const char *path, int fail_on, tsr_jpeg_info *info, uint64_t max_memory,
                               unsigned shrink, char *err, size_t errlen);
/// The damage the reader has read past so far: libjpeg's warnings that `fail_on` does not fail on.
const tsr_damage *tsr_jpeg_damage(const tsr_jpeg_reader *r);
/// Reads the next `count` rows. A truncated or corrupt stream fails as the policy says, or reads on
/// (libjpeg fills what is missing with gray).
int tsr_jpeg_read_rows(tsr_jpeg_reader *r, uint8_t *buffer, size_t stride, uint32_t count, char *err, size_t errlen);
int tsr_jpeg_finish(tsr_jpeg_reader *r, char *err, size_t errlen);
void tsr_jpeg_close(tsr_jpeg_reader *r);

// MARK: JPEG writing

typedef struct tsr_jpeg_writer tsr_jpeg_writer;

/// `channels` 1 or 3. Chroma is subsampled 4:2:0 below quality 90 and kept whole from 90 up. `metadata`
/// (or NULL) is written as APP1 Exif, APP1 XMP and APP2 ICC segments; an EXIF block or XMP packet too
/// large for one segment (64 KB) is an error. The JFIF segment's density is `dpi` dots per inch (rounded,
/// at most 65535) when above 0, else libjpeg's default: no unit, an aspect ratio of 1:1.
tsr_jpeg_writer *tsr_jpeg_writer_open(const char *path, uint32_t width, uint32_t height, int channels, int quality,
                                      int progressive, const tsr_metadata *metadata, double dpi, char *err,
                                      size_t errlen);
int tsr_jpeg_write_rows(tsr_jpeg_writer *w, const uint8_t *buffer, size_t stride, uint32_t count, char *err,
                        size_t errlen);
int tsr_jpeg_writer_finish(tsr_jpeg_writer *w, char *err, size_t errlen);
void tsr_jpeg_writer_close(tsr_jpeg_writer *w);

// MARK: TIFF

struct tiff;

/// A libtiff handle whose errors are kept with it instead of printed.
typedef struct {
    struct tiff *tif;
    char message[1024];  // the last error libtiff reported for this file
    char warning[512];   // the first warning libtiff gave for this file, "" for none
} tsr_tiff;

/// `mode` as for TIFFOpen ("r", "w", "w8" for BigTIFF). Returns NULL with a message on failure.
tsr_tiff *tsr_tiff_open(const char *path, const char *mode, char *err, size_t errlen);
void tsr_tiff_close(tsr_tiff *t);
/// The last error libtiff reported for this file, or "" (the message is copied out of the tuple Swift sees).
const char *tsr_tiff_last_error(const tsr_tiff *t);
/// The first warning libtiff gave for this file (an unknown tag, a bad value it corrected), or "".
const char *tsr_tiff_first_warning(const tsr_tiff *t);

// TIFFGetField and TIFFSetField are variadic; these are typed. Getters return 1 when the tag is present
// (or has a default), 0 otherwise.
int tsr_tiff_get_u16(tsr_tiff *t, uint32_t tag, uint16_t *value);
int tsr_tiff_get_u32(tsr_tiff *t, uint32_t tag, uint32_t *value);
int tsr_tiff_get_extrasamples(tsr_tiff *t, uint16_t *count, const uint16_t **values);
int tsr_tiff_set_u16(tsr_tiff *t, uint32_t tag, uint16_t value);
int tsr_tiff_set_u32(tsr_tiff *t, uint32_t tag, uint32_t value);
int tsr_tiff_set_extrasamples(tsr_tiff *t, uint16_t count, const uint16_t *values);
/// The ICC profile (tag 34675) and XMP packet (tag 700) of the current directory; NULL when absent.
/// Valid while the directory is.
void tsr_tiff_get_metadata(tsr_tiff *t, tsr_metadata *metadata);
/// Sets the ICC profile and XMP packet of the directory being written (the EXIF block is not written:
/// TIFF keeps EXIF as a directory of its own). Returns 1 on success.
int tsr_tiff_set_metadata(tsr_tiff *t, const tsr_metadata *metadata);
/// The current directory's XResolution and YResolution in dots per inch (ResolutionUnit inch or
/// centimetre). Returns 1 when both are there, 0 without them or with no unit (an aspect ratio only).
int tsr_tiff_get_resolution(tsr_tiff *t, double *x_dpi, double *y_dpi);
/// Sets XResolution and YResolution to `dpi` and ResolutionUnit to inch. Returns 1 on success.
int tsr_tiff_set_resolution(tsr_tiff *t, double dpi);

// MARK: Files being written

/// Remembers a temporary file to delete if the process is interrupted or crashes while
/// it is being written. Returns a slot number, or -1 when all slots are taken.
int tsr_cleanup_register(const char *path);
/// Forgets the temporary file in `slot` (it was renamed or removed).
void tsr_cleanup_unregister(int slot);
/// Unlinks every temporary file being written. Async-signal-safe: for a program's signal handlers
/// (the `tessera` executable's are in Sources/CTesseraSignals); the library installs none.
void tsr_cleanup_unlink_all(void);
/// 1 while a temporary file is being written. Async-signal-safe.
int tsr_cleanup_writing(void);

// MARK: Whole-image formats (formats.c): WebP, GIF, HEIF and AVIF
//
// These decode the whole image at once into 8-bit interleaved RGB or RGBA (`channels` 3 or 4, rows
// `width * channels` bytes apart, not premultiplied); the caller checks the header's size against its
// limits before allocating for the pixels. Each returns 0, or -1 with a message in `err`.

typedef struct tsr_webp_file tsr_webp_file;

typedef struct {
    uint32_t width;   // the canvas
    uint32_t height;
    int has_alpha;
    int lossless;     // 1 for VP8L, 0 for lossy (VP8) or a mix in an animation
    int frames;       // 1 for a still image
    int animated;     // the VP8X animation flag: frames are drawn on a canvas, transparent where none covers it
    tsr_metadata metadata;  // the ICCP, EXIF (without an "Exif\0\0" prefix) and XMP chunks
} tsr_webp_info;

/// Reads the file whole and parses its chunks. NULL with a message for a file that is not WebP, is
/// truncated or is damaged.
tsr_webp_file *tsr_webp_open(const char *path, tsr_webp_info *info, char *err, size_t errlen);
/// Decodes the (first) frame; an animation's as shown on its canvas, every pixel written.
int tsr_webp_decode(tsr_webp_file *f, uint8_t *pixels, int channels, char *err, size_t errlen);
void tsr_webp_close(tsr_webp_file *f);

/// A decode of the (first) frame into `pixels` that gives its rows top to bottom as it goes: a still
/// image through libwebp's incremental decoder, an animation's frame whole on the first advance. The
/// file stays open while it lives. A still image with `scaled_width` and `scaled_height` above 0 is
/// decoded at that size by libwebp's rescaler, `pixels` holding that many. NULL with a message on
/// failure.
typedef struct tsr_webp_rows tsr_webp_rows;
tsr_webp_rows *tsr_webp_rows_start(tsr_webp_file *f, uint8_t *pixels, int channels, uint32_t scaled_width,
                                   uint32_t scaled_height, char *err, size_t errlen);
/// Decodes until at least `wanted` rows (from the top) are in the pixels, or all of them; `*ready` the
/// rows that are. 0, or -1 with a message (damaged or truncated data).
int tsr_webp_rows_advance(tsr_webp_rows *r, uint32_t wanted, uint32_t *ready, char *err, size_t errlen);
void tsr_webp_rows_free(tsr_webp_rows *r);
/// Encodes and writes `path`: lossless (exact: colors under transparent pixels are kept) or lossy at
/// `quality` 0...100; `metadata` (or NULL) as ICCP, EXIF and XMP chunks.
int tsr_webp_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                   int lossless, float quality, const tsr_metadata *metadata, char *err, size_t errlen);

typedef struct {
    uint32_t width;   // the logical screen
    uint32_t height;
    int frames;       // image descriptors in the file
    int has_alpha;    // a frame up to the one asked for has a transparent color or leaves part of the screen uncovered
    int interlaced;   // the frame asked for is interlaced
    int delay_ms;     // the frame asked for's delay, or 0
} tsr_gif_info;

/// The most pixels a byte of GIF image data can give: a 12-bit LZW code names a string of at most 4096
/// pixels (a code of w bits at most 2^w), so 4096 / 12 pixels a bit.
#define TSR_GIF_PIXELS_PER_BYTE 2731

/// Reads the screen and walks the records without decoding pixels. `frame` (0-based) says which frame
/// `has_alpha`, `interlaced` and `delay_ms` describe; asking for a frame the file lacks is not an error here.
/// Damage up to that frame (the data ending, a frame larger than its data can hold, no color table) is
/// noted in `damage` (or fails as its policy says); damage after it is not looked at.
int tsr_gif_info_read(const char *path, int frame, tsr_gif_info *info, tsr_damage *damage, char *err, size_t errlen);
/// Decodes frame `frame` as shown: the frames before it composited with their disposal methods, over a
/// transparent screen. Where the policy in `damage` reads past damage, a frame is drawn as far as its data
/// goes; a frame with no color table (none given, locally or globally) is drawn in gray levels, as Pillow does.
int tsr_gif_decode(const char *path, int frame, uint8_t *pixels, int channels, tsr_damage *damage, char *err,
                   size_t errlen);

typedef struct tsr_heif_file tsr_heif_file;

typedef struct {
    uint32_t width;   // the primary image, after its rotation and mirroring (irot, imir)
    uint32_t height;
    int has_alpha;
    int bit_depth;    // of the luma channel as coded
    tsr_metadata metadata;  // the color profile (prof or rICC), the Exif block (its TIFF structure) and XMP
} tsr_heif_info;

tsr_heif_file *tsr_heif_open(const char *path, tsr_heif_info *info, char *err, size_t errlen);
/// Decodes the primary image, turned and mirrored as its transformations say, to 8 bits. What libheif's
/// decoders print themselves (dav1d's "Error parsing OBU data", libaom's, libde265's) is captured: added to
/// the message of a failure, or, after a success, noted in `damage` as a warning (or a failure, as its
/// policy says). Decodes take turns, since what they print goes to the process's stderr.
int tsr_heif_decode(tsr_heif_file *f, uint8_t *pixels, int channels, tsr_damage *damage, char *err, size_t errlen);
void tsr_heif_close(tsr_heif_file *f);
/// Whether this libheif can decode (`encode` 0) or encode (1) HEVC (`avif` 0) or AV1 (`avif` 1), and
/// the encoder's name in `name`.
int tsr_heif_has_codec(int avif, int encode, char *name, size_t namelen);
/// Encodes and writes `path` as HEIC or AVIF at `quality` 0...100, with `metadata` (or NULL). What the
/// encoder prints itself is captured into the message of a failure (and dropped after a success).
int tsr_heif_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, int channels, int avif,
                   int quality, const tsr_metadata *metadata, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
