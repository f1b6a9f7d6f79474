#ifndef TESSERA_ZXING_SHIM_H
#define TESSERA_ZXING_SHIM_H
// A C face for zxing-cpp's ReadBarcodes, so that Swift calls it without C++ interop, and so that no C++
// exception (zxing-cpp throws on a bad image view or an allocation failure) ever reaches Swift.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Called once per code read: zxing-cpp's BarcodeFormat bit (QRCode 1 << 13, EAN13 1 << 9, ...), the text
/// (UTF-8, `length` bytes, not NUL-terminated), and the corners x0 y0 ... x3 y3 as the code reads:
/// top-left, top-right, bottom-right, bottom-left.
typedef void (*tessera_zxing_found)(void *context, int format, const char *text, size_t length,
                                    const int corners[8]);

/// Reads every code zxing-cpp finds in a `width` x `height` 8-bit gray image whose rows are `stride`
/// bytes apart. `formats` is a mask of zxing-cpp's BarcodeFormat bits (0: all). `try_harder`,
/// `try_rotate` and `try_downscale` are its DecodeHints of those names. Returns the number of codes, or
/// -1 with a one-line reason in `error` (at most `error_size` bytes, NUL-terminated).
int tessera_zxing_read(const uint8_t *gray, int width, int height, int stride, int formats, int try_harder,
                       int try_rotate, int try_downscale, void *context, tessera_zxing_found found, char *error,
                       size_t error_size);

#ifdef __cplusplus
}
#endif
#endif
