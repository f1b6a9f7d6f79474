// A PNG's image data made in pieces that can be computed at the same time: rows filtered as libpng
// filters them, and each piece of rows deflated on its own, ending on a byte boundary, so that the
// pieces put end to end are one zlib stream (as pigz splits gzip's). The writer's caller hands the
// pieces to the run's workers and writes them in order.
#include "CImageShims.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/// The sum libpng's heuristic minimizes: each byte read as a signed difference, by its magnitude.
static uint64_t magnitude_sum(const uint8_t *bytes, size_t count) {
    uint64_t sum = 0;
    for (size_t i = 0; i < count; i++) {
        int value = (int8_t)bytes[i];
        sum += (uint64_t)(value < 0 ? -value : value);
    }
    return sum;
}

/// The Paeth predictor of PNG's filter type 4.
static inline uint8_t paeth(int a, int b, int c) {
    int pa = abs(b - c), pb = abs(a - c), pc = abs(a + b - 2 * c);
    return (uint8_t)((pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c));
}

/// Filters `row` (above it `previous`, zeros for the first row) into `out`: a filter type byte and
/// `count` bytes, the type of the five whose bytes have the least magnitude sum, as libpng chooses
/// with all filters on. `trial` holds 4 * `count` bytes.
static void filter_row(const uint8_t *row, const uint8_t *previous, size_t count, size_t bpp, uint8_t *out,
                       uint8_t *trial) {
    uint8_t *sub = trial, *up = trial + count, *average = trial + 2 * count, *predicted = trial + 3 * count;
    size_t lead = bpp < count ? bpp : count;
    for (size_t i = 0; i < lead; i++) {
        sub[i] = row[i];
        up[i] = (uint8_t)(row[i] - previous[i]);
        average[i] = (uint8_t)(row[i] - (previous[i] >> 1));
        predicted[i] = (uint8_t)(row[i] - previous[i]);
    }
    for (size_t i = lead; i < count; i++) {
        int a = row[i - bpp], b = previous[i], c = previous[i - bpp];
        sub[i] = (uint8_t)(row[i] - a);
        up[i] = (uint8_t)(row[i] - b);
        average[i] = (uint8_t)(row[i] - ((a + b) >> 1));
        predicted[i] = (uint8_t)(row[i] - paeth(a, b, c));
    }
    const uint8_t *choices[5] = {row, sub, up, average, predicted};
    int best = 0;
    uint64_t least = magnitude_sum(row, count);
    for (int type = 1; type < 5; type++) {
        uint64_t sum = magnitude_sum(choices[type], count);
        if (sum < least) {
            least = sum;
            best = type;
        }
    }
    out[0] = (uint8_t)best;
    memcpy(out + 1, choices[best], count);
}

int tsr_png_filter_rows(const uint8_t *rows, size_t stride, uint32_t count, const uint8_t *previous,
                        size_t row_bytes, int bytes_per_pixel, int swap16, uint8_t *out) {
    // Scratch: the four trial rows, then (for 16-bit samples) this row and the one above in file order.
    size_t scratch_bytes = 4 * row_bytes + (swap16 ? 2 * row_bytes : 0) + (previous == NULL ? row_bytes : 0);
    uint8_t *scratch = malloc(scratch_bytes > 0 ? scratch_bytes : 1);
    if (scratch == NULL) return -1;
    uint8_t *trial = scratch;
    uint8_t *swapped[2] = {scratch + 4 * row_bytes, scratch + 5 * row_bytes};
    if (previous == NULL) {
        uint8_t *zeros = scratch + scratch_bytes - row_bytes;
        memset(zeros, 0, row_bytes);
        previous = zeros;
    } else if (swap16) {
        for (size_t i = 0; i + 1 < row_bytes; i += 2) {
            swapped[1][i] = previous[i + 1];
            swapped[1][i + 1] = previous[i];
        }
        previous = swapped[1];
    }
    for (uint32_t y = 0; y < count; y++) {
        const uint8_t *row = rows + (size_t)y * stride;
        if (swap16) {
            uint8_t *target = swapped[y % 2];
            // PNG stores 16-bit samples big-endian.
            for (size_t i = 0; i + 1 < row_bytes; i += 2) {
                target[i] = row[i + 1];
                target[i + 1] = row[i];
            }
            row = target;
        }
        filter_row(row, previous, row_bytes, (size_t)bytes_per_pixel, out + (size_t)y * (row_bytes + 1), trial);
        previous = row;
    }
    free(scratch);
    return 0;
}

size_t tsr_png_deflate_bound(size_t length) {
    // zlib's bound for one call, and room for the sync flush's empty stored block and a final block.
    return compressBound((uLong)length) + 64;
}

long tsr_png_deflate_piece(const uint8_t *data, size_t length, const uint8_t *dictionary, size_t dictionary_length,
                           int level, int last, uint8_t *out, size_t capacity, uint32_t *adler) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    // Raw deflate: the caller writes the zlib header before the first piece and the Adler-32 after the last.
    if (deflateInit2(&stream, level, Z_DEFLATED, -15, 8, Z_FILTERED) != Z_OK) return -1;
    if (dictionary_length > 0) {
        size_t window = dictionary_length < 32768 ? dictionary_length : 32768;
        if (deflateSetDictionary(&stream, dictionary + dictionary_length - window, (uInt)window) != Z_OK) {
            deflateEnd(&stream);
            return -1;
        }
    }
    stream.next_in = (Bytef *)data;
    stream.next_out = out;
    size_t left = length;
    int status = Z_OK;
    // zlib counts in 32 bits: a piece of more than 4 GB goes in several calls.
    for (;;) {
        uInt take = left > 0x40000000 ? 0x40000000 : (uInt)left;
        stream.avail_in = take;
        size_t room = capacity - (size_t)(stream.next_out - out);
        stream.avail_out = room > 0x40000000 ? 0x40000000 : (uInt)room;
        int flush = left > take ? Z_NO_FLUSH : (last ? Z_FINISH : Z_SYNC_FLUSH);
        status = deflate(&stream, flush);
        left -= take - stream.avail_in;
        if (status == Z_STREAM_ERROR || (status == Z_BUF_ERROR && stream.avail_out == 0)) break;
        if (flush != Z_NO_FLUSH && stream.avail_out > 0 && (last ? status == Z_STREAM_END : status == Z_OK)) break;
        if (stream.avail_out == 0 && (size_t)(stream.next_out - out) >= capacity) {
            status = Z_BUF_ERROR;
            break;
        }
    }
    long produced = (long)(stream.next_out - out);
    deflateEnd(&stream);
    if (left != 0 || (last ? status != Z_STREAM_END : status != Z_OK)) return -1;
    *adler = (uint32_t)adler32_z(1, data, length);
    return produced;
}

uint32_t tsr_adler32_combine(uint32_t first, uint32_t second, size_t second_length) {
    return (uint32_t)adler32_combine(first, second, (z_off_t)second_length);
}
