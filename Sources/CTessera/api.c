// The C API is implemented in Swift (Sources/TesseraC); this target holds its header.
#include "tessera.h"
