// OpenCL status names and the DeviceError they become.
#include "backends/opencl/cl_error.h"

#include <fmt/format.h>

namespace tgc::opencl {

namespace {

// The function name of a checked expression: "clFinish(q)" -> "clFinish".
std::string call_name(const char* call) {
  std::string s(call);
  if (size_t paren = s.find('('); paren != std::string::npos) s.resize(paren);
  if (size_t colon = s.rfind("::"); colon != std::string::npos) s = s.substr(colon + 2);
  return s;
}

std::string hint_for(cl_int status) {
  switch (status) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
      return "the device ran out of memory: use smaller sizes, keep allow_gc=true, or release device tensors";
    case CL_OUT_OF_RESOURCES:
      return "the device ran out of resources (memory, or a kernel faulted on some drivers); run with sync=true "
             "so that the error names exactly the node that caused it";
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_DEVICE_NOT_FOUND:
      return "the OpenCL device went away; `tgc devices` lists the usable ones";
    default:
      return "this is most likely a bug in tgc's OpenCL backend; run with sync=true and report it";
  }
}

}  // namespace

std::string cl_error_name(cl_int status) {
  switch (status) {
#define TGC_CL_NAME(code) \
  case code: return #code;
    TGC_CL_NAME(CL_SUCCESS)
    TGC_CL_NAME(CL_DEVICE_NOT_FOUND)
    TGC_CL_NAME(CL_DEVICE_NOT_AVAILABLE)
    TGC_CL_NAME(CL_COMPILER_NOT_AVAILABLE)
    TGC_CL_NAME(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    TGC_CL_NAME(CL_OUT_OF_RESOURCES)
    TGC_CL_NAME(CL_OUT_OF_HOST_MEMORY)
    TGC_CL_NAME(CL_PROFILING_INFO_NOT_AVAILABLE)
    TGC_CL_NAME(CL_MEM_COPY_OVERLAP)
    TGC_CL_NAME(CL_IMAGE_FORMAT_MISMATCH)
    TGC_CL_NAME(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    TGC_CL_NAME(CL_BUILD_PROGRAM_FAILURE)
    TGC_CL_NAME(CL_MAP_FAILURE)
    TGC_CL_NAME(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    TGC_CL_NAME(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    TGC_CL_NAME(CL_COMPILE_PROGRAM_FAILURE)
    TGC_CL_NAME(CL_LINKER_NOT_AVAILABLE)
    TGC_CL_NAME(CL_LINK_PROGRAM_FAILURE)
    TGC_CL_NAME(CL_DEVICE_PARTITION_FAILED)
    TGC_CL_NAME(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    TGC_CL_NAME(CL_INVALID_VALUE)
    TGC_CL_NAME(CL_INVALID_DEVICE_TYPE)
    TGC_CL_NAME(CL_INVALID_PLATFORM)
    TGC_CL_NAME(CL_INVALID_DEVICE)
    TGC_CL_NAME(CL_INVALID_CONTEXT)
    TGC_CL_NAME(CL_INVALID_QUEUE_PROPERTIES)
    TGC_CL_NAME(CL_INVALID_COMMAND_QUEUE)
    TGC_CL_NAME(CL_INVALID_HOST_PTR)
    TGC_CL_NAME(CL_INVALID_MEM_OBJECT)
    TGC_CL_NAME(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    TGC_CL_NAME(CL_INVALID_IMAGE_SIZE)
    TGC_CL_NAME(CL_INVALID_SAMPLER)
    TGC_CL_NAME(CL_INVALID_BINARY)
    TGC_CL_NAME(CL_INVALID_BUILD_OPTIONS)
    TGC_CL_NAME(CL_INVALID_PROGRAM)
    TGC_CL_NAME(CL_INVALID_PROGRAM_EXECUTABLE)
    TGC_CL_NAME(CL_INVALID_KERNEL_NAME)
    TGC_CL_NAME(CL_INVALID_KERNEL_DEFINITION)
    TGC_CL_NAME(CL_INVALID_KERNEL)
    TGC_CL_NAME(CL_INVALID_ARG_INDEX)
    TGC_CL_NAME(CL_INVALID_ARG_VALUE)
    TGC_CL_NAME(CL_INVALID_ARG_SIZE)
    TGC_CL_NAME(CL_INVALID_KERNEL_ARGS)
    TGC_CL_NAME(CL_INVALID_WORK_DIMENSION)
    TGC_CL_NAME(CL_INVALID_WORK_GROUP_SIZE)
    TGC_CL_NAME(CL_INVALID_WORK_ITEM_SIZE)
    TGC_CL_NAME(CL_INVALID_GLOBAL_OFFSET)
    TGC_CL_NAME(CL_INVALID_EVENT_WAIT_LIST)
    TGC_CL_NAME(CL_INVALID_EVENT)
    TGC_CL_NAME(CL_INVALID_OPERATION)
    TGC_CL_NAME(CL_INVALID_GL_OBJECT)
    TGC_CL_NAME(CL_INVALID_BUFFER_SIZE)
    TGC_CL_NAME(CL_INVALID_MIP_LEVEL)
    TGC_CL_NAME(CL_INVALID_GLOBAL_WORK_SIZE)
    TGC_CL_NAME(CL_INVALID_PROPERTY)
    TGC_CL_NAME(CL_INVALID_IMAGE_DESCRIPTOR)
    TGC_CL_NAME(CL_INVALID_COMPILER_OPTIONS)
    TGC_CL_NAME(CL_INVALID_LINKER_OPTIONS)
    TGC_CL_NAME(CL_INVALID_DEVICE_PARTITION_COUNT)
#undef TGC_CL_NAME
    case -1001: return "CL_PLATFORM_NOT_FOUND_KHR";  // the ICD loader found no platform
    default: return fmt::format("OpenCL error {}", status);
  }
}

void throw_cl_error(cl_int status, const char* call, const std::string& node) {
  std::string what = fmt::format("OpenCL call {} failed ({})", call_name(call), cl_error_name(status));
  if (!node.empty()) what += " for node '" + node + "'";
  throw DeviceError(what, "", hint_for(status));
}

}  // namespace tgc::opencl
