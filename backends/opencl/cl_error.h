// OpenCL failures as tgc::DeviceError: every cl* status other than CL_SUCCESS is checked, and
// the message names the call, the node whose work it was and OpenCL's name for the status.
#pragma once

#include <CL/cl.h>

#include <string>

#include "runtime/error.h"

namespace tgc::opencl {

// "CL_OUT_OF_RESOURCES"; "OpenCL error -9999" for a status the headers do not name.
std::string cl_error_name(cl_int status);

// DeviceError "OpenCL call clEnqueueNDRangeKernel failed (CL_OUT_OF_RESOURCES) for node
// 'c = add(a, b)'" with a hint fitting the status. `call` is the checked expression or a
// bare function name; `node` may be "" (work that belongs to no node).
[[noreturn]] void throw_cl_error(cl_int status, const char* call, const std::string& node = "");
inline void check_cl(cl_int status, const char* call, const std::string& node = "") {
  if (status != CL_SUCCESS) throw_cl_error(status, call, node);
}

}  // namespace tgc::opencl

#define TGC_CL_CHECK(expr) ::tgc::opencl::check_cl((expr), #expr)
