// Inner loops that gain from wider vectors than the baseline x86-64 (SSE2) the Swift code is compiled
// for. Each is built for several instruction sets and the widest the processor has is chosen at run
// time. Every variant does the same IEEE operations in the same order (no fused multiply-add), so
// results are bit-identical whichever runs, and identical to the Swift loops they replace.
#ifndef TESSERA_SIMD_H
#define TESSERA_SIMD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The instruction sets a loop is built for.
typedef enum {
    /// SSE2 on x86-64 (every x86-64 processor), or the compiler's baseline elsewhere.
    tsr_simd_baseline = 0,
    tsr_simd_avx2 = 1,
    tsr_simd_avx512 = 2,
} tsr_simd_level;

/// The widest level this processor runs.
tsr_simd_level tsr_simd_best(void);

/// A symmetric FIR along one axis, 16 samples at a time: for `row` in `0..<rows` and `i` in
/// `0..<width` (`width` a multiple of 16),
///
///     dest[row * dest_stride + i] = w[0] c[i] + sum over k = 1...radius of w[k] (c[i - k step] + c[i + k step])
///
/// with `c = source + (row + radius) * row_stride`, summed in that order of k, each product rounded
/// before it is added. `level` picks the variant (``tsr_simd_best()``'s, or lower to test the others); one above the
/// processor's runs the best it has.
void tsr_fir(
    tsr_simd_level level, const float *source, ptrdiff_t step, ptrdiff_t row_stride, float *dest,
    ptrdiff_t dest_stride, ptrdiff_t rows, ptrdiff_t width, const float *weights, ptrdiff_t radius);

/// Float32 to 8 bits, as Tessera's 8-bit writers round: clamped to 0...1 (NaN to 0), times 255, to the
/// nearest integer, ties to even.
void tsr_encode8(tsr_simd_level level, const float *source, ptrdiff_t count, uint8_t *target);

/// 8 bits to Float32, as Tessera's decoders scale them: the byte times 1/255 (the Float32 nearest it).
void tsr_decode8(tsr_simd_level level, const uint8_t *source, ptrdiff_t count, float *target);

/// 8-bit RGB to Float32 RGBA: each byte times 1/255 as tsr_decode8, alpha 1.
void tsr_decode_rgb8(tsr_simd_level level, const uint8_t *source, ptrdiff_t count, float *target);

/// Float32 RGBA to Float32 RGB: `count` pixels, alpha dropped.
void tsr_encode_rgb_float(tsr_simd_level level, const float *source, ptrdiff_t count, float *target);

/// Float32 RGBA to 8-bit RGB: `count` pixels rounded as tsr_encode8, alpha dropped.
void tsr_encode_rgb8(tsr_simd_level level, const float *source, ptrdiff_t count, uint8_t *target);

/// Mixes `count` pixels of `bands` (1 or 3) 8-bit samples by an 8-bit mask, a byte a pixel: each
/// sample `(a m + b (255 - m)) / 255` rounded to nearest, computed exactly in 16-bit integers.
void tsr_mix8(
    tsr_simd_level level, const uint8_t *a, const uint8_t *b, const uint8_t *mask, ptrdiff_t bands, ptrdiff_t count,
    uint8_t *target);

#ifdef __cplusplus
}
#endif

#endif
