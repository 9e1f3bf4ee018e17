// IncSubtensor: type rules (value dtype and broadcast) and reference evaluation.
#include "ops/subtensor/inc_subtensor.h"

#include <fmt/format.h>

#include "ops/elemwise/broadcast.h"
#include "ops/subtensor/index_loop.h"

namespace tgc {

std::string IncSubtensor::name() const {
  return std::string("IncSubtensor{") + (mode_ == Mode::Set ? "Set;" : "Inc;") + spec_.str() +
         (inplace_ ? ";inplace}" : "}");
}

std::shared_ptr<const Op> IncSubtensor::make_inplace(int output, int input) const {
  if (output != 0 || input != 0 || inplace_) return nullptr;
  return std::make_shared<IncSubtensor>(mode_, spec_, true);
}

void IncSubtensor::validate(const std::vector<Tensor>& inputs) const {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  infer_shapes(shapes);
  std::vector<Tensor> arrays(inputs.begin() + 2, inputs.end());
  for (const Tensor& a : arrays)
    if (!a.on_host()) return;  // on a device: read only where perform() reads them
  const Tensor& x = inputs[0];
  std::vector<Shape> array_shapes(shapes.begin() + 2, shapes.end());
  prepare_index_tensors(name(), resolve_index(name(), spec_, x.shape(), contiguous_strides(x.shape()), array_shapes),
                        arrays);
}

std::vector<Type> IncSubtensor::infer_types(const std::vector<Type>& inputs) const {
  const size_t expected = 2 + static_cast<size_t>(spec_.num_arrays());
  if (inputs.size() != expected)
    throw TypeError(fmt::format("{} takes {} inputs, got {}", name(), expected, inputs.size()), "",
                    "pass the tensor, the value, then one integer tensor per array entry");
  const Type& x = inputs[0];
  const Type& v = inputs[1];
  Type indexed = index_result_type(name(), spec_, x, std::vector<Type>(inputs.begin() + 2, inputs.end()));
  if (promote(x.dtype, v.dtype) != x.dtype)
    throw TypeError(fmt::format("{}: cannot store {} values into a {} tensor without losing precision",
                                user_name(), dtype_name(v.dtype), dtype_name(x.dtype)),
                    "", fmt::format("cast the value to {} first: value.astype(x.dtype())", dtype_name(x.dtype)));
  if (!may_broadcast_to(v.shape, indexed.shape))
    throw ShapeError(fmt::format("{}: a value of type {} cannot be broadcast to the indexed {}", user_name(),
                                 v.str(), indexed.str()),
                     "", "the value must broadcast to the shape that the index selects");
  return {x};
}

std::vector<Shape> IncSubtensor::infer_shapes(const std::vector<Shape>& inputs) const {
  std::vector<Shape> arrays(inputs.begin() + 2, inputs.end());
  Shape indexed = resolve_index(name(), spec_, inputs[0], contiguous_strides(inputs[0]), arrays).result_shape;
  if (!may_broadcast_to(inputs[1], indexed))
    throw ShapeError(fmt::format("{}: a value of shape {} cannot be broadcast to the indexed shape {}", user_name(),
                                 shape_str(inputs[1]), shape_str(indexed)),
                     "", "the value must broadcast to the shape that the index selects");
  return {inputs[0]};
}

void IncSubtensor::perform(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs) const {
  const Tensor& x = inputs[0];
  std::vector<Tensor> arrays(inputs.begin() + 2, inputs.end());
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  infer_shapes(shapes);  // checks the value's broadcast with a clear message

  Tensor& out = inplace_ ? ensure_output_inplace(outputs[0], x.dtype(), x.shape(), inputs, {0})
                         : ensure_output(outputs[0], x.dtype(), x.shape());
  // In place, out is x itself (ensure_output_inplace keeps it only in x's layout).
  if (!out.shares_buffer(x)) copy_elements(x, out);
  std::vector<Shape> array_shapes(shapes.begin() + 2, shapes.end());
  IndexLayout l = resolve_index(name(), spec_, out.shape(), out.strides(), array_shapes);
  std::vector<Tensor> idx = prepare_index_tensors(name(), l, arrays);
  Tensor v = inputs[1].dtype() == x.dtype() ? inputs[1] : inputs[1].astype(x.dtype());
  v = v.broadcast_to(l.result_shape);
  const bool set = mode_ == Mode::Set;
  dispatch_dtype(x.dtype(), [&]<typename T>() {
    T* o = out.data<T>();
    const T* pv = v.data<T>();
    for_each_indexed(l, idx, v.strides(), [&](int64_t s, int64_t r) {
      if (set) o[s] = pv[r];
      else o[s] = static_cast<T>(o[s] + pv[r]);
    });
  });
}

}  // namespace tgc
