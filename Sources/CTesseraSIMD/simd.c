// The loops of TesseraSIMD.h. Each is written once, as an always-inline body taking how many 16-lane
// vectors to keep in flight, and built three times from it: for the baseline, AVX2 and AVX-512.
#include "TesseraSIMD.h"

#include <stdatomic.h>
#include <stdint.h>

// A product is rounded before it is added, as in the Swift loops these replace: the compiler must not
// fuse them (AVX-512 has fused multiply-add, and would give other bits on other processors).
#pragma STDC FP_CONTRACT OFF

// 16 lanes at any alignment their scalars allow; the compiler splits them into the target's registers.
typedef float float16 __attribute__((vector_size(64), aligned(4)));
typedef uint32_t uint32x16 __attribute__((vector_size(64), aligned(4)));
typedef uint8_t uint8x16 __attribute__((vector_size(16), aligned(1)));

#define LOAD(p) (*(const float16 *)(p))

// One column of `blocks` 16-sample blocks down all rows: the rows a sum reads stay in the L1 cache from
// one output row to the next (a whole tile's rows would not). Each sum is a chain of dependent
// additions; `blocks` independent chains (as many as the target's registers hold) keep the adders busy.
static inline __attribute__((always_inline)) void fir_column(
    const float *source, ptrdiff_t step, ptrdiff_t row_stride, float *dest, ptrdiff_t dest_stride, ptrdiff_t rows,
    const float *weights, ptrdiff_t radius, int blocks) {
    const float center = weights[0];
    for (ptrdiff_t row = 0; row < rows; row++) {
        const float *c = source + (row + radius) * row_stride;
        float16 sum[4];
        for (int b = 0; b < blocks; b++) sum[b] = LOAD(c + 16 * b) * center;
        ptrdiff_t offset = step;
        for (ptrdiff_t k = 1; k <= radius; k++) {
            const float w = weights[k];
            for (int b = 0; b < blocks; b++) {
                float16 product = (LOAD(c - offset + 16 * b) + LOAD(c + offset + 16 * b)) * w;
                sum[b] = sum[b] + product;
            }
            offset += step;
        }
        float *out = dest + row * dest_stride;
        for (int b = 0; b < blocks; b++) *(float16 *)(out + 16 * b) = sum[b];
    }
}

static inline __attribute__((always_inline)) void fir_body(
    int blocks, const float *source, ptrdiff_t step, ptrdiff_t row_stride, float *dest, ptrdiff_t dest_stride,
    ptrdiff_t rows, ptrdiff_t width, const float *weights, ptrdiff_t radius) {
    ptrdiff_t i = 0;
    for (; i + 16 * blocks <= width; i += 16 * blocks)
        fir_column(source + i, step, row_stride, dest + i, dest_stride, rows, weights, radius, blocks);
    for (; i < width; i += 16)
        fir_column(source + i, step, row_stride, dest + i, dest_stride, rows, weights, radius, 1);
}

// Float32 to 8 bits as Samples.quantize rounds: clamped to 0...1 (NaN to 0), times 255, to the nearest
// integer, ties to even (adding 2^23 leaves the integer in the float's low mantissa bits).
// (16 samples from `source`: a vector argument would change the ABI between the variants.)
static inline __attribute__((always_inline)) uint8x16 quantize16(const float *source) {
    const float16 zero = {0}, one = zero + 1.0f;
    // maxNum and minNum: a NaN gives the other operand.
    float16 clamped = __builtin_elementwise_min(__builtin_elementwise_max(LOAD(source), zero), one);
    return __builtin_convertvector((uint32x16)(clamped * 255.0f + 8388608.0f), uint8x16);
}

static inline __attribute__((always_inline)) void encode8_body(
    int blocks, const float *source, ptrdiff_t count, uint8_t *target) {
    (void)blocks;
    ptrdiff_t i = 0;
    for (; i + 16 <= count; i += 16) *(uint8x16 *)(target + i) = quantize16(source + i);
    for (; i < count; i++) {
        float value = source[i] > 0 ? source[i] : 0;
        value = value > 1 ? 1 : value;
        union { float f; uint32_t u; } shifted = {.f = value * 255.0f + 8388608.0f};
        target[i] = (uint8_t)shifted.u;
    }
}

