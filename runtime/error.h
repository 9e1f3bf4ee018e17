// tgc's exceptions: user errors carry what went wrong, where (the user's names) and a hint;
// InternalError marks a compiler bug and is kept apart from them.
#pragma once

#include <stdexcept>
#include <string>

#include "runtime/export.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// Base of every error tgc throws. The message reads: "<what> in <where>\n  hint: <hint>".
class Error : public std::runtime_error {
 public:
  Error(std::string what, std::string where = "", std::string hint = "");

  const std::string& what_part() const { return what_; }
  const std::string& where() const { return where_; }
  const std::string& hint() const { return hint_; }

  // Fills in the location when the thrower did not know it (e.g. an op's type rule does
  // not know the user's variable names; the graph builder does). Keeps an existing one.
  void set_where_if_empty(const std::string& where);

 private:
  void rebuild();
  std::string what_, where_, hint_, message_;

 public:
  const char* what() const noexcept override { return message_.c_str(); }
};

// Wrong dtype or rank, incompatible operands.
class TypeError : public Error { using Error::Error; };
// Shapes that do not fit together, at build time or at call time.
class ShapeError : public Error { using Error::Error; };
// A value that is out of range for the operation (index out of bounds, division by zero).
class ValueError : public Error { using Error::Error; };
// Bad arguments to a compiled function, or a graph input that was not provided.
class InputError : public Error { using Error::Error; };
// An unknown configuration key or a bad value.
class ConfigError : public Error { using Error::Error; };
// A file that cannot be read or written, or is malformed (.npy, config files).
class IOError : public Error { using Error::Error; };
// A failure reported by a device runtime or library (CUDA, cuBLAS, OpenCL): names the call,
// the library's error and, for asynchronous errors, the nodes that may have caused it.
class DeviceError : public Error { using Error::Error; };
// A collective that could not run: its engine (MPI, NCCL) is missing or failed, or it did
// not complete within comm_timeout (another rank failed or never called it).
class CommError : public Error { using Error::Error; };
// A broken invariant inside tgc: a bug, never the user's fault.
class InternalError : public Error { using Error::Error; };

TGC_API_END
}  // namespace tgc

// Checks an internal invariant; failing means a bug in tgc, reported with file and line.
#define TGC_INTERNAL_CHECK(cond, msg)                                                   \
  do {                                                                                 \
    if (!(cond))                                                                       \
      throw ::tgc::InternalError(std::string("internal error: ") + (msg),              \
                                 std::string(__FILE__) + ":" + std::to_string(__LINE__), \
                                 "this is a bug in tgc; please report it");            \
  } while (0)
