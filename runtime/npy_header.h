// The header of a .npy file: the Python-literal dict after the magic and length, e.g.
// "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", and what it says.
#pragma once

#include <string>
#include <string_view>

#include "runtime/dtype.h"
#include "runtime/shape.h"

namespace tgc {

struct NpyHeader {
  DType dtype = DType::Float64;
  bool swap = false;  // the data's byte order differs from this machine's
  bool fortran = false;
  Shape shape;
};

// Reads the header dict `text` of the .npy file `source` (named in messages). Accepts
// exactly the literals NumPy writes and exactly the keys 'descr', 'fortran_order' and
// 'shape'; anything else, an unsupported dtype or a shape whose byte size overflows is an
// IOError (see npy_read_error).
NpyHeader parse_npy_header(std::string_view text, const std::string& source);

// Throws IOError "cannot read .npy file '<source>': <problem>" with `hint`: the one form
// of every .npy reading error, header or data.
[[noreturn]] void npy_read_error(
    const std::string& source, const std::string& problem,
    const std::string& hint = "the file is damaged or not a NumPy .npy file; write it again with "
                              "numpy.save(path, array)");

}  // namespace tgc
