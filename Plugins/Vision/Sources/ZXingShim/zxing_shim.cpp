#include "zxing_shim.h"

// zxing-cpp 1.4's text() is UTF-16 (std::wstring) unless this asks for UTF-8, as 2.0 always gives it.
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include <cstdio>
#include <exception>
#include <string>

extern "C" int tessera_zxing_read(const uint8_t *gray, int width, int height, int stride, int formats,
                                  int try_harder, int try_rotate, int try_downscale, void *context,
                                  tessera_zxing_found found, char *error, size_t error_size) {
    try {
        using ZXing::BarcodeFormat;
        ZXing::ImageView image(gray, width, height, ZXing::ImageFormat::Lum, stride);
        const ZXing::BarcodeFormats asked =
            formats == 0 ? ZXing::BarcodeFormats(BarcodeFormat::Any)
                         : ZXing::BarcodeFormats(static_cast<BarcodeFormat>(formats));
        // Two passes: zxing-cpp 1.4.0 (Debian's) aborts on an assertion (Result::operator==, lineCount() == 1)
        // when its downscaled pyramid reads a linear code again and merges the two, so linear codes are read
        // without the pyramid; 2D codes compare by position and keep it.
        int count = 0;
        for (const bool linear : {false, true}) {
            const auto part = asked & (linear ? BarcodeFormat::LinearCodes : BarcodeFormat::MatrixCodes);
            if (part.empty()) continue;
            ZXing::DecodeHints hints;
            hints.setFormats(part);
            hints.setTryHarder(try_harder != 0);
            hints.setTryRotate(try_rotate != 0);
            hints.setTryDownscale(try_downscale != 0 && !linear);
            for (const auto &result : ZXing::ReadBarcodes(image, hints)) {
                if (!result.isValid()) continue;
                const auto position = result.position();
                int corners[8];
                for (int k = 0; k < 4; ++k) {
                    corners[2 * k] = position[k].x;
                    corners[2 * k + 1] = position[k].y;
                }
                const std::string text = result.text();
                found(context, static_cast<int>(result.format()), text.data(), text.size(), corners);
                ++count;
            }
        }
        return count;
    } catch (const std::exception &exception) {
        std::snprintf(error, error_size, "zxing-cpp: %s", exception.what());
    } catch (...) {
        std::snprintf(error, error_size, "zxing-cpp failed");
    }
    return -1;
}