// 8 bits to Float32 as decoders scale them: the byte times 1/255 (rounded to Float32 once).
static inline __attribute__((always_inline)) void decode8_body(
    int blocks, const uint8_t *source, ptrdiff_t count, float *target) {
    (void)blocks;
    const float scale = 1.0f / 255.0f;
    ptrdiff_t i = 0;
    for (; i + 16 <= count; i += 16)
        *(float16 *)(target + i) = __builtin_convertvector(*(const uint8x16 *)(source + i), float16) * scale;
    for (; i < count; i++) target[i] = (float)source[i] * scale;
}

typedef uint8_t uint8x4 __attribute__((vector_size(4), aligned(1)));
typedef float float4 __attribute__((vector_size(16), aligned(4)));
typedef float float12 __attribute__((ext_vector_type(12), aligned(4)));
typedef uint8_t uint8x12 __attribute__((ext_vector_type(12), aligned(1)));

// 8-bit RGB to Float32 RGBA with alpha 1, as Samples.decodeRGB8: (r, g, b, 0) * (s, s, s, 0) + (0, 0, 0, 1)
// with s = 1/255, four pixels at a time (the last pixel alone).
static inline __attribute__((always_inline)) void decode_rgb8_body(
    int blocks, const uint8_t *source, ptrdiff_t count, float *target) {
    (void)blocks;
    const float s = 1.0f / 255.0f;
    const float16 scale = {s, s, s, 0, s, s, s, 0, s, s, s, 0, s, s, s, 0};
    const float16 opaque = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    ptrdiff_t i = 0;
    for (; i + 4 <= count; i += 4) {
        uint8x12 rgb = *(const uint8x12 *)(source + 3 * i);
        uint8x16 rgba = __builtin_shufflevector(rgb, rgb, 0, 1, 2, 0, 3, 4, 5, 3, 6, 7, 8, 6, 9, 10, 11, 9);
        *(float16 *)(target + 4 * i) = __builtin_convertvector(rgba, float16) * scale + opaque;
    }
    for (; i < count; i++) {
        const uint8_t *p = source + 3 * i;
        float4 pixel = (float4){(float)p[0], (float)p[1], (float)p[2], 0} * (float4){s, s, s, 0} + (float4){0, 0, 0, 1};
        *(float4 *)(target + 4 * i) = pixel;
    }
}

// Float32 RGBA to Float32 RGB, alpha dropped, four pixels at a time.
static inline __attribute__((always_inline)) void encode_rgb_float_body(
    int blocks, const float *source, ptrdiff_t count, float *target) {
    (void)blocks;
    ptrdiff_t i = 0;
    for (; i + 4 <= count; i += 4) {
        float16 rgba = LOAD(source + 4 * i);
        *(float12 *)(target + 3 * i) = __builtin_shufflevector(rgba, rgba, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14);
    }
    for (; i < count; i++)
        for (int c = 0; c < 3; c++) target[3 * i + c] = source[4 * i + c];
}

// Float32 RGBA to 8-bit RGB, alpha dropped, rounded as encode8, four pixels at a time.
static inline __attribute__((always_inline)) void encode_rgb8_body(
    int blocks, const float *source, ptrdiff_t count, uint8_t *target) {
    (void)blocks;
    ptrdiff_t i = 0;
    for (; i + 4 <= count; i += 4) {
        uint8x16 bytes = quantize16(source + 4 * i);
        *(uint8x12 *)(target + 3 * i) = __builtin_shufflevector(bytes, bytes, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14);
    }
    for (; i < count; i++) encode8_body(1, source + 4 * i, 3, target + 3 * i);
}

typedef uint16_t uint16x16 __attribute__((vector_size(32), aligned(2)));

// (a w + b (255 - w)) / 255 rounded, in 16-bit integers (Blinn's form: t = a w + b (255 - w) + 128,
// then (t + t / 256) / 256), for 16 samples and their weights.
static inline __attribute__((always_inline)) uint8x16 mix16(uint8x16 a, uint8x16 b, uint8x16 w) {
    uint16x16 w16 = __builtin_convertvector(w, uint16x16);
    uint16x16 t = __builtin_convertvector(a, uint16x16) * w16 + __builtin_convertvector(b, uint16x16) * (255 - w16) + 128;
    return __builtin_convertvector((t + (t >> 8)) >> 8, uint8x16);
}

static inline __attribute__((always_inline)) uint8_t mix1(uint8_t a, uint8_t b, uint8_t w) {
    uint16_t t = (uint16_t)(a * w + b * (255 - w) + 128);
    return (uint8_t)((t + (t >> 8)) >> 8);
}

