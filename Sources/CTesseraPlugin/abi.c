// The plugin ABI is a header only; SwiftPM wants a source file in a C target.
#include "tessera_plugin.h"
