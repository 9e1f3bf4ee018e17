// Test helper: OpenCL C source through an OpenCL C front end (clCompileProgram: parsing and
// type checks, no machine code: about a second on PoCL for a whole unit, where building each
// entry's machine code would take minutes). The device tests build the entries they launch.
#pragma once

#if TGC_HAVE_OPENCL
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "backends/opencl/opencl_status.h"

namespace tgc::cfam::test {

// Skips the test when no OpenCL device is present; otherwise compiles `source` on the first
// device and expects success, showing the compiler's log.
inline void expect_opencl_compiles(const std::string& source, const std::string& what) {
  // opencl_status() loads the drivers as libtgc must (PoCL's LLVM 15 apart from libtgc's 16).
  const opencl::OpenCLStatus& status = opencl::opencl_status();
  if (!status.available) GTEST_SKIP() << "needs an OpenCL device: " << status.reason;
  const std::optional<opencl::OpenCLDeviceInfo> info = opencl::find_opencl_device(-1, 0);
  ASSERT_TRUE(info.has_value());
  cl_device_id device = info->device_id;
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const char* text = source.c_str();
  cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  if (err == CL_SUCCESS) {
    err = clCompileProgram(program, 1, &device, "", 0, nullptr, nullptr, nullptr, nullptr);
    size_t len = 0;
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &len);
    std::string log(len, '\0');
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, len, log.data(), nullptr);
    EXPECT_EQ(err, CL_SUCCESS) << what << ":\n" << log;
    clReleaseProgram(program);
  }
  clReleaseContext(context);
}

}  // namespace tgc::cfam::test
#endif
