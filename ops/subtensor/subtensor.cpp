// Subtensor and AdvancedSubtensor: type rules and reference evaluation.
#include "ops/subtensor/subtensor.h"

#include <cstring>

#include <fmt/format.h>

#include "ops/subtensor/index_loop.h"

namespace tgc {

namespace {

std::vector<Shape> shapes_of(const std::vector<Shape>& inputs, size_t from) {
  return std::vector<Shape>(inputs.begin() + static_cast<long>(from), inputs.end());
}

void check_arity(const std::string& op, const IndexSpec& spec, size_t given, size_t leading) {
  if (given != leading + static_cast<size_t>(spec.num_arrays()))
    throw TypeError(fmt::format("{} takes {} input(s), got {}", op, leading + spec.num_arrays(), given), "",
                    "pass the indexed tensor, then one integer tensor per array entry");
}

}  // namespace

Subtensor::Subtensor(IndexSpec spec) : spec_(std::move(spec)) {
  TGC_INTERNAL_CHECK(!spec_.has_arrays(), "Subtensor given index arrays; use AdvancedSubtensor");
}

std::vector<Type> Subtensor::infer_types(const std::vector<Type>& inputs) const {
  check_arity(name(), spec_, inputs.size(), 1);
  return {index_result_type(name(), spec_, inputs[0], {})};
}

std::vector<Shape> Subtensor::infer_shapes(const std::vector<Shape>& inputs) const {
  return {resolve_index(name(), spec_, inputs[0], contiguous_strides(inputs[0]), {}).result_shape};
}

void Subtensor::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  IndexLayout l = resolve_index(name(), spec_, x.shape(), x.strides(), {});
  outputs[0] = x.view(l.view_shape, l.view_strides, x.offset() + l.view_offset);
}

AdvancedSubtensor::AdvancedSubtensor(IndexSpec spec) : spec_(std::move(spec)) {
  TGC_INTERNAL_CHECK(spec_.has_arrays(), "AdvancedSubtensor without index arrays; use Subtensor");
}

std::vector<Type> AdvancedSubtensor::infer_types(const std::vector<Type>& inputs) const {
  check_arity(name(), spec_, inputs.size(), 1);
  return {index_result_type(name(), spec_, inputs[0], std::vector<Type>(inputs.begin() + 1, inputs.end()))};
}

std::vector<Shape> AdvancedSubtensor::infer_shapes(const std::vector<Shape>& inputs) const {
  return {resolve_index(name(), spec_, inputs[0], contiguous_strides(inputs[0]), shapes_of(inputs, 1)).result_shape};
}

void AdvancedSubtensor::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  std::vector<Tensor> arrays(inputs.begin() + 1, inputs.end());
  std::vector<Shape> array_shapes;
  for (const Tensor& a : arrays) array_shapes.push_back(a.shape());
  IndexLayout l = resolve_index(name(), spec_, x.shape(), x.strides(), array_shapes);
  std::vector<Tensor> idx = prepare_index_tensors(name(), l, arrays);
  Tensor& out = ensure_output(outputs[0], x.dtype(), l.result_shape);
  const size_t esize = dtype_size(x.dtype());
  const char* src = static_cast<const char*>(x.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  for_each_indexed(l, idx, out.strides(), [&](int64_t s, int64_t r) {
    std::memcpy(dst + r * static_cast<int64_t>(esize), src + s * static_cast<int64_t>(esize), esize);
  });
}

}  // namespace tgc
