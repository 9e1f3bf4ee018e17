// CudaSourceOp: an op whose computation is the user's own CUDA C source (PyCUDA's
// SourceModule): the source, its extern "C" entry, an output-type rule, a shape rule and a
// launch rule. It has no host meaning: on device=cpu running it is an error saying so; the
// CUDA backend compiles the source with NVRTC once and launches it on the device.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ops/core/op.h"
#include "runtime/export.h"
#include "runtime/type.h"

namespace tgc {
TGC_API_BEGIN  // libtgc exports what this header declares (runtime/export.h)

// One argument of the kernel, in parameter order.
struct CudaKernelArg {
  enum class Kind { Input, Output, Int32, Int64, Float32, Float64 };
  Kind kind = Kind::Int64;
  int index = 0;       // Input/Output: which tensor; passed as a pointer to its element [0,...,0]
  int64_t integer = 0; // Int32/Int64
  double real = 0;     // Float32/Float64

  static CudaKernelArg input(int i) { return {Kind::Input, i, 0, 0}; }
  static CudaKernelArg output(int i) { return {Kind::Output, i, 0, 0}; }
  static CudaKernelArg int32(int64_t v) { return {Kind::Int32, 0, v, 0}; }
  static CudaKernelArg int64(int64_t v) { return {Kind::Int64, 0, v, 0}; }
  static CudaKernelArg float32(double v) { return {Kind::Float32, 0, 0, v}; }
  static CudaKernelArg float64(double v) { return {Kind::Float64, 0, 0, v}; }
};

// One launch: a grid of blocks, the block shape, dynamic shared memory, the arguments.
struct CudaLaunchConfig {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{128, 1, 1};
  uint32_t shared_bytes = 0;
  std::vector<CudaKernelArg> args;
};

struct CudaKernelSpec {
  std::string name;    // the op's name in graphs and profiles ("PyCUDADoubleOp")
  std::string source;  // CUDA C, compiled by NVRTC for the device's architecture
  std::string entry;   // the extern "C" __global__ function to launch
  std::vector<std::string> nvrtc_options;  // extra NVRTC options, verbatim
  int num_outputs = 1;
  // Output types from the input types (one per output); throw TypeError for bad inputs.
  std::function<std::vector<Type>(const std::vector<Type>&)> output_types;
  // Output shapes from the input shapes at run time.
  std::function<std::vector<Shape>(const std::vector<Shape>&)> output_shapes;
  // The launch for these tensors: inputs as given (any strides, in elements), outputs freshly
  // allocated C-contiguous at output_shapes. Called on every call, so grids follow shapes.
  std::function<CudaLaunchConfig(const std::vector<Tensor>& inputs, const std::vector<Tensor>& outputs)> launch;
};

class CudaSourceOp final : public Op {
 public:
  explicit CudaSourceOp(std::shared_ptr<const CudaKernelSpec> spec);
  const CudaKernelSpec& spec() const { return *spec_; }

  std::string name() const override { return spec_->name; }
  std::string op_class() const override { return "CudaSourceOp"; }
  std::string user_name() const override { return spec_->name; }
  int num_outputs() const override { return spec_->num_outputs; }
  std::vector<Type> infer_types(const std::vector<Type>& inputs) const override;
  std::vector<Shape> infer_shapes(const std::vector<Shape>& inputs) const override;
  // ConfigError: the op's code runs on CUDA devices only.
  void perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const override;
  // No gradient: the source is opaque.
  std::vector<std::shared_ptr<Variable>> grad(const Node& node,
                                              const std::vector<std::shared_ptr<Variable>>& output_grads) const override;
  // Ops made from one spec are the same op (CSE merges only true duplicates).
  bool equals(const Op& other) const override;
  size_t hash() const override;

 private:
  std::shared_ptr<const CudaKernelSpec> spec_;
};

TGC_API_END
}  // namespace tgc