// Mixes `count` pixels of `bands` (1 or 3) 8-bit samples: each pixel of `a` weighted by its byte of
// `mask`, `b` by 255 minus it.
static inline __attribute__((always_inline)) void mix8_body(
    int blocks, const uint8_t *a, const uint8_t *b, const uint8_t *mask, ptrdiff_t bands, ptrdiff_t count,
    uint8_t *target) {
    (void)blocks;
    ptrdiff_t i = 0;
    if (bands == 3) {
        for (; i + 16 <= count; i += 16) {
            uint8x16 m = *(const uint8x16 *)(mask + i);
            uint8x16 w[3] = {
                __builtin_shufflevector(m, m, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5),
                __builtin_shufflevector(m, m, 5, 5, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10),
                __builtin_shufflevector(m, m, 10, 11, 11, 11, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15),
            };
            for (int k = 0; k < 3; k++) {
                ptrdiff_t at = 3 * i + 16 * k;
                *(uint8x16 *)(target + at) = mix16(*(const uint8x16 *)(a + at), *(const uint8x16 *)(b + at), w[k]);
            }
        }
    } else {
        for (; i + 16 <= count; i += 16)
            *(uint8x16 *)(target + i) =
                mix16(*(const uint8x16 *)(a + i), *(const uint8x16 *)(b + i), *(const uint8x16 *)(mask + i));
    }
    for (; i < count; i++)
        for (ptrdiff_t c = 0; c < bands; c++)
            target[bands * i + c] = mix1(a[bands * i + c], b[bands * i + c], mask[i]);
}

tsr_simd_level tsr_simd_best(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return tsr_simd_avx512;
    if (__builtin_cpu_supports("avx2")) return tsr_simd_avx2;
#endif
    return tsr_simd_baseline;
}

// `level`, or the best this processor has if that is lower (found once; racing first calls agree).
static tsr_simd_level runnable(tsr_simd_level level) {
    static _Atomic int best = -1;
    int known = atomic_load_explicit(&best, memory_order_relaxed);
    if (known < 0) {
        known = (int)tsr_simd_best();
        atomic_store_explicit(&best, known, memory_order_relaxed);
    }
    return (int)level > known ? (tsr_simd_level)known : level;
}

#define EXPAND(...) __VA_ARGS__

#if defined(__x86_64__)
// name_baseline, name_avx2 and name_avx512 from name_body, and tsr_name choosing among them.
#define VARIANTS(name, params, args)                                                                             \
    static void name##_baseline params { name##_body(1, EXPAND args); }                                          \
    __attribute__((target("avx2"))) static void name##_avx2 params { name##_body(2, EXPAND args); }              \
    __attribute__((target("avx512f"))) static void name##_avx512 params { name##_body(4, EXPAND args); }         \
    void tsr_##name(tsr_simd_level level, EXPAND params) {                                                       \
        switch (runnable(level)) {                                                                               \
        case tsr_simd_avx512: name##_avx512 args; return;                                                        \
        case tsr_simd_avx2: name##_avx2 args; return;                                                            \
        default: name##_baseline args; return;                                                                  \
        }                                                                                                        \
    }
#else
#define VARIANTS(name, params, args)                                                                             \
    void tsr_##name(tsr_simd_level level, EXPAND params) {                                                       \
        (void)runnable(level);                                                                                   \
        name##_body(1, EXPAND args);                                                                             \
    }
#endif

VARIANTS(fir,
         (const float *source, ptrdiff_t step, ptrdiff_t row_stride, float *dest, ptrdiff_t dest_stride,
          ptrdiff_t rows, ptrdiff_t width, const float *weights, ptrdiff_t radius),
         (source, step, row_stride, dest, dest_stride, rows, width, weights, radius))
VARIANTS(encode8, (const float *source, ptrdiff_t count, uint8_t *target), (source, count, target))
VARIANTS(decode8, (const uint8_t *source, ptrdiff_t count, float *target), (source, count, target))
VARIANTS(decode_rgb8, (const uint8_t *source, ptrdiff_t count, float *target), (source, count, target))
VARIANTS(encode_rgb_float, (const float *source, ptrdiff_t count, float *target), (source, count, target))
VARIANTS(encode_rgb8, (const float *source, ptrdiff_t count, uint8_t *target), (source, count, target))
VARIANTS(mix8,
         (const uint8_t *a, const uint8_t *b, const uint8_t *mask, ptrdiff_t bands, ptrdiff_t count, uint8_t *target),
         (a, b, mask, bands, count, target))
