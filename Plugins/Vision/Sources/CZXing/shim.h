// zxing-cpp (Debian's libzxing-dev, pkg-config zxing) is C++: ZXingShim includes its headers and gives
// Swift a C function. This target only carries the library's compile and link flags.
#include <stddef.h>
