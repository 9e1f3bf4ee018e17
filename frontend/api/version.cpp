// The library version, from the CMake project version.
#include <tgc/tgc.h>

namespace tgc {
const char* version() { return TGC_VERSION; }
}  // namespace tgc
