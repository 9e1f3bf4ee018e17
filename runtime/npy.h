// Reading and writing NumPy .npy files as Tensors: format versions 1.0, 2.0 and 3.0, the
// dtypes tgc has (either byte order), C and Fortran order. Malformed files give IOError.
#pragma once

#include <string>
#include <string_view>

#include "runtime/export.h"
#include "runtime/tensor.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// Reads a .npy file into a host tensor. A Fortran-order file becomes a tensor with Fortran
// strides over the file's data (a non-contiguous view, not a copy); big-endian data is
// byte-swapped. Throws IOError naming the file and the problem.
Tensor read_npy(const std::string& path);
// The same, from the bytes of a .npy file; `source_name` names it in error messages.
Tensor parse_npy(std::string_view bytes, const std::string& source_name = "<memory>");

// Writes `t` (any device, any strides) as NumPy's np.save would: version 1.0 (2.0 when the
// header does not fit), C order, little-endian, in the tensor's logical C order.
void write_npy(const std::string& path, const Tensor& t);
// The exact bytes write_npy writes.
std::string npy_bytes(const Tensor& t);

TGC_API_END
}  // namespace tgc
