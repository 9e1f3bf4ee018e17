// The codec of the custom family (ops/core/op_codec.h), which refuses: a CudaSourceOp's spec
// holds, besides its source, entry and options, three rules that are C++ functions of the
// running process (output types, output shapes, and the launch — grid, block, shared memory
// and arguments — computed from each call's tensors). A file cannot hold them, and an op read
// without them could not launch as the original does. Registering the codec makes saving say
// so, naming the kernel, instead of the generic "its class has no codec".
#include <memory>

#include "ops/core/op_codec.h"
#include "ops/custom/cuda_source_op.h"
#include "runtime/error.h"

namespace tgc {
namespace {

Json refuse_to_write(const CudaSourceOp& op, OpWriteContext&) {
  throw ValueError("the CUDA source op '" + op.spec().name +
                       "' cannot be saved: its output_types, output_shapes and launch rules are C++ functions "
                       "of this process, which a file cannot hold",
                   "save", "save a function built from tgc ops only: a cuda_kernel op lives in the program that defines "
                   "its rules");
}

std::shared_ptr<const Op> refuse_to_read(const Json&, OpReadContext&) {
  throw IOError("CUDA source ops (cuda_kernel) are never saved");
}

[[maybe_unused]] const bool registered =
    register_op_codec<CudaSourceOp>("CudaSourceOp", refuse_to_write, refuse_to_read);

}  // namespace
}  // namespace tgc
