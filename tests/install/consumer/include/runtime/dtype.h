// The consumer's own runtime/dtype.h, with the same path as a header of tgc's source tree. The
// consumer's include folder comes first on its include path, so had tgc's installed headers
// kept including "runtime/dtype.h", this file would stand in for tgc's and <tgc/tgc.h> would
// not compile (tgc::DType would be missing).
#pragma once

namespace consumer {
inline const char* own_dtype_header() { return "the consumer's own runtime/dtype.h"; }
}  // namespace consumer
