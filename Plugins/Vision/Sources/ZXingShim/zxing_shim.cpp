#include "zxing_shim.h"

// zxing-cpp 1.4's text() is UTF-16 (std::wstring) unless this asks for UTF-8, as 2.0 always gives it.
#define ZX_USE_UTF8 1
#include <ZXing/ReadBarcode.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <vector>
#include <exception>
#include <string>

extern "C" int tessera_zxing_read(const uint8_t *gray, int width, int height, int stride, int formats,
                                  int try_harder, int try_rotate, int try_downscale, void *context,
                                  tessera_zxing_found found, char *error, size_t error_size) {
    try {
        using ZXing::BarcodeFormat;
        const ZXing::BarcodeFormats asked =
            formats == 0 ? ZXing::BarcodeFormats(BarcodeFormat::Any)
                         : ZXing::BarcodeFormats(static_cast<BarcodeFormat>(formats));
        int count = 0;
        auto report = [&](const ZXing::Result &result) {
            const auto position = result.position();
            int corners[8];
            for (int k = 0; k < 4; ++k) {
                corners[2 * k] = position[k].x;
                corners[2 * k + 1] = position[k].y;
            }
            const std::string text = result.text();
            found(context, static_cast<int>(result.format()), text.data(), text.size(), corners);
            ++count;
        };
        // zxing-cpp 1.4.0 (Debian's, built with assertions) aborts the process in Result::operator==
        // (assert lineCount() == 1) when ReadBarcodes compares two linear results of the same format and
        // text: two identical labels in one photo, or one code read again by its downscaled pyramid. 2D codes
        // compare by position before that assertion, so they are read with every hint; linear codes one at a
        // time (maxNumberOfSymbols 1, no pyramid), each painted white once read, until none is left.
        // A copy to paint codes out of once read.
        std::vector<uint8_t> copy(static_cast<size_t>(width) * height);
        auto restore = [&] {
            for (int y = 0; y < height; ++y)
                std::copy(gray + static_cast<size_t>(y) * stride, gray + static_cast<size_t>(y) * stride + width,
                          copy.begin() + static_cast<size_t>(y) * width);
        };
        auto paint = [&](int x0, int y0, int x1, int y1) {
            x0 = std::max(0, x0), y0 = std::max(0, y0), x1 = std::min(width - 1, x1), y1 = std::min(height - 1, y1);
            for (int y = y0; y <= y1; ++y)
                std::fill(copy.begin() + static_cast<size_t>(y) * width + x0,
                          copy.begin() + static_cast<size_t>(y) * width + x1 + 1, uint8_t(255));
        };
        const auto matrix = asked & BarcodeFormat::MatrixCodes;
        if (!matrix.empty()) {
            // zxing-cpp 1.4 finds two of four identical QR codes drawn 2 x 2 (its finder patterns group
            // wrongly), so the codes read are painted out and the rest read again, until a pass reads none.
            // A pass after the first looks only for the formats the pass before read: the others were looked
            // for on the whole photo already, and painting only takes pixels away. (A QR-only pass takes three
            // quarters of the time of an all-matrix one on the fixture photos and QR codes; the 117 sheets of
            // 2 to 9 identical fixture codes read the same codes either way.)
            restore();
            ZXing::DecodeHints hints;
            hints.setFormats(matrix);
            hints.setTryHarder(try_harder != 0);
            hints.setTryRotate(try_rotate != 0);
            hints.setTryDownscale(try_downscale != 0);
            for (int round = 0; round < 8; ++round) {
                int read = 0;
                const auto results =
                    ZXing::ReadBarcodes(ZXing::ImageView(copy.data(), width, height, ZXing::ImageFormat::Lum), hints);
                for (const auto &result : results) {
                    if (!result.isValid()) continue;
                    report(result);
                    ++read;
                }
                if (read == 0) break;
                ZXing::BarcodeFormats seen;
                for (const auto &result : results)
                    if (result.isValid()) seen |= result.format();
                hints.setFormats(seen);
                for (const auto &result : results) {
                    if (!result.isValid()) continue;
                    int x0 = width, y0 = height, x1 = 0, y1 = 0;
                    for (const auto &p : result.position()) {
                        x0 = std::min(x0, p.x), y0 = std::min(y0, p.y);
                        x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
                    }
                    paint(x0 - 2, y0 - 2, x1 + 2, y1 + 2);
                }
            }
        }
        const auto linear = asked & BarcodeFormat::LinearCodes;
        if (!linear.empty()) {
            restore();
            ZXing::DecodeHints hints;
            hints.setFormats(linear);
            hints.setTryHarder(try_harder != 0);
            hints.setTryRotate(try_rotate != 0);
            hints.setTryDownscale(false);
            hints.setMaxNumberOfSymbols(1);
            struct Box {
                int x0, y0, x1, y1, format;
                std::string text;
            };
            std::vector<Box> read;
            for (int round = 0; round < 64; ++round) {
                const auto results =
                    ZXing::ReadBarcodes(ZXing::ImageView(copy.data(), width, height, ZXing::ImageFormat::Lum), hints);
                const auto result = std::find_if(results.begin(), results.end(), [](auto &r) { return r.isValid(); });
                if (result == results.end()) break;
                const auto position = result->position();
                int x0 = width, y0 = height, x1 = 0, y1 = 0;
                for (const auto &p : position) {
                    x0 = std::min(x0, p.x), y0 = std::min(y0, p.y), x1 = std::max(x1, p.x), y1 = std::max(y1, p.y);
                }
                const bool horizontal = (x1 - x0) >= (y1 - y0);
                const int length = std::max(x1 - x0, y1 - y0);
                // The rest of a code read before (its bars beyond what was painted): the same format and text,
                // across the same span, and the photo between the two scan lines bars like the new one (an
                // identical code stacked beyond has its quiet zone between). Painted, not reported again.
                const Box box{x0, y0, x1, y1, static_cast<int>(result->format()), result->text()};
                const bool again = std::any_of(read.begin(), read.end(), [&](const Box &other) {
                    if (other.format != box.format || other.text != box.text) return false;
                    const int a0 = horizontal ? box.x0 : box.y0, a1 = horizontal ? box.x1 : box.y1;
                    const int b0 = horizontal ? other.x0 : other.y0, b1 = horizontal ? other.x1 : other.y1;
                    if (2 * (std::min(a1, b1) - std::max(a0, b0)) <= std::min(a1 - a0, b1 - b0)) return false;
                    const int line = horizontal ? box.y0 : box.x0, before = horizontal ? other.y0 : other.x0;
                    // Each line between, against the new scan line: the mean difference over the span. A line
                    // or two at the bars' ends (the first scan line may run along them) may differ.
                    int differing = 0;
                    const int lines = std::abs(line - before) - 1;
                    for (int at = std::min(line, before) + 1; at < std::max(line, before); ++at) {
                        long difference = 0;
                        for (int k = a0; k <= a1; ++k) {
                            const int here = horizontal ? gray[static_cast<size_t>(at) * stride + k]
                                                        : gray[static_cast<size_t>(k) * stride + at];
                            const int there = horizontal ? gray[static_cast<size_t>(line) * stride + k]
                                                         : gray[static_cast<size_t>(k) * stride + line];
                            difference += std::abs(here - there);
                        }
                        if (difference > 48L * (a1 - a0 + 1)) ++differing;
                    }
                    return differing <= std::max(2, lines / 10);
                });
                if (!again) {
                    report(*result);
                    read.push_back(box);
                }
                // White over the code: its scan lines' extent, grown along the bars by half the code's length
                // (the rows between the lines it was read on, and the bars beyond them) and across by 10 %.
                const int along = length / 2 + 4, across = length / 10 + 4;
                const int gx = horizontal ? across : along, gy = horizontal ? along : across;
                paint(x0 - gx, y0 - gy, x1 + gx, y1 + gy);
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
