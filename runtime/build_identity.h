// Which build of tgc is running: the GNU build ID the linker stamped into the library (or
// executable) holding tgc's code. Anything cached from what tgc's own code decides — the
// optimized-program cache keys a raw graph to the graph the passes made of it — must not be
// read back by a build whose passes differ, and the version number alone does not change
// between two builds of one source tree.
#pragma once

#include <string>

namespace tgc {

// The build ID as hex digits (ld's --build-id, on by default on Debian and Ubuntu). Where the
// object has none, its file's size and modification time; where even that cannot be read,
// the date and time this file was compiled. Computed once per process.
const std::string& build_identity();

}  // namespace tgc
